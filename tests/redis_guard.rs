//! The Redis replay guard against a real `redis-server` (feature `redis`).
//!
//! The server's URL comes from `MRTR_GUARD_REDIS_URL`; a second server, TLS
//! only, from `MRTR_GUARD_REDIS_TLS_URL`, with the path of the CA that signed
//! its certificate in `MRTR_GUARD_REDIS_TLS_CA` (`.ci/run` starts both with
//! `scripts/redis-up`, the second with `--tls`). Without them the tests fail
//! when `CI` is set and are skipped, with a notice, otherwise.

#![cfg(feature = "redis")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::io::Write as _;
use std::net::TcpListener;
use std::sync::{Arc, Barrier, Once};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mrtr_guard::state::ReplayError;
use mrtr_guard::{
    Binding, Contents, MasterKey, Method, RedisReplayGuard, ReplayGuard, StateCodec, StateError,
};
use serde_json::Value;

const URL_VAR: &str = "MRTR_GUARD_REDIS_URL";
const TLS_URL_VAR: &str = "MRTR_GUARD_REDIS_TLS_URL";
const TLS_CA_VAR: &str = "MRTR_GUARD_REDIS_TLS_CA";

/// The variable's value, or `None` (after a notice) when it is not set
/// outside CI.
fn setting(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(value) if !value.is_empty() => Some(value),
        _ if std::env::var_os("CI").is_some() => panic!(
            "{var} is not set: CI must start the redis-servers (scripts/redis-up) \
             and export their settings before the tests"
        ),
        _ => {
            // Written to the process' stderr, past the test harness' capture,
            // so that the skip shows in a passing run.
            static NOTICE: Once = Once::new();
            NOTICE.call_once(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "notice: {var} is not set; skipping Redis replay-guard tests \
                     (start servers with `scripts/redis-up [--tls] DIR`, as .ci/run does)"
                );
            });
            None
        }
    }
}

/// The plain test server's URL.
fn redis_url() -> Option<String> {
    setting(URL_VAR)
}

/// The TLS test server's URL and the PEM of the CA that signed its
/// certificate.
fn redis_tls() -> Option<(String, Vec<u8>)> {
    let url = setting(TLS_URL_VAR)?;
    let ca = std::fs::read(setting(TLS_CA_VAR)?).unwrap();
    Some((url, ca))
}

/// A key prefix no other test (or earlier run) uses.
fn unique_prefix(test: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("mrtr-guard-test:{}-{nanos}:{test}:", std::process::id())
}

/// The same server, another database index.
fn with_db(url: &str, db: u32) -> String {
    let base = url.trim_end_matches('/');
    let base = base
        .rsplit_once('/')
        .filter(|(_, index)| index.parse::<u32>().is_ok())
        .map_or(base, |(server, _)| server);
    format!("{base}/{db}")
}

fn guard(url: &str, prefix: &str) -> RedisReplayGuard {
    RedisReplayGuard::builder(url)
        .key_prefix(prefix)
        .build()
        .unwrap()
}

/// One server instance: its own codec and its own guard (own connections),
/// the key ring and audience shared with the other instances.
fn instance(guard: Arc<dyn ReplayGuard>) -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .replay_guard(guard)
    .build()
    .unwrap()
}

fn binding() -> Binding<'static> {
    Binding::new("ada", Method::ToolsCall, "redeem_voucher", None)
}

/// An instance without a guard: mints, and opens to read the claims.
fn minter() -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .build()
    .unwrap()
}

fn token() -> String {
    minter().start(&binding(), &Contents::new(())).unwrap()
}

#[test]
fn a_token_opens_once_across_two_instances() {
    let Some(url) = redis_url() else { return };
    let prefix = unique_prefix("instances");
    let a = instance(Arc::new(guard(&url, &prefix)));
    let b = instance(Arc::new(guard(&url, &prefix)));
    let token = token();

    assert!(a.open::<()>(&token, &binding()).is_ok());
    assert_eq!(
        b.open::<()>(&token, &binding()).err(),
        Some(StateError::Replayed),
        "instance B sees A's use"
    );
    assert_eq!(
        a.open::<()>(&token, &binding()).err(),
        Some(StateError::Replayed)
    );

    // The next round of the same flow is a new (flow id, round): it opens once too.
    let minter = minter();
    let claims = minter.open::<()>(&token, &binding()).unwrap();
    let round_two = minter
        .next(&binding(), &claims, &Contents::new(()))
        .unwrap();
    assert!(b.open::<()>(&round_two, &binding()).is_ok());
    assert_eq!(
        a.open::<()>(&round_two, &binding()).err(),
        Some(StateError::Replayed)
    );
}

#[test]
fn concurrent_consumers_exactly_one_wins() {
    let Some(url) = redis_url() else { return };
    let prefix = unique_prefix("race");
    const THREADS: usize = 8;
    for _ in 0..20 {
        let token = Arc::new(token());
        let barrier = Arc::new(Barrier::new(THREADS));
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                // Each thread is its own instance with its own connection.
                let codec = instance(Arc::new(guard(&url, &prefix)));
                let token = Arc::clone(&token);
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                    codec.open::<()>(&token, &binding())
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let wins = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(wins, 1, "{results:?}");
        assert!(
            results
                .iter()
                .all(|r| r.is_ok() || r.as_ref().err() == Some(&StateError::Replayed)),
            "{results:?}"
        );
    }
}

#[test]
fn an_instance_whose_clock_runs_behind_still_sees_the_use() {
    let Some(url) = redis_url() else { return };
    let prefix = unique_prefix("skew");
    let a = instance(Arc::new(guard(&url, &prefix)));
    let b = instance(Arc::new(guard(&url, &prefix)));
    let token = token();
    let expires_at = minter()
        .open::<()>(&token, &binding())
        .unwrap()
        .expires_at();

    // A's clock reads 200 ms before the token expires when it consumes it.
    let a_now = expires_at - time::Duration::milliseconds(200);
    assert!(a.open_at::<()>(&token, &binding(), a_now).is_ok());
    std::thread::sleep(Duration::from_millis(400));
    // B's clock runs one second behind A's (well inside the 60 s skew): for
    // B the token has not expired yet, so only the guard can refuse it.
    let b_now = a_now + time::Duration::milliseconds(400) - time::Duration::seconds(1);
    assert_eq!(
        b.open_at::<()>(&token, &binding(), b_now).err(),
        Some(StateError::Replayed),
        "B accepted a token A had used: the guard forgot it by A's clock"
    );
}

#[test]
fn unreachable_redis_fails_closed_without_naming_secrets() {
    // A port that was just free and is closed now.
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("redis://:hunter2-secret@127.0.0.1:{port}/");
    let guard = RedisReplayGuard::builder(url.as_str())
        .connect_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let guard = Arc::new(guard);
    let codec = instance(Arc::clone(&guard) as Arc<dyn ReplayGuard>);
    let token = token();

    let error = codec.open::<()>(&token, &binding()).unwrap_err();
    let StateError::ReplayGuard(ReplayError::Unavailable(why)) = &error else {
        panic!("expected a replay-guard failure, got {error:?}");
    };
    assert_eq!(error.reason(), "replay_guard_failed");
    assert_eq!(why, "redis refused the connection");
    let full = format!(
        "{error} / {error:?} / {} / {guard:?}",
        ReplayError::Unavailable(why.clone())
    );
    assert!(!full.contains("hunter2"), "{full}");
    assert!(guard.ping().is_err());
    // Still refused on a second try (it reconnects, and fails again).
    assert!(matches!(
        codec.open::<()>(&token, &binding()),
        Err(StateError::ReplayGuard(ReplayError::Unavailable(_)))
    ));
}

#[test]
fn a_stalled_redis_fails_after_one_timeout_whatever_the_handshake() {
    // Accepts connections and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    let timeout = Duration::from_millis(400);
    // No handshake; AUTH; AUTH and SELECT: each waits for one timeout at most.
    for url in [
        format!("redis://{addr}/"),
        format!("redis://:pw@{addr}/"),
        format!("redis://user:pw@{addr}/7"),
    ] {
        let guard = RedisReplayGuard::builder(url.as_str())
            .connect_timeout(timeout)
            .command_timeout(timeout)
            .build()
            .unwrap();
        let started = std::time::Instant::now();
        assert_eq!(
            guard.ping(),
            Err(ReplayError::Unavailable(
                "redis did not answer in time".to_owned()
            ))
        );
        let elapsed = started.elapsed();
        assert!(
            elapsed >= timeout - Duration::from_millis(20)
                && elapsed < timeout + Duration::from_millis(300),
            "{url}: {elapsed:?}"
        );
    }
}

#[test]
fn credentials_and_database_come_from_the_url() {
    let Some(url) = redis_url() else { return };
    let mut admin = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let user = unique_prefix("user").replace(':', "-");
    let _: () = redis::cmd("ACL")
        .arg("SETUSER")
        .arg(&user)
        .arg("on")
        .arg(">s3cret-pw")
        .arg("~*")
        .arg("+@all")
        .query(&mut admin)
        .unwrap();
    let server = url.trim_start_matches("redis://").trim_end_matches('/');
    let guard = RedisReplayGuard::builder(format!("redis://{user}:s3cret-pw@{server}/4"))
        .key_prefix(unique_prefix("acl"))
        .build()
        .unwrap();
    let flow = minter().open::<()>(&token(), &binding()).unwrap().flow_id();
    let now = time::OffsetDateTime::now_utc();
    let later = now + time::Duration::minutes(1);
    assert_eq!(guard.consume(flow, 1, later, now), Ok(()));
    let _: () = redis::cmd("SELECT").arg(4).query(&mut admin).unwrap();
    let exists: i64 = redis::cmd("EXISTS")
        .arg(guard.key(flow, 1))
        .query(&mut admin)
        .unwrap();
    assert_eq!(exists, 1, "the key is in database 4");

    let wrong = RedisReplayGuard::builder(format!("redis://{user}:wrong@{server}/4"))
        .build()
        .unwrap();
    let refused = wrong.ping().unwrap_err();
    assert!(!format!("{refused:?}").contains("wrong"), "{refused:?}");
    assert_eq!(
        refused,
        ReplayError::Unavailable("redis refused the credentials".to_owned())
    );
    let _: i64 = redis::cmd("ACL")
        .arg("DELUSER")
        .arg(&user)
        .query(&mut admin)
        .unwrap();
}

#[test]
fn entries_live_until_expiry_plus_skew() {
    let Some(url) = redis_url() else { return };
    let prefix = unique_prefix("pttl");
    let guard = Arc::new(guard(&url, &prefix));
    assert_eq!(guard.ping(), Ok(()));
    let codec = instance(Arc::clone(&guard) as Arc<dyn ReplayGuard>);
    let token = token();
    let claims = codec.open::<Value>(&token, &binding()).unwrap();

    let key = guard.key(claims.flow_id(), claims.round());
    assert!(key.starts_with(&prefix), "{key}");
    assert!(key.ends_with(&format!("{}:1", claims.flow_id())), "{key}");
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let pttl: i64 = redis::cmd("PTTL").arg(&key).query(&mut conn).unwrap();
    // Ten minutes (the default TTL) plus the 60 s skew, less the time since
    // minting.
    assert!(pttl > 650_000 && pttl <= 660_000, "PTTL {pttl}");
    let value: String = redis::cmd("GET").arg(&key).query(&mut conn).unwrap();
    assert_eq!(value, "1");
}

#[test]
fn a_key_that_expired_can_be_set_again_and_px_is_at_least_one_ms() {
    let Some(url) = redis_url() else { return };
    let guard = guard(&url, &unique_prefix("expiry"));
    let codec_token = token();
    let minter = minter();
    let claims = minter.open::<()>(&codec_token, &binding()).unwrap();
    let now = time::OffsetDateTime::now_utc();
    // Expiry already reached: PX is clamped to 1 ms instead of erroring.
    assert_eq!(guard.consume(claims.flow_id(), 1, now, now), Ok(()));
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(guard.consume(claims.flow_id(), 1, now, now), Ok(()));
    let later = now + time::Duration::minutes(1);
    assert_eq!(guard.consume(claims.flow_id(), 2, later, now), Ok(()));
    assert_eq!(
        guard.consume(claims.flow_id(), 2, later, now),
        Err(ReplayError::Replayed)
    );
}

#[test]
fn a_server_error_fails_closed() {
    let Some(url) = redis_url() else { return };
    // A database index the server does not have: its handshake (SELECT) fails.
    let guard = guard(&with_db(&url, 9999), &unique_prefix("db"));
    let codec = instance(Arc::new(guard));
    let error = codec.open::<()>(&token(), &binding()).unwrap_err();
    let StateError::ReplayGuard(ReplayError::Unavailable(why)) = &error else {
        panic!("expected a replay-guard failure, got {error:?}");
    };
    assert_eq!(why, "redis answered with error ERR");
}

#[test]
fn a_dropped_idle_connection_is_replaced() {
    let Some(url) = redis_url() else { return };
    // Database 5 is used by this test alone, so its connections can be told apart.
    let guard = Arc::new(
        RedisReplayGuard::builder(with_db(&url, 5))
            .key_prefix(unique_prefix("stale"))
            .build()
            .unwrap(),
    );
    assert_eq!(guard.ping(), Ok(()), "one idle connection now");

    // Redis closes it (as after a restart, or a proxy's idle timeout).
    let mut admin = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let clients: String = redis::cmd("CLIENT").arg("LIST").query(&mut admin).unwrap();
    let ids: Vec<&str> = clients
        .lines()
        .filter(|line| line.split(' ').any(|field| field == "db=5"))
        .filter_map(|line| line.split(' ').find_map(|field| field.strip_prefix("id=")))
        .collect();
    assert_eq!(ids.len(), 1, "{clients}");
    let _: i64 = redis::cmd("CLIENT")
        .arg("KILL")
        .arg("ID")
        .arg(ids[0])
        .query(&mut admin)
        .unwrap();

    // The next token is not refused for it: the guard reconnects once.
    let codec = instance(Arc::clone(&guard) as Arc<dyn ReplayGuard>);
    let token = token();
    assert_eq!(codec.open::<()>(&token, &binding()).err(), None);
    assert_eq!(
        codec.open::<()>(&token, &binding()).err(),
        Some(StateError::Replayed)
    );
}

/// A CA that signed nothing the test servers use (its key is gone).
const OTHER_CA: &str = "-----BEGIN CERTIFICATE-----
MIIBmTCCAT+gAwIBAgIUDTJXZcTbIWXMRV1z/RuG9XokuGMwCgYIKoZIzj0EAwIw
IjEgMB4GA1UEAwwXbXJ0ci1ndWFyZCB1bml0LXRlc3QgQ0EwHhcNMjYxMjAxMDY0
MDU3WhcNMzYxMTI4MDY0MDU3WjAiMSAwHgYDVQQDDBdtcnRyLWd1YXJkIHVuaXQt
dGVzdCBDQTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABAAFlRKjB18BJ0Io2Hmj
SQKMeRFQQ5ehCyxmG7NFvgsJgtyDL4k2CQrE0k5HhZJKbGzd9LrIsSZccuF5w2nw
yHqjUzBRMB0GA1UdDgQWBBQmeTAOmcPvf2hrIn3jaMcGQ+CFxDAfBgNVHSMEGDAW
gBQmeTAOmcPvf2hrIn3jaMcGQ+CFxDAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49
BAMCA0gAMEUCIBivzFwLLwrlOV1GrtIZWIl6+TiDXv5RSuvW8FZbSncfAiEAic8m
0tTTFeq1NuLID6GSk4qSA+O7Mq1BtOOmaC9g3nM=
-----END CERTIFICATE-----
";

#[test]
fn over_tls_a_token_opens_once_across_two_instances() {
    let Some((url, ca)) = redis_tls() else { return };
    assert!(url.starts_with("rediss://"), "{url}");
    let prefix = unique_prefix("tls");
    let tls_guard = || {
        RedisReplayGuard::builder(url.as_str())
            .key_prefix(prefix.as_str())
            .ca_certificate_pem(ca.clone())
            .build()
            .unwrap()
    };
    assert_eq!(tls_guard().ping(), Ok(()));
    let a = instance(Arc::new(tls_guard()));
    let b = instance(Arc::new(tls_guard()));
    let token = token();
    assert!(a.open::<()>(&token, &binding()).is_ok());
    assert_eq!(
        b.open::<()>(&token, &binding()).err(),
        Some(StateError::Replayed)
    );
}

#[test]
fn over_tls_an_untrusted_certificate_fails_closed() {
    let Some((url, _)) = redis_tls() else { return };
    // The Mozilla roots (the default), and a CA that did not sign the
    // server's certificate: neither trusts the test server.
    let guards = [
        RedisReplayGuard::builder(url.as_str()).build().unwrap(),
        RedisReplayGuard::builder(url.as_str())
            .ca_certificate_pem(OTHER_CA)
            .build()
            .unwrap(),
    ];
    for guard in guards {
        assert_eq!(
            guard.ping(),
            Err(ReplayError::Unavailable(
                "redis' tls certificate was not accepted".to_owned()
            )),
            "{guard:?}"
        );
        let codec = instance(Arc::new(guard));
        assert!(matches!(
            codec.open::<()>(&token(), &binding()),
            Err(StateError::ReplayGuard(ReplayError::Unavailable(_)))
        ));
    }
}

#[test]
fn a_tls_server_does_not_answer_plain_redis() {
    let Some((url, _)) = redis_tls() else { return };
    let plain = url.replacen("rediss://", "redis://", 1);
    let guard = RedisReplayGuard::builder(plain).build().unwrap();
    assert!(matches!(guard.ping(), Err(ReplayError::Unavailable(_))));
}
