//! Redis must not evict: a Redis that may is refused at start and by the health
//! check, and a full `noeviction` Redis refuses rather than forgets.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Arc;

use mrtr_guard::redis::RedisConfigError;
use mrtr_guard::state::ReplayError;
use mrtr_guard::{RedisReplayGuard, ReplayGuard, StateContents, StateError};

use crate::replay::redis::support::{
    binding, guard, instance, own_redis, runtime, token, unique_prefix,
};

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
        let refused = codec.open::<()>(&token(&codec), &binding()).unwrap_err();
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
    let (mut used_states, mut out_of_memory) = (Vec::new(), 0);
    for _ in 0..20_000 {
        let state = codec.start(&binding(), &StateContents::new(())).unwrap();
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
