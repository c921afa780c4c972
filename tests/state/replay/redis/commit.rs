//! The group commit: calls batched together each get their own outcome (one
//! node and a cluster), a dropped call or a stopped runtime strands nobody.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use mrtr_guard::StateError;

use crate::replay::redis::support::{
    CLUSTER_URL_VAR, binding, cluster_alone, guard, instance, redis_url, runtime, setting, token,
    unique_prefix,
};

/// Concurrent calls share a batch (one pipeline): each gets its own key's
/// outcome, whatever the order in which they queued.
#[test]
fn calls_batched_together_each_get_their_own_outcome() {
    let Some(url) = redis_url() else { return };
    each_call_of_a_batch_gets_its_own_outcome(&url);
}

/// The same on the cluster, where a batch's keys are on every master.
#[test]
fn on_a_redis_cluster_calls_batched_together_each_get_their_own_outcome() {
    let Some(url) = setting(CLUSTER_URL_VAR) else {
        return;
    };
    let _alone = cluster_alone();
    each_call_of_a_batch_gets_its_own_outcome(&url);
}

fn each_call_of_a_batch_gets_its_own_outcome(url: &str) {
    let runtime = runtime();
    let guard = guard(url, &unique_prefix("batch"));
    let codec = Arc::new(instance(Arc::new(guard)));
    let tokens: Vec<Arc<String>> = (0..100).map(|_| Arc::new(token(&codec))).collect();
    let wins = runtime.block_on(async {
        // Each token twice, interleaved, all at once.
        let tasks: Vec<_> = tokens
            .iter()
            .chain(&tokens)
            .enumerate()
            .map(|(index, token)| {
                let (codec, token) = (Arc::clone(&codec), Arc::clone(token));
                let task = tokio::spawn(async move {
                    codec.open_async::<()>(&token, &binding()).await.map(|_| ())
                });
                (index % tokens.len(), task)
            })
            .collect();
        let mut wins = vec![0; tokens.len()];
        for (index, task) in tasks {
            match task.await.unwrap() {
                Ok(()) => wins[index] += 1,
                Err(error) => assert_eq!(error, StateError::Replayed),
            }
        }
        wins
    });
    assert!(wins.iter().all(|&won| won == 1), "{wins:?}");
}

/// A call dropped while its key waits for the next batch (its client hung
/// up): the key is not sent, the token is not used, and the next call is
/// not held up.
#[test]
fn a_call_dropped_before_its_batch_leaves_its_token_unused() {
    let Some(url) = redis_url() else { return };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let codec = instance(Arc::new(guard(&url, &unique_prefix("dropped"))));
    let token = token(&codec);
    let binding = binding();
    runtime.block_on(async {
        // One poll: the key is queued and the committer spawned, not run.
        let mut once = Box::pin(codec.open_async::<()>(&token, &binding));
        assert!(poll_once(once.as_mut()).await.is_pending());
        drop(once);
        let again = tokio::time::timeout(
            Duration::from_secs(5),
            codec.open_async::<()>(&token, &binding),
        );
        assert!(
            again.await.unwrap().is_ok(),
            "the dropped call used the token"
        );
        let replay = codec.open_async::<()>(&token, &binding).await;
        assert_eq!(replay.err(), Some(StateError::Replayed));
    });
}

/// Polls `future` once, in the caller's task: nothing else on a
/// current-thread runtime runs in between.
async fn poll_once<F: Future>(mut future: Pin<&mut F>) -> Poll<F::Output> {
    std::future::poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await
}

/// A runtime shut down while a call waits for its batch (before the
/// committer ever ran) strands nobody: the guard serves the next call, on
/// another runtime.
#[test]
fn a_runtime_shut_down_mid_call_does_not_stop_the_guard() {
    let Some(url) = redis_url() else { return };
    let codec = instance(Arc::new(guard(&url, &unique_prefix("shutdown"))));
    let first = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (dropped, binding) = (token(&codec), binding());
    let mut pending = Box::pin(codec.open_async::<()>(&dropped, &binding));
    first.block_on(async { assert!(poll_once(pending.as_mut()).await.is_pending()) });
    drop(first);
    drop(pending);
    let second = runtime();
    let token = token(&codec);
    let opened = second.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(5),
            codec.open_async::<()>(&token, &binding),
        )
        .await
    });
    assert!(opened.expect("the guard is stuck").is_ok());
}
