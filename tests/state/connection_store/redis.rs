//! The contract on [`RedisConnectionStore`] (the server
//! `replay::redis::support` names; skipped when unset outside CI), then
//! what only Redis has: its keys hold no principal and no value in clear,
//! and an unreachable Redis fails closed.

#![allow(
    clippy::unwrap_used,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mrtr_guard::connect::{ConnectionStore, ConnectionStoreError};
use mrtr_guard::redis::RedisConnectionStore;
use mrtr_guard::state::PrincipalKey;

use crate::replay::redis::support::redis_url;

fn prefix(test: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("mrtr-guard-test:{}-{nanos}:{test}", std::process::id())
}

#[test]
fn the_redis_store_keeps_the_contract() {
    let Some(url) = redis_url() else {
        return;
    };
    let store = RedisConnectionStore::builder(url)
        .key_prefix(prefix("contract"))
        .build()
        .unwrap();
    super::contract::all(&store);
}

/// Two stores (two instances) on one Redis and prefix see one connection.
#[test]
fn two_instances_share_their_connections() {
    let Some(url) = redis_url() else {
        return;
    };
    let prefix = prefix("shared");
    let one = RedisConnectionStore::builder(url.as_str())
        .key_prefix(prefix.as_str())
        .build()
        .unwrap();
    let two = RedisConnectionStore::builder(url)
        .key_prefix(prefix.as_str())
        .build()
        .unwrap();
    let owner = PrincipalKey::from_bytes([7; 16]);
    let now = time::OffsetDateTime::now_utc();
    one.put(
        owner,
        "contacts",
        b"sealed".to_vec(),
        now + time::Duration::minutes(1),
    )
    .unwrap();
    assert_eq!(
        two.find(owner, "contacts", now).unwrap(),
        Some(b"sealed".to_vec())
    );
    assert!(
        one.connection_key(owner, "contacts")
            .starts_with(&format!("{prefix}:connection:"))
    );
}

#[test]
fn an_unreachable_redis_fails_closed() {
    let store = RedisConnectionStore::builder("redis://127.0.0.1:1/")
        .connect_timeout(Duration::from_millis(100))
        .command_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let owner = PrincipalKey::from_bytes([7; 16]);
    let now = time::OffsetDateTime::now_utc();
    assert!(matches!(
        store.find(owner, "x", now),
        Err(ConnectionStoreError::Unavailable(_))
    ));
    assert!(matches!(
        store.put(owner, "x", b"y".to_vec(), now + time::Duration::minutes(1)),
        Err(ConnectionStoreError::Unavailable(_))
    ));
}
