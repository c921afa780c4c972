//! The guard's scripts go to Redis by their SHA1 (`EVALSHA`); a node that
//! lacks them (restarted, failed over to, `SCRIPT FLUSH`ed) gets the text
//! once, and each consume still runs exactly once.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Arc;
use std::time::Duration;

use mrtr_guard::{RedisReplayGuard, ReplayGuard, StateError};

use crate::replay::redis::support::{
    OwnRedis, binding, instance, own_redis, own_replica, token, unique_prefix,
};

/// How many calls of `command` (`eval`, `evalsha`) Redis counted since its
/// last `CONFIG RESETSTAT`.
pub(crate) fn calls(redis: &OwnRedis, command: &str) -> u64 {
    let stats: String = redis::cmd("INFO")
        .arg("commandstats")
        .query(&mut redis.admin())
        .unwrap();
    stats
        .lines()
        .find_map(|line| line.strip_prefix(&format!("cmdstat_{command}:calls=")))
        .and_then(|rest| rest.split(',').next())
        .map_or(0, |calls| calls.parse().unwrap())
}

/// Empties the node's script cache and its command counts.
pub(crate) fn flush_scripts(redis: &OwnRedis) {
    let mut admin = redis.admin();
    redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query::<()>(&mut admin)
        .unwrap();
    redis::cmd("CONFIG")
        .arg("RESETSTAT")
        .query::<()>(&mut admin)
        .unwrap();
}

/// How often the guards here look at Redis: a look surely comes after the
/// flush.
const LOOK: Duration = Duration::from_millis(100);

/// A guard's consumes, with a principal's share (a second script), on a
/// node whose script cache was emptied between two of them: every state
/// opens once, replays are refused, and each script's text went at most
/// once after the flush (the consume, the share, and the watcher's
/// generation read, which reads all 256 groups' records in one pipeline
/// if a look comes after the flush).
fn consumes_once_across_a_flush(redis: &OwnRedis, guard: RedisReplayGuard) {
    let codec = instance(Arc::new(guard) as Arc<dyn ReplayGuard>);
    let before = token(&codec);
    codec.open::<()>(&before, &binding()).unwrap();
    flush_scripts(redis);
    let after: Vec<String> = (0..8).map(|_| token(&codec)).collect();
    for state in &after {
        codec.open::<()>(state, &binding()).unwrap();
    }
    // A look of the watcher after the flush, reading every group's record.
    std::thread::sleep(LOOK.saturating_mul(3));
    for state in after.iter().chain([&before]) {
        assert_eq!(
            codec.open::<()>(state, &binding()).unwrap_err(),
            StateError::Replayed
        );
    }
    let texts = calls(redis, "eval");
    assert!(texts >= 1, "the flushed node was sent a script's text");
    assert!(
        texts <= 3,
        "{texts} texts: a script's text went again after the node had it"
    );
    assert!(calls(redis, "evalsha") >= 16);
}

#[test]
fn a_node_without_the_scripts_gets_their_text_once() {
    let Some(redis) = own_redis(&[]) else { return };
    let guard = RedisReplayGuard::builder(redis.url())
        .key_prefix(unique_prefix("scripts").as_str())
        .principal_share(64)
        .watch_interval(LOOK)
        .build()
        .unwrap();
    consumes_once_across_a_flush(&redis, guard);
}

/// The same through `WAIT`'s pipeline: the consumes that found no script
/// go again, with the `WAIT` after them.
#[test]
fn a_node_without_the_scripts_gets_their_text_once_under_wait() {
    let Some(primary) = own_redis(&["--repl-diskless-sync-delay", "0"]) else {
        return;
    };
    let Some(_replica) = own_replica(&primary) else {
        return;
    };
    let guard = RedisReplayGuard::builder(primary.url())
        .key_prefix(unique_prefix("scripts-wait").as_str())
        .principal_share(64)
        .command_timeout(Duration::from_secs(3))
        .wait_for_replicas(1, Duration::from_millis(1000))
        .watch_interval(LOOK)
        .build()
        .unwrap();
    consumes_once_across_a_flush(&primary, guard);
}
