//! A guard never vouches for what Redis lost: a policy switched to evict
//! while it serves, a server restarted without persistence, a cluster
//! master restarted. After each, no state consumed before opens again, and
//! new states work. Each test starts its own servers (`scripts/redis-up`),
//! and runs when the shared servers' variables are set (as the other tests).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Arc;
use std::time::Duration;

use mrtr_guard::state::ReplayError;
use mrtr_guard::{MasterKey, RedisReplayGuard, StateCodec, StateContents, StateError};

#[cfg(feature = "tracing")]
use crate::replay::redis::events;
use crate::replay::redis::scripted::Scripted;
use crate::replay::redis::support::{
    CLUSTER_URL_VAR, URL_VAR, binding, runtime, setting, unique_prefix,
};

/// How many states each test consumes before the loss.
const STATES: usize = 60;
/// The watchers' interval in these tests.
const WATCH: Duration = Duration::from_millis(100);

/// An instance with the default policy: the rule has no clock in it, so
/// the skew (60 s) plays no part after a loss.
fn codec(guard: RedisReplayGuard) -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .replay_guard(Arc::new(guard))
    .build()
    .unwrap()
}

fn connect(url: &str, watch: Duration, runtime: &tokio::runtime::Runtime) -> RedisReplayGuard {
    runtime
        .block_on(
            RedisReplayGuard::builder(url)
                .key_prefix(unique_prefix("losses"))
                .watch_interval(watch)
                .connect(),
        )
        .unwrap()
}

/// `STATES` states, each consumed once (half on each face of the guard).
fn consumed(codec: &StateCodec, runtime: &tokio::runtime::Runtime) -> Vec<String> {
    (0..STATES)
        .map(|n| {
            let state = codec.start(&binding(), &StateContents::new(())).unwrap();
            if n % 2 == 0 {
                codec.open::<()>(&state, &binding()).unwrap();
            } else {
                runtime
                    .block_on(codec.open_async::<()>(&state, &binding()))
                    .unwrap();
            }
            state
        })
        .collect()
}

/// How many of `states` open again (on either face).
fn reopened(codec: &StateCodec, runtime: &tokio::runtime::Runtime, states: &[String]) -> usize {
    states
        .iter()
        .enumerate()
        .filter(|(n, state)| {
            if n % 2 == 0 {
                codec.open::<()>(state, &binding()).is_ok()
            } else {
                runtime
                    .block_on(codec.open_async::<()>(state, &binding()))
                    .is_ok()
            }
        })
        .count()
}

/// Once the guard has moved to the new generation (within a watch
/// interval), a new flow's two rounds each open once.
fn new_flow_completes(codec: &StateCodec, runtime: &tokio::runtime::Runtime) {
    std::thread::sleep(WATCH * 3);
    let first = codec.start(&binding(), &StateContents::new(())).unwrap();
    let claims = codec.open::<()>(&first, &binding()).unwrap();
    assert_eq!(
        codec.open::<()>(&first, &binding()).err(),
        Some(StateError::Replayed)
    );
    let second = codec
        .next(&binding(), &claims, &StateContents::new(()))
        .unwrap();
    runtime
        .block_on(codec.open_async::<()>(&second, &binding()))
        .unwrap();
    assert_eq!(
        codec.open::<()>(&second, &binding()).err(),
        Some(StateError::Replayed)
    );
}

fn config_set(url: &str, name: &str, value: &str) {
    let mut admin = redis::Client::open(url).unwrap().get_connection().unwrap();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg(name)
        .arg(value)
        .query(&mut admin)
        .unwrap();
}

/// The attack: `allkeys-lru` switched on while the guard serves,
/// then a flood that makes Redis evict every replay key. While the policy
/// evicts, every state is refused, naming the setting; once it is back, no
/// state consumed before opens again, and new flows complete.
#[test]
fn a_policy_switched_to_evict_refuses_and_then_vouches_for_nothing_lost() {
    if setting(URL_VAR).is_none() {
        return;
    }
    #[cfg(feature = "tracing")]
    events::listen();
    let redis = Scripted::up(false);
    let runtime = runtime();
    let guard = connect(redis.url(), WATCH, &runtime);
    let prefix = guard.key_prefix().to_owned();
    let codec = codec(guard);
    let states = consumed(&codec, &runtime);

    config_set(redis.url(), "maxmemory-policy", "allkeys-lru");
    std::thread::sleep(WATCH * 3);
    let fresh = codec.start(&binding(), &StateContents::new(())).unwrap();
    for refused in [
        codec.open::<()>(&fresh, &binding()).unwrap_err(),
        runtime
            .block_on(codec.open_async::<()>(&fresh, &binding()))
            .unwrap_err(),
    ] {
        let StateError::ReplayGuard(ReplayError::Unavailable(why)) = &refused else {
            panic!("expected the eviction refusal, got {refused:?}");
        };
        assert!(
            why.contains("maxmemory-policy is allkeys-lru")
                && why.contains("set maxmemory-policy noeviction"),
            "{why}"
        );
    }

    // The flood: Redis evicts until none of the guard's keys is left.
    let mut admin = redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap();
    let info: String = redis::cmd("INFO").arg("memory").query(&mut admin).unwrap();
    let used: u64 = info
        .lines()
        .find_map(|line| line.strip_prefix("used_memory:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    config_set(redis.url(), "maxmemory", &(used + 200_000).to_string());
    let filler = "x".repeat(1024);
    let mut left = usize::MAX;
    for round in 0..100 {
        for n in 0..500 {
            let _: () = redis::cmd("SET")
                .arg(format!("filler:{round}:{n}"))
                .arg(&filler)
                .query(&mut admin)
                .unwrap();
        }
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{prefix}:*"))
            .query(&mut admin)
            .unwrap();
        left = keys.len();
        if left == 0 {
            break;
        }
    }
    assert_eq!(left, 0, "redis evicted every replay key");
    config_set(redis.url(), "maxmemory", "0");
    config_set(redis.url(), "maxmemory-policy", "noeviction");
    std::thread::sleep(WATCH * 3);

    assert_eq!(reopened(&codec, &runtime, &states), 0, "of {STATES}");
    new_flow_completes(&codec, &runtime);
    #[cfg(feature = "tracing")]
    for event in ["replay_guard_evicting", "replay_guard_lost"] {
        assert!(events::emitted(event, redis.server()), "{event}");
    }
}

/// A `redis-server` restarted without persistence forgets every key; the
/// guard's connection closes, and the call that reconnects sees the new
/// `run_id` before it is answered (the watcher, an hour apart, plays no
/// part): no state consumed before opens again.
#[test]
fn a_restarted_redis_reopens_nothing_consumed_before() {
    if setting(URL_VAR).is_none() {
        return;
    }
    #[cfg(feature = "tracing")]
    events::listen();
    let redis = Scripted::up(false);
    let runtime = runtime();
    let codec = codec(connect(redis.url(), Duration::from_secs(3600), &runtime));
    let states = consumed(&codec, &runtime);

    redis.restart(0);
    assert_eq!(reopened(&codec, &runtime, &states), 0, "of {STATES}");
    new_flow_completes(&codec, &runtime);
    #[cfg(feature = "tracing")]
    assert!(events::emitted("replay_guard_lost", redis.server()));
}

/// One master of a three-master cluster restarted without persistence
/// rejoins empty. The cluster client reconnects on its own, so the guard
/// sees the new `run_id` within its watch interval: after it, no state
/// consumed before opens again, on any master.
#[test]
fn a_restarted_cluster_master_reopens_nothing_consumed_before() {
    if setting(CLUSTER_URL_VAR).is_none() {
        return;
    }
    let cluster = Scripted::up(true);
    let runtime = runtime();
    let codec = codec(connect(cluster.url(), WATCH, &runtime));
    let states = consumed(&codec, &runtime);
    let mut admin = redis::Client::open(cluster.node_url(1))
        .unwrap()
        .get_connection()
        .unwrap();
    let held: u64 = redis::cmd("DBSIZE").query(&mut admin).unwrap();
    assert!(held > 0, "the restarted master held some of the keys");

    cluster.restart(1);
    std::thread::sleep(WATCH * 5);
    assert_eq!(reopened(&codec, &runtime, &states), 0, "of {STATES}");
    // The async face's cluster connection last sent a key before the
    // restart (the refusals above sent none): its first keys for the
    // restarted master may fail closed (MOVED), after which the guard
    // reconnects. Fresh states, some on each master, settle it: at least
    // 20, until every master has served one in a row (within 5 s).
    let settling = std::time::Instant::now();
    let mut served_in_a_row = 0;
    for tried in 0.. {
        let settle = codec.start(&binding(), &StateContents::new(())).unwrap();
        match runtime.block_on(codec.open_async::<()>(&settle, &binding())) {
            Ok(_) => served_in_a_row += 1,
            Err(_) => served_in_a_row = 0,
        }
        if tried >= 20 && served_in_a_row >= 20 {
            break;
        }
        assert!(
            settling.elapsed() < Duration::from_secs(5),
            "the guard did not settle after the restart"
        );
    }
    new_flow_completes(&codec, &runtime);
}
