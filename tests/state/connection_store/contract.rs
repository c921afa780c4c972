//! What every [`ConnectionStore`] guarantees: one sealed connection per
//! (owner, name), replaced by a later `put`, found by that owner and name
//! only, gone once removed or expired.

#![allow(
    clippy::unwrap_used,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use mrtr_guard::connect::ConnectionStore;
use mrtr_guard::state::PrincipalKey;
use time::{Duration, OffsetDateTime};

fn alice() -> PrincipalKey {
    PrincipalKey::from_bytes([1; 16])
}

fn bob() -> PrincipalKey {
    PrincipalKey::from_bytes([2; 16])
}

/// Runs every rule on `store`.
pub(super) fn all(store: &dyn ConnectionStore) {
    one_per_owner_and_name(store);
    removed_is_gone(store);
    expires(store);
}

fn one_per_owner_and_name(store: &dyn ConnectionStore) {
    let now = OffsetDateTime::now_utc();
    let later = now + Duration::minutes(5);
    store.put(alice(), "api", b"first".to_vec(), later).unwrap();
    store
        .put(alice(), "api", b"second".to_vec(), later)
        .unwrap();
    store
        .put(alice(), "other", b"other".to_vec(), later)
        .unwrap();
    assert_eq!(
        store.find(alice(), "api", now).unwrap(),
        Some(b"second".to_vec())
    );
    assert_eq!(
        store.find(alice(), "other", now).unwrap(),
        Some(b"other".to_vec())
    );
    assert_eq!(
        store.find(bob(), "api", now).unwrap(),
        None,
        "another owner"
    );
    assert_eq!(
        store.find(alice(), "ap", now).unwrap(),
        None,
        "another name"
    );
    assert_eq!(
        store.find(alice(), "api:x", now).unwrap(),
        None,
        "another name"
    );
}

fn removed_is_gone(store: &dyn ConnectionStore) {
    let now = OffsetDateTime::now_utc();
    store
        .put(bob(), "gone", b"x".to_vec(), now + Duration::minutes(5))
        .unwrap();
    store.remove(bob(), "gone").unwrap();
    assert_eq!(store.find(bob(), "gone", now).unwrap(), None);
    store.remove(bob(), "never").unwrap();
}

fn expires(store: &dyn ConnectionStore) {
    let now = OffsetDateTime::now_utc();
    store
        .put(
            alice(),
            "short",
            b"x".to_vec(),
            now + Duration::milliseconds(600),
        )
        .unwrap();
    assert!(store.find(alice(), "short", now).unwrap().is_some());
    std::thread::sleep(std::time::Duration::from_millis(900));
    let later = OffsetDateTime::now_utc();
    assert_eq!(store.find(alice(), "short", later).unwrap(), None);
}
