//! A token opens once across instances on one Redis: races, clocks that differ,
//! what a key holds and how long it lives.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::sync::{Arc, Barrier};
use std::time::Duration;

use mrtr_guard::state::ReplayError;
use mrtr_guard::{RedisReplayGuard, ReplayGuard, StateContents, StateError};
use serde_json::Value;

use crate::replay::redis::support::{
    binding, guard, instance, minter, redis_url, runtime, token, token_use, unique_prefix,
};

#[test]
fn a_token_opens_once_across_two_instances() {
    let Some(url) = redis_url() else { return };
    let prefix = unique_prefix("instances");
    let a = instance(Arc::new(guard(&url, &prefix)));
    let b = instance(Arc::new(guard(&url, &prefix)));
    let token = token(&a);

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
    let round_two = a
        .next(&binding(), &claims, &StateContents::new(()))
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
        let token = Arc::new(token(&instance(Arc::new(guard(&url, &prefix)))));
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
    let token = token(&a);
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
fn entries_live_until_expiry_plus_skew() {
    let Some(url) = redis_url() else { return };
    let prefix = unique_prefix("pttl");
    let guard = Arc::new(guard(&url, &prefix));
    assert_eq!(guard.ping(), Ok(()));
    let codec = instance(Arc::clone(&guard) as Arc<dyn ReplayGuard>);
    let token = token(&codec);
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
    let codec_token = token(&minter());
    let minter = minter();
    let claims = minter.open::<()>(&codec_token, &binding()).unwrap();
    let now = time::OffsetDateTime::now_utc();
    // Expiry already reached: PX is clamped to 1 ms instead of erroring.
    assert_eq!(
        guard.consume(token_use(&guard, claims.flow_id(), 1, now, now), now),
        Ok(())
    );
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(
        guard.consume(token_use(&guard, claims.flow_id(), 1, now, now), now),
        Ok(())
    );
    let later = now + time::Duration::minutes(1);
    assert_eq!(
        guard.consume(token_use(&guard, claims.flow_id(), 2, later, now), now),
        Ok(())
    );
    assert_eq!(
        guard.consume(token_use(&guard, claims.flow_id(), 2, later, now), now),
        Err(ReplayError::Replayed)
    );
}

/// The async face on the caller's runtime: many concurrent opens of one
/// state on one multiplexed connection, exactly one wins.
#[test]
fn async_opens_race_on_one_connection_and_one_wins() {
    let Some(url) = redis_url() else { return };
    let runtime = runtime();
    let guard = runtime
        .block_on(
            RedisReplayGuard::builder(url.as_str())
                .key_prefix(unique_prefix("async"))
                .connect(),
        )
        .unwrap();
    let codec = Arc::new(instance(Arc::new(guard)));
    for _ in 0..20 {
        let token = Arc::new(token(&codec));
        let wins = runtime.block_on(async {
            let tasks: Vec<_> = (0..16)
                .map(|_| {
                    let (codec, token) = (Arc::clone(&codec), Arc::clone(&token));
                    tokio::spawn(async move { codec.open_async::<()>(&token, &binding()).await })
                })
                .collect();
            let mut wins = 0;
            for task in tasks {
                match task.await.unwrap() {
                    Ok(_) => wins += 1,
                    Err(error) => assert_eq!(error, StateError::Replayed),
                }
            }
            wins
        });
        assert_eq!(wins, 1);
    }
}
