//! An async host opens a call with `Flow::open_async`: the replay guard's
//! async face is awaited in place; a guard that can only block hands the
//! call back (`Opening::Blocking`) for the host's blocking pool, where
//! `Flow::open` verifies and consumes it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

use mrtr_guard::runtime::{Opened, Opening};
use mrtr_guard::state::{FlowId, Generation, ReplayError, TokenUse};
use mrtr_guard::{Field, Flow, Form, MemoryReplayGuard, ReplayGuard, Round, RpcError, Stop};
use mrtr_guard_test_support::{Harness, accept, asked, harness, harness_with, req};
use serde_json::json;
use time::OffsetDateTime;

static SHIP: LazyLock<Form> = LazyLock::new(|| {
    Form::builder("Where should we ship it?")
        .field(Field::string("trackingNumber").required())
        .build()
        .unwrap()
});

/// A guard without an async face (what a store reached over blocking I/O
/// looks like), counting what it consumed.
#[derive(Debug)]
struct Blocking {
    inner: MemoryReplayGuard,
    consumed: AtomicUsize,
}

impl ReplayGuard for Blocking {
    fn consume(&self, token: TokenUse, now: OffsetDateTime) -> Result<(), ReplayError> {
        self.consumed.fetch_add(1, Ordering::Relaxed);
        ReplayGuard::consume(&self.inner, token, now)
    }

    fn generation(&self, flow_id: FlowId) -> Option<Generation> {
        ReplayGuard::generation(&self.inner, flow_id)
    }
}

impl Default for Blocking {
    fn default() -> Self {
        Self {
            inner: MemoryReplayGuard::new(100),
            consumed: AtomicUsize::new(0),
        }
    }
}

fn handler(round: &mut Round<'_>) -> Result<String, Stop> {
    let answers = round.require("ship", &SHIP)?;
    Ok(answers.str("trackingNumber")?.to_owned())
}

/// What `future` gives when polled once: `open_async` never waits here
/// (no guard, or one that answers at once).
fn now<F: Future>(future: F) -> F::Output {
    crate::ready(future, "open_async")
}

/// Round 1 under `flow`, and the round-2 call that answers it.
fn second_call(flow: &Flow) -> mrtr_guard::Call {
    let first = flow.run(req("ada", "ShipOrder").call().unwrap(), handler);
    let (_, state) = asked(&first);
    let answers = json!({"ship": accept(json!({"trackingNumber": "1Z"}))});
    req("ada", "ShipOrder")
        .answer(answers, Some(&state))
        .call()
        .unwrap()
}

fn opened(opening: Result<Opening, RpcError>) -> Opened {
    match opening.unwrap() {
        Opening::Opened(opened) => opened,
        Opening::Blocking(_) => panic!("handed back to block"),
    }
}

#[test]
fn a_call_without_state_opens_at_once_under_any_guard() {
    let Harness { flow, .. } =
        harness_with(|builder| builder.replay_guard(Arc::new(Blocking::default())));
    let call = req("ada", "ShipOrder").call().unwrap();
    let round = opened(now(flow.open_async(call))).round(&flow);
    assert!(round.is_first());
}

#[test]
fn without_a_guard_the_state_opens_in_place() {
    let Harness { flow, .. } = harness();
    let call = second_call(&flow);
    let round = opened(now(flow.open_async(call))).round(&flow);
    assert_eq!(round.number(), 2);
}

#[test]
fn a_guard_with_an_async_face_is_awaited_and_refuses_a_replay() {
    let guard = Arc::new(MemoryReplayGuard::new(100));
    let Harness { flow, .. } = harness_with(|builder| builder.replay_guard(guard));
    let call = second_call(&flow);
    let round = opened(now(flow.open_async(call.clone()))).round(&flow);
    assert_eq!(round.number(), 2);
    let replay = now(flow.open_async(call)).unwrap_err();
    assert_eq!(
        replay.to_json(),
        RpcError::invalid_request_state().to_json()
    );
}

#[test]
fn a_guard_that_can_only_block_hands_the_call_back_unverified() {
    let guard = Arc::new(Blocking::default());
    let Harness { flow, .. } = harness_with(|builder| builder.replay_guard(guard.clone()));
    let call = second_call(&flow);
    let Opening::Blocking(handed) = now(flow.open_async(call.clone())).unwrap() else {
        panic!("a blocking guard must be left to the host's blocking pool");
    };
    assert_eq!(handed, call);
    assert_eq!(
        guard.consumed.load(Ordering::Relaxed),
        0,
        "nothing consumed yet"
    );
    // The host's blocking step: verified and consumed there, once.
    let round = flow.open(handed).unwrap().round(&flow);
    assert_eq!(round.number(), 2);
    assert_eq!(guard.consumed.load(Ordering::Relaxed), 1);
    let replay = flow.open(call).unwrap_err();
    assert_eq!(
        replay.to_json(),
        RpcError::invalid_request_state().to_json()
    );
}
