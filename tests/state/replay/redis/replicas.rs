//! `wait_for_replicas`: a token accepted only once a replica holds its key.

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
use std::time::Duration;

use mrtr_guard::state::ReplayError;
use mrtr_guard::{RedisReplayGuard, ReplayGuard, StateError};

use crate::replay::redis::support::{
    binding, instance, own_redis, own_replica, token, unique_prefix,
};

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
    let refused = alone.open::<()>(&token(&alone), &binding()).unwrap_err();
    assert_eq!(
        refused,
        StateError::ReplayGuard(ReplayError::Unavailable(
            "fewer than 1 redis replicas acknowledged the entry in time".to_owned()
        ))
    );

    let Some(replica) = own_replica(&primary) else {
        return;
    };
    let guard = Arc::new(wanting(1));
    let codec = instance(Arc::clone(&guard) as Arc<dyn ReplayGuard>);
    let token = token(&codec);
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
