//! The Redis replay guard against a real `redis-server` (feature `redis`).
//!
//! The server's URL comes from `MRTR_GUARD_REDIS_URL`; a second server, TLS
//! only, from `MRTR_GUARD_REDIS_TLS_URL`, with the path of the CA that signed
//! its certificate in `MRTR_GUARD_REDIS_TLS_CA`; one node of a Redis Cluster
//! of three masters from `MRTR_GUARD_REDIS_CLUSTER_URL`, and one over TLS from
//! `MRTR_GUARD_REDIS_CLUSTER_TLS_URL` with its CA in
//! `MRTR_GUARD_REDIS_CLUSTER_TLS_CA` (`.ci/run` starts all four with
//! `scripts/redis-up`, with `--tls`, `--cluster`, `--cluster --tls`). Without them
//! the tests fail when `CI` is set and are skipped, with a notice, otherwise.
//! A few tests start a `redis-server` of their own, with the settings they
//! test (an eviction policy, a small `maxmemory`, a replica).

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
use std::pin::Pin;
use std::sync::{Arc, Barrier, Once};
use std::task::Poll;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mrtr_guard::state::{PrincipalKey, RedisConfigError, ReplayError};
use mrtr_guard::{
    Binding, MasterKey, Method, RedisReplayGuard, ReplayGuard, StateCodec, StateContents,
    StateError,
};
use serde_json::Value;

const URL_VAR: &str = "MRTR_GUARD_REDIS_URL";
const TLS_URL_VAR: &str = "MRTR_GUARD_REDIS_TLS_URL";
const TLS_CA_VAR: &str = "MRTR_GUARD_REDIS_TLS_CA";
/// One node of a Redis Cluster of three masters (`scripts/redis-up --cluster`).
const CLUSTER_URL_VAR: &str = "MRTR_GUARD_REDIS_CLUSTER_URL";
/// The same over TLS only (`--cluster --tls`), and the CA of its certificates.
const CLUSTER_TLS_URL_VAR: &str = "MRTR_GUARD_REDIS_CLUSTER_TLS_URL";
const CLUSTER_TLS_CA_VAR: &str = "MRTR_GUARD_REDIS_CLUSTER_TLS_CA";

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

/// The principal of a direct `consume` (no share is set: any will do).
fn anyone() -> PrincipalKey {
    PrincipalKey::from_bytes([0; 16])
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
    minter().start(&binding(), &StateContents::new(())).unwrap()
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
        .next(&binding(), &claims, &StateContents::new(()))
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

/// A listener that accepts connections and never answers.
fn stalled_redis() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    addr
}

#[test]
fn a_stalled_redis_fails_after_one_timeout_whatever_the_handshake() {
    let addr = stalled_redis();
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

/// Calls that queue behind a batch a stalled Redis never answers are
/// refused with it: none waits for a timeout of its own after another's.
#[test]
fn behind_a_stalled_batch_no_call_waits_for_two_timeouts() {
    let addr = stalled_redis();
    let timeout = Duration::from_millis(400);
    let guard = RedisReplayGuard::builder(format!("redis://{addr}/"))
        .connect_timeout(timeout)
        .command_timeout(timeout)
        .build()
        .unwrap();
    let codec = Arc::new(instance(Arc::new(guard)));
    let runtime = runtime();
    let late = runtime.block_on(async {
        let timed = |codec: Arc<StateCodec>| async move {
            let (token, started) = (token(), std::time::Instant::now());
            let opened = codec.open_async::<()>(&token, &binding()).await;
            (opened.err(), started.elapsed())
        };
        let first = tokio::spawn(timed(Arc::clone(&codec)));
        // Queued while the first call's batch waits on Redis.
        tokio::time::sleep(timeout / 2).await;
        let late = tokio::spawn(timed(Arc::clone(&codec)));
        let (first, late) = (first.await.unwrap(), late.await.unwrap());
        assert!(first.1 >= timeout - Duration::from_millis(20), "{first:?}");
        late
    });
    let refused = StateError::ReplayGuard(ReplayError::Unavailable(
        "redis did not answer in time".to_owned(),
    ));
    assert_eq!(late.0, Some(refused));
    assert!(
        late.1 < timeout,
        "waited {:?} behind the stalled batch",
        late.1
    );
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
    assert_eq!(guard.consume(anyone(), flow, 1, later, now), Ok(()));
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
    assert_eq!(
        guard.consume(anyone(), claims.flow_id(), 1, now, now),
        Ok(())
    );
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(
        guard.consume(anyone(), claims.flow_id(), 1, now, now),
        Ok(())
    );
    let later = now + time::Duration::minutes(1);
    assert_eq!(
        guard.consume(anyone(), claims.flow_id(), 2, later, now),
        Ok(())
    );
    assert_eq!(
        guard.consume(anyone(), claims.flow_id(), 2, later, now),
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

// ---- a redis-server of the test's own ---------------------------------------------

/// A `redis-server` this test starts (loopback, no persistence) with its
/// own settings, stopped when dropped.
struct OwnRedis {
    child: std::process::Child,
    port: u16,
    /// Its working directory (a replica writes the data it receives there).
    dir: std::path::PathBuf,
}

impl OwnRedis {
    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    fn admin(&self) -> redis::Connection {
        redis::Client::open(self.url())
            .unwrap()
            .get_connection()
            .unwrap()
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts `redis-server` with `settings`; `None` (after a notice) when it
/// is not installed outside CI. Under CI it must be: `.ci/run` installs it
/// (scripts/redis-up).
fn own_redis(settings: &[&str]) -> Option<OwnRedis> {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let dir = std::env::temp_dir().join(format!("mrtr-guard-test-redis-{port}"));
    std::fs::create_dir_all(&dir).unwrap();
    let spawned = std::process::Command::new("redis-server")
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .args(["--save", "", "--appendonly", "no", "--dir"])
        .arg(&dir)
        .args(settings)
        .stdout(std::process::Stdio::null())
        .spawn();
    let child = match spawned {
        Ok(child) => child,
        Err(error) if std::env::var_os("CI").is_some() => {
            panic!("redis-server could not be started under CI: {error}")
        }
        Err(_) => {
            let _ = writeln!(
                std::io::stderr(),
                "notice: redis-server is not installed; skipping a test of its own \
                 (scripts/redis-up installs it)"
            );
            return None;
        }
    };
    let redis = OwnRedis { child, port, dir };
    for _ in 0..100 {
        let answered = redis::Client::open(redis.url())
            .and_then(|client| client.get_connection())
            .and_then(|mut conn| redis::cmd("PING").query::<String>(&mut conn));
        if answered.is_ok() {
            return Some(redis);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("redis-server on port {port} did not answer PING");
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The failure: under an eviction policy, a flood makes Redis drop
/// replay keys and a used state opens again. The guard refuses to start on
/// such a Redis, saying what to set, and the lazy guard refuses every token.
#[test]
fn a_redis_that_may_evict_is_refused_at_start_with_what_to_set() {
    for policy in ["allkeys-lru", "volatile-ttl"] {
        let Some(redis) = own_redis(&["--maxmemory-policy", policy]) else {
            return;
        };
        let error = runtime()
            .block_on(RedisReplayGuard::builder(redis.url()).connect())
            .unwrap_err();
        assert_eq!(error, RedisConfigError::Evicts(policy.to_owned()));
        let message = error.to_string();
        assert!(
            message.contains(&format!("maxmemory-policy is {policy}"))
                && message.contains("set maxmemory-policy noeviction"),
            "{message}"
        );

        // Built lazily, the first call finds out and fails closed.
        let lazy = Arc::new(guard(&redis.url(), &unique_prefix("evicts")));
        let codec = instance(Arc::clone(&lazy) as Arc<dyn ReplayGuard>);
        let refused = codec.open::<()>(&token(), &binding()).unwrap_err();
        let StateError::ReplayGuard(ReplayError::Unavailable(why)) = &refused else {
            panic!("expected a replay-guard failure, got {refused:?}");
        };
        assert!(why.contains("set maxmemory-policy noeviction"), "{why}");
        assert!(lazy.ping().is_err());

        // Opting out, in writing, starts.
        let opted_out = runtime().block_on(
            RedisReplayGuard::builder(redis.url())
                .allow_replay_if_redis_evicts()
                .connect(),
        );
        assert!(opted_out.is_ok(), "{opted_out:?}");
    }
}

/// The health check reads the policy again: a Redis reconfigured to evict
/// after start-up fails it.
#[test]
fn the_health_check_sees_a_policy_changed_after_start() {
    let Some(redis) = own_redis(&["--maxmemory-policy", "noeviction"]) else {
        return;
    };
    let runtime = runtime();
    let guard = runtime
        .block_on(RedisReplayGuard::builder(redis.url()).connect())
        .unwrap();
    assert_eq!(runtime.block_on(guard.health_check()), Ok(()));
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory-policy")
        .arg("allkeys-random")
        .query(&mut redis.admin())
        .unwrap();
    let failed = runtime.block_on(guard.health_check()).unwrap_err();
    assert!(
        failed
            .to_string()
            .contains("maxmemory-policy is allkeys-random"),
        "{failed}"
    );
    assert!(guard.ping().is_err());
}

/// With `noeviction` and a small `maxmemory`, a flood of fresh states gets
/// refusals (Redis answers `OOM`; the guard fails closed and says so), and
/// no state that was consumed ever opens again.
#[test]
fn a_full_noeviction_redis_refuses_and_no_used_state_opens_again() {
    let Some(redis) = own_redis(&["--maxmemory-policy", "noeviction"]) else {
        return;
    };
    // Room for a few thousand keys above what the empty server uses.
    let info: String = redis::cmd("INFO")
        .arg("memory")
        .query(&mut redis.admin())
        .unwrap();
    let used: u64 = info
        .lines()
        .find_map(|line| line.strip_prefix("used_memory:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory")
        .arg(used + 300_000)
        .query(&mut redis.admin())
        .unwrap();

    let runtime = runtime();
    let guard = runtime
        .block_on(
            RedisReplayGuard::builder(redis.url())
                .key_prefix(unique_prefix("oom"))
                .connect(),
        )
        .unwrap();
    let codec = instance(Arc::new(guard));
    let minter = minter();
    let (mut used_states, mut out_of_memory) = (Vec::new(), 0);
    for _ in 0..20_000 {
        let state = minter.start(&binding(), &StateContents::new(())).unwrap();
        match runtime.block_on(codec.open_async::<()>(&state, &binding())) {
            Ok(_) => used_states.push(state),
            Err(StateError::ReplayGuard(ReplayError::Unavailable(why))) => {
                assert!(why.starts_with("redis is out of memory"), "{why}");
                out_of_memory += 1;
                if out_of_memory == 200 {
                    break;
                }
            }
            Err(other) => panic!("{other:?}"),
        }
    }
    assert_eq!(out_of_memory, 200, "the flood filled redis");
    assert!(used_states.len() > 100, "{} states", used_states.len());
    for state in &used_states {
        assert!(
            runtime
                .block_on(codec.open_async::<()>(state, &binding()))
                .is_err(),
            "a used state opened again"
        );
        assert!(codec.open::<()>(state, &binding()).is_err());
    }
    // Memory freed: the used states are still replays, not fresh.
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory")
        .arg(0)
        .query(&mut redis.admin())
        .unwrap();
    for state in used_states.iter().take(50) {
        assert_eq!(
            codec.open::<()>(state, &binding()).err(),
            Some(StateError::Replayed)
        );
    }
}

/// `WAIT`: with no replica, a guard that wants one refuses (fails closed);
/// with a replica attached, it accepts, and the replica holds the key.
#[test]
fn wait_for_replicas_accepts_only_what_a_replica_holds() {
    let Some(primary) = own_redis(&["--repl-diskless-sync-delay", "0"]) else {
        return;
    };
    let prefix = unique_prefix("wait");
    let wanting = |replicas| {
        RedisReplayGuard::builder(primary.url())
            .key_prefix(prefix.as_str())
            .command_timeout(Duration::from_secs(2))
            .wait_for_replicas(replicas, Duration::from_millis(1000))
            .build()
            .unwrap()
    };
    let alone = instance(Arc::new(wanting(1)));
    let refused = alone.open::<()>(&token(), &binding()).unwrap_err();
    assert_eq!(
        refused,
        StateError::ReplayGuard(ReplayError::Unavailable(
            "fewer than 1 redis replicas acknowledged the entry in time".to_owned()
        ))
    );

    let port = primary.port.to_string();
    let Some(replica) = own_redis(&["--replicaof", "127.0.0.1", &port]) else {
        return;
    };
    let online = (0..200).any(|_| {
        let info: String = redis::cmd("INFO")
            .arg("replication")
            .query(&mut replica.admin())
            .unwrap();
        let synced = info.contains("master_link_status:up");
        if !synced {
            std::thread::sleep(Duration::from_millis(50));
        }
        synced
    });
    assert!(online, "the replica did not sync within 10 s");
    let guard = Arc::new(wanting(1));
    let codec = instance(Arc::clone(&guard) as Arc<dyn ReplayGuard>);
    let token = token();
    let claims = codec.open::<()>(&token, &binding()).unwrap();
    let exists: i64 = redis::cmd("EXISTS")
        .arg(guard.key(claims.flow_id(), claims.round()))
        .query(&mut replica.admin())
        .unwrap();
    assert_eq!(exists, 1, "the replica holds the key");
    assert_eq!(
        codec.open::<()>(&token, &binding()).err(),
        Some(StateError::Replayed)
    );
}

/// A principal's share on Redis: past it, refused with its own reason while
/// another principal's tokens open; a replay is still a replay.
#[test]
fn a_principal_is_held_to_its_share_on_redis() {
    let Some(url) = redis_url() else { return };
    let guard = Arc::new(
        RedisReplayGuard::builder(url.as_str())
            .key_prefix(unique_prefix("share"))
            .principal_share(3)
            .build()
            .unwrap(),
    );
    let codec = instance(Arc::clone(&guard) as Arc<dyn ReplayGuard>);
    let minter = minter();
    let mallory = Binding::new("mallory", Method::ToolsCall, "redeem_voucher", None);
    let states: Vec<String> = (0..5)
        .map(|_| minter.start(&mallory, &StateContents::new(())).unwrap())
        .collect();
    let results: Vec<_> = states
        .iter()
        .map(|state| codec.open::<()>(state, &mallory).err())
        .collect();
    assert_eq!(
        results,
        [
            None,
            None,
            None,
            Some(StateError::ReplayShareExceeded),
            Some(StateError::ReplayShareExceeded)
        ]
    );
    assert_eq!(
        codec.open::<()>(&states[0], &mallory).err(),
        Some(StateError::Replayed)
    );
    assert!(codec.open::<()>(&token(), &binding()).is_ok(), "ada opens");
    // The share set names the principal only by its key.
    let mut admin = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}*", guard.key_prefix()))
        .query(&mut admin)
        .unwrap();
    assert!(keys.iter().all(|key| !key.contains("mallory")), "{keys:?}");
    assert_eq!(
        keys.iter()
            .filter(|key| key.starts_with(&format!("{}share:", guard.key_prefix())))
            .count(),
        2,
        "{keys:?}"
    );
}

/// The async face on the caller's runtime: many concurrent opens of one
/// state on one multiplexed connection, exactly one wins.
#[test]
fn async_opens_race_on_one_connection_and_one_wins() {
    let Some(url) = redis_url() else { return };
    let runtime = runtime();
    let guard = runtime
        .block_on(
            RedisReplayGuard::builder(url.as_str())
                .key_prefix(unique_prefix("async"))
                .connect(),
        )
        .unwrap();
    let codec = Arc::new(instance(Arc::new(guard)));
    for _ in 0..20 {
        let token = Arc::new(token());
        let wins = runtime.block_on(async {
            let tasks: Vec<_> = (0..16)
                .map(|_| {
                    let (codec, token) = (Arc::clone(&codec), Arc::clone(&token));
                    tokio::spawn(async move { codec.open_async::<()>(&token, &binding()).await })
                })
                .collect();
            let mut wins = 0;
            for task in tasks {
                match task.await.unwrap() {
                    Ok(_) => wins += 1,
                    Err(error) => assert_eq!(error, StateError::Replayed),
                }
            }
            wins
        });
        assert_eq!(wins, 1);
    }
}

/// Concurrent calls share a batch (one pipeline): each gets its own key's
/// outcome, whatever the order in which they queued.
#[test]
fn calls_batched_together_each_get_their_own_outcome() {
    let Some(url) = redis_url() else { return };
    each_call_of_a_batch_gets_its_own_outcome(&url);
}

/// The same on the cluster, where a batch's keys are on every master.
#[test]
fn on_a_redis_cluster_calls_batched_together_each_get_their_own_outcome() {
    let Some(url) = setting(CLUSTER_URL_VAR) else {
        return;
    };
    let _alone = cluster_alone();
    each_call_of_a_batch_gets_its_own_outcome(&url);
}

fn each_call_of_a_batch_gets_its_own_outcome(url: &str) {
    let runtime = runtime();
    let guard = guard(url, &unique_prefix("batch"));
    let codec = Arc::new(instance(Arc::new(guard)));
    let tokens: Vec<Arc<String>> = (0..100).map(|_| Arc::new(token())).collect();
    let wins = runtime.block_on(async {
        // Each token twice, interleaved, all at once.
        let tasks: Vec<_> = tokens
            .iter()
            .chain(&tokens)
            .enumerate()
            .map(|(index, token)| {
                let (codec, token) = (Arc::clone(&codec), Arc::clone(token));
                let task = tokio::spawn(async move {
                    codec.open_async::<()>(&token, &binding()).await.map(|_| ())
                });
                (index % tokens.len(), task)
            })
            .collect();
        let mut wins = vec![0; tokens.len()];
        for (index, task) in tasks {
            match task.await.unwrap() {
                Ok(()) => wins[index] += 1,
                Err(error) => assert_eq!(error, StateError::Replayed),
            }
        }
        wins
    });
    assert!(wins.iter().all(|&won| won == 1), "{wins:?}");
}

/// A call dropped while its key waits for the next batch (its client hung
/// up): the key is not sent, the token is not used, and the next call is
/// not held up.
#[test]
fn a_call_dropped_before_its_batch_leaves_its_token_unused() {
    let Some(url) = redis_url() else { return };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let codec = instance(Arc::new(guard(&url, &unique_prefix("dropped"))));
    let token = token();
    let binding = binding();
    runtime.block_on(async {
        // One poll: the key is queued and the committer spawned, not run.
        let mut once = Box::pin(codec.open_async::<()>(&token, &binding));
        assert!(poll_once(once.as_mut()).await.is_pending());
        drop(once);
        let again = tokio::time::timeout(
            Duration::from_secs(5),
            codec.open_async::<()>(&token, &binding),
        );
        assert!(
            again.await.unwrap().is_ok(),
            "the dropped call used the token"
        );
        let replay = codec.open_async::<()>(&token, &binding).await;
        assert_eq!(replay.err(), Some(StateError::Replayed));
    });
}

/// Polls `future` once, in the caller's task: nothing else on a
/// current-thread runtime runs in between.
async fn poll_once<F: Future>(mut future: Pin<&mut F>) -> Poll<F::Output> {
    std::future::poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await
}

/// A runtime shut down while a call waits for its batch (before the
/// committer ever ran) strands nobody: the guard serves the next call, on
/// another runtime.
#[test]
fn a_runtime_shut_down_mid_call_does_not_stop_the_guard() {
    let Some(url) = redis_url() else { return };
    let codec = instance(Arc::new(guard(&url, &unique_prefix("shutdown"))));
    let first = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (dropped, binding) = (token(), binding());
    let mut pending = Box::pin(codec.open_async::<()>(&dropped, &binding));
    first.block_on(async { assert!(poll_once(pending.as_mut()).await.is_pending()) });
    drop(first);
    drop(pending);
    let second = runtime();
    let token = token();
    let opened = second.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(5),
            codec.open_async::<()>(&token, &binding),
        )
        .await
    });
    assert!(opened.expect("the guard is stuck").is_ok());
}

/// Against the local Redis Cluster (`scripts/redis-up --cluster`): found
/// from one node's URL, its policy checked on every master, single use
/// across instances, and the share key in its own slot.
#[test]
fn on_a_redis_cluster_a_token_opens_once_across_two_instances() {
    let Some(url) = setting(CLUSTER_URL_VAR) else {
        return;
    };
    let _alone = cluster_alone();
    let runtime = runtime();
    let prefix = unique_prefix("cluster");
    let connect = || {
        runtime
            .block_on(
                RedisReplayGuard::builder(url.as_str())
                    .key_prefix(prefix.as_str())
                    .principal_share(100)
                    .connect(),
            )
            .unwrap()
    };
    let a = instance(Arc::new(connect()));
    let b = instance(Arc::new(connect()));
    assert!(format!("{a:?}").contains("RedisReplayGuard"));
    // Enough tokens to land on every master.
    for _ in 0..30 {
        let token = token();
        assert!(
            runtime
                .block_on(a.open_async::<()>(&token, &binding()))
                .is_ok()
        );
        assert_eq!(
            runtime
                .block_on(b.open_async::<()>(&token, &binding()))
                .err(),
            Some(StateError::Replayed)
        );
        assert_eq!(
            b.open::<()>(&token, &binding()).err(),
            Some(StateError::Replayed)
        );
    }
    assert_eq!(runtime.block_on(connect().health_check()), Ok(()));
}

/// The cluster tests one at a time: one of them reconfigures a master.
fn cluster_alone() -> std::sync::MutexGuard<'static, ()> {
    static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ALONE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sets a cluster node's `maxmemory-policy` back when dropped.
struct PolicyBack(redis::Connection);

impl Drop for PolicyBack {
    fn drop(&mut self) {
        let _: Result<(), _> = redis::cmd("CONFIG")
            .arg("SET")
            .arg("maxmemory-policy")
            .arg("noeviction")
            .query(&mut self.0);
    }
}

/// The policy is read on every master: one evicting master of three, not
/// the one the URL names, stops the guard.
#[test]
fn on_a_redis_cluster_one_evicting_master_is_refused() {
    let Some(url) = setting(CLUSTER_URL_VAR) else {
        return;
    };
    let _alone = cluster_alone();
    let mut seed = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let nodes: String = redis::cmd("CLUSTER").arg("NODES").query(&mut seed).unwrap();
    let other = nodes
        .lines()
        .find(|line| line.contains("master") && !line.contains("myself"))
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|address| address.split('@').next())
        .unwrap()
        .to_owned();
    let mut node = redis::Client::open(format!("redis://{other}/"))
        .unwrap()
        .get_connection()
        .unwrap();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory-policy")
        .arg("allkeys-lfu")
        .query(&mut node)
        .unwrap();
    let _back = PolicyBack(node);
    let refused = runtime()
        .block_on(RedisReplayGuard::builder(url.as_str()).connect())
        .unwrap_err();
    assert_eq!(refused, RedisConfigError::Evicts("allkeys-lfu".to_owned()));
}

/// A Redis Cluster over TLS only (`scripts/redis-up --cluster --tls`): every
/// node verified against the test CA, single use across instances.
#[test]
fn on_a_tls_redis_cluster_a_token_opens_once_across_two_instances() {
    let Some(url) = setting(CLUSTER_TLS_URL_VAR) else {
        return;
    };
    let ca = std::fs::read(setting(CLUSTER_TLS_CA_VAR).unwrap()).unwrap();
    assert!(url.starts_with("rediss://"), "{url}");
    let runtime = runtime();
    let prefix = unique_prefix("cluster-tls");
    let connect = || {
        runtime
            .block_on(
                RedisReplayGuard::builder(url.as_str())
                    .key_prefix(prefix.as_str())
                    .ca_certificate_pem(ca.clone())
                    .connect(),
            )
            .unwrap()
    };
    let a = instance(Arc::new(connect()));
    let b = instance(Arc::new(connect()));
    for _ in 0..30 {
        let token = token();
        assert!(
            runtime
                .block_on(a.open_async::<()>(&token, &binding()))
                .is_ok()
        );
        assert_eq!(
            b.open::<()>(&token, &binding()).err(),
            Some(StateError::Replayed)
        );
    }
    // A CA that did not sign the nodes' certificates: refused at start.
    let untrusted = runtime.block_on(
        RedisReplayGuard::builder(url.as_str())
            .ca_certificate_pem(OTHER_CA)
            .connect(),
    );
    assert_eq!(
        untrusted.err(),
        Some(RedisConfigError::Unavailable(ReplayError::Unavailable(
            "redis' tls certificate was not accepted".to_owned()
        )))
    );
}
