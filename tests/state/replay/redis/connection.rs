//! Connecting: credentials and database from the URL, a dropped connection
//! replaced, an unreachable or failing Redis refused without naming secrets.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use mrtr_guard::state::ReplayError;
use mrtr_guard::{RedisReplayGuard, ReplayGuard, StateError};

use crate::replay::redis::support::{
    binding, guard, instance, minter, redis_url, token, token_use, unique_prefix, with_db,
};

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
    let token = token(&codec);

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
    let flow = minter()
        .open::<()>(&token(&minter()), &binding())
        .unwrap()
        .flow_id();
    let now = time::OffsetDateTime::now_utc();
    let later = now + time::Duration::minutes(1);
    assert_eq!(
        guard.consume(token_use(&guard, flow, 1, later, now), now),
        Ok(())
    );
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
fn a_server_error_fails_closed() {
    let Some(url) = redis_url() else { return };
    // A database index the server does not have: its handshake (SELECT) fails.
    let guard = guard(&with_db(&url, 9999), &unique_prefix("db"));
    let codec = instance(Arc::new(guard));
    let error = codec.open::<()>(&token(&codec), &binding()).unwrap_err();
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
    let token = token(&codec);
    assert_eq!(codec.open::<()>(&token, &binding()).err(), None);
    assert_eq!(
        codec.open::<()>(&token, &binding()).err(),
        Some(StateError::Replayed)
    );
}
