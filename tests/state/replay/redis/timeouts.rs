//! A Redis that does not answer: each call refused within one timeout, whatever
//! the phase, and none waiting behind a stalled batch for two.

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
use mrtr_guard::{RedisReplayGuard, StateCodec, StateError};

use crate::replay::redis::support::{binding, instance, runtime, token};

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
    // Minted first: a guard that never read its generation looks once,
    // up to the timeouts, before its first mint.
    let tokens = [token(&codec), token(&codec)];
    let late = runtime.block_on(async {
        let timed = |codec: Arc<StateCodec>, token: String| async move {
            let started = std::time::Instant::now();
            let opened = codec.open_async::<()>(&token, &binding()).await;
            (opened.err(), started.elapsed())
        };
        let [first_token, late_token] = tokens;
        let first = tokio::spawn(timed(Arc::clone(&codec), first_token));
        // Queued while the first call's batch waits on Redis.
        tokio::time::sleep(timeout / 2).await;
        let late = tokio::spawn(timed(Arc::clone(&codec), late_token));
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
