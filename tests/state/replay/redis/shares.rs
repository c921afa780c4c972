//! A principal's share on Redis.

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

use mrtr_guard::{Binding, Method, RedisReplayGuard, ReplayGuard, StateContents, StateError};

use crate::replay::redis::support::{binding, instance, redis_url, token, unique_prefix};

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
    let mallory = Binding::new("mallory", Method::ToolsCall, "redeem_voucher", None);
    let states: Vec<String> = (0..5)
        .map(|_| codec.start(&mallory, &StateContents::new(())).unwrap())
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
    assert!(
        codec.open::<()>(&token(&codec), &binding()).is_ok(),
        "ada opens"
    );
    // The share set names the principal only by its key.
    let mut admin = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}:*", guard.key_prefix()))
        .query(&mut admin)
        .unwrap();
    assert!(keys.iter().all(|key| !key.contains("mallory")), "{keys:?}");
    assert_eq!(
        keys.iter()
            .filter(|key| key.starts_with(&format!("{}:replay:share:", guard.key_prefix())))
            .count(),
        2,
        "{keys:?}"
    );
}
