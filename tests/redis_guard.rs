//! The Redis replay guard against a real `redis-server` (feature `redis`).
//!
//! The server's URL comes from `MRTR_GUARD_REDIS_URL` (`.ci/run` starts one
//! with `scripts/redis-up`). Without it the tests fail when `CI` is set and
//! are skipped, with a notice, otherwise.

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

use mrtr_guard::{
    Binding, Contents, MasterKey, Method, RedisReplayGuard, ReplayError, ReplayGuard, StateCodec,
    StateError,
};
use serde_json::Value;

const URL_VAR: &str = "MRTR_GUARD_REDIS_URL";

/// The test server's URL, or `None` (after a notice) when it is not set
/// outside CI.
fn redis_url() -> Option<String> {
    match std::env::var(URL_VAR) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os("CI").is_some() => panic!(
            "{URL_VAR} is not set: CI must start a redis-server (scripts/redis-up) \
             and export its URL before the tests"
        ),
        _ => {
            // Written to the process' stderr, past the test harness' capture,
            // so that the skip shows in a passing run.
            static NOTICE: Once = Once::new();
            NOTICE.call_once(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "notice: {URL_VAR} is not set; skipping the Redis replay-guard tests \
                     (start a server with `scripts/redis-up DIR` and export its URL)"
                );
            });
            None
        }
    }
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
            .max_idle(1)
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
