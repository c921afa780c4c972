//! Many threads drive flows through one `Flow` with the in-memory replay
//! guard: every legitimate round completes once, every replay is refused, and
//! nothing else happens (no false accept, no false reject).
//!
//! Each of `THREADS` threads starts `FLOWS_PER_THREAD` flows (round 1: the
//! form is asked). Then every thread completes its own flows (round 2: answer
//! plus state) and, interleaved, presents the same round-2 requests of its
//! neighbour's flows: each state is presented twice, by two threads at about
//! the same time, and must open exactly once. A counting wrapper around
//! `MemoryReplayGuard` tells replays apart from every other refusal.
//!
//! `MRTR_GUARD_STRESS_FLOWS` overrides the flows per thread.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, LazyLock};
use std::time::Instant;

use mrtr_guard::runtime::FixedClock;
use mrtr_guard::state::{FlowId, Generation, ReplayError, TokenUse};
use mrtr_guard::wire::{CallParams, ClientCapabilities, InputResponses, RequestMeta};
use mrtr_guard::{
    Call, Field, Form, KeyRing, MasterKey, MemoryReplayGuard, Method, ReplayGuard, Round, RoundEnd,
    StateCodec, Stop,
};
use serde_json::{Map, json};
use time::OffsetDateTime;

const THREADS: usize = 8;
const DEFAULT_FLOWS_PER_THREAD: usize = 4_000;

static SHIP: LazyLock<Form> = LazyLock::new(|| {
    Form::builder("Where should we ship it?")
        .field(Field::string("trackingNumber").max_length(40).required())
        .field(Field::integer("copies").minimum(1).maximum(9))
        .build()
        .unwrap()
});

/// `MemoryReplayGuard`, counting what it answers.
#[derive(Debug)]
struct Counting {
    inner: MemoryReplayGuard,
    consumed: AtomicUsize,
    replayed: AtomicUsize,
    other: AtomicUsize,
}

impl ReplayGuard for Counting {
    fn consume(&self, token: TokenUse, now: OffsetDateTime) -> Result<(), ReplayError> {
        let result = self.inner.consume(token, now);
        let counter = match &result {
            Ok(()) => &self.consumed,
            Err(ReplayError::Replayed) => &self.replayed,
            Err(_) => &self.other,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        result
    }

    fn generation(&self, flow_id: FlowId) -> Option<Generation> {
        ReplayGuard::generation(&self.inner, flow_id)
    }
}

fn handler(round: &mut Round<'_>) -> Result<String, Stop> {
    let answers = round.require("ship", &SHIP)?;
    Ok(answers.str("trackingNumber")?.to_owned())
}

fn meta() -> RequestMeta {
    RequestMeta::new(
        "2026-07-28",
        ClientCapabilities::none().with_elicitation_form(),
    )
}

fn arguments(thread: usize, flow: usize) -> Map<String, serde_json::Value> {
    let mut arguments = Map::new();
    arguments.insert("order".to_owned(), json!(thread * 1_000_000 + flow));
    arguments
}

fn principal(thread: usize) -> String {
    format!("user-{thread}")
}

/// The round-2 request of one flow: its answer and its state.
fn round_two(thread: usize, flow: usize, state: &str) -> Call {
    let responses = InputResponses::from_json(&json!({"ship": {
        "action": "accept",
        "content": {"trackingNumber": format!("T{thread}-{flow}"), "copies": 2}
    }}))
    .unwrap();
    let params = CallParams::new(Method::ToolsCall, "ShipOrder", meta())
        .with_arguments(arguments(thread, flow))
        .with_input_responses(responses)
        .with_request_state(state.to_owned());
    Call::new(params).with_principal(principal(thread))
}

#[test]
fn concurrent_flows_complete_once_and_every_replay_is_refused() {
    let flows_per_thread = std::env::var("MRTR_GUARD_STRESS_FLOWS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(DEFAULT_FLOWS_PER_THREAD);
    let total = THREADS * flows_per_thread;
    let guard = Arc::new(Counting {
        // Each thread's principal holds an eighth of the entries: no share.
        inner: MemoryReplayGuard::new(total).with_principal_share(total),
        consumed: AtomicUsize::new(0),
        replayed: AtomicUsize::new(0),
        other: AtomicUsize::new(0),
    });
    let codec = StateCodec::builder(
        "https://mcp.example.com/mcp",
        KeyRing::new(MasterKey::from_bytes(&[0x77; 32]).unwrap()),
    )
    .replay_guard(Arc::clone(&guard) as Arc<dyn ReplayGuard>)
    .build()
    .unwrap();
    let clock = Arc::new(FixedClock::new(mrtr_guard_test_support::t0()));
    let flow = Arc::new(mrtr_guard::Flow::new(codec).with_clock(clock));
    let started = Instant::now();

    // Round 1 everywhere: each thread starts its flows.
    let states: Vec<Vec<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|thread| {
                let flow = Arc::clone(&flow);
                scope.spawn(move || {
                    (0..flows_per_thread)
                        .map(|i| {
                            let params = CallParams::new(Method::ToolsCall, "ShipOrder", meta())
                                .with_arguments(arguments(thread, i));
                            let call = Call::new(params).with_principal(principal(thread));
                            match flow.run(call, handler) {
                                Ok(RoundEnd::InputRequired(asked)) => {
                                    assert!(asked.input_request("ship").is_some());
                                    asked.request_state().unwrap().to_owned()
                                }
                                other => panic!("round 1 must ask: {other:?}"),
                            }
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        guard.consumed.load(Ordering::Relaxed),
        0,
        "round 1 has no state"
    );

    // Round 2: own flow i and the neighbour's flow i, interleaved, so that each
    // state is presented by two threads at about the same time.
    let opened: Vec<AtomicU8> = (0..total).map(|_| AtomicU8::new(0)).collect();
    let refused = AtomicUsize::new(0);
    let barrier = Barrier::new(THREADS);
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let (flow, states, opened, refused, barrier) =
                (&flow, &states, &opened, &refused, &barrier);
            scope.spawn(move || {
                let neighbour = (thread + 1) % THREADS;
                barrier.wait();
                for i in 0..flows_per_thread {
                    // The neighbour goes first on odd flows, we go first on even ones.
                    let order = if i % 2 == 0 {
                        [thread, neighbour]
                    } else {
                        [neighbour, thread]
                    };
                    for owner in order {
                        let call = round_two(owner, i, &states[owner][i]);
                        match flow.run(call, handler) {
                            Ok(RoundEnd::Complete(tracking)) => {
                                assert_eq!(tracking, format!("T{owner}-{i}"));
                                opened[owner * flows_per_thread + i]
                                    .fetch_add(1, Ordering::Relaxed);
                            }
                            Err(error) => {
                                assert_eq!(error.code(), -32602, "{error:?}");
                                refused.fetch_add(1, Ordering::Relaxed);
                            }
                            other => panic!("round 2 must complete or be refused: {other:?}"),
                        }
                    }
                }
            });
        }
    });

    let elapsed = started.elapsed();
    let not_once: Vec<_> = opened
        .iter()
        .enumerate()
        .filter(|(_, n)| n.load(Ordering::Relaxed) != 1)
        .map(|(k, n)| (k, n.load(Ordering::Relaxed)))
        .take(10)
        .collect();
    assert!(
        not_once.is_empty(),
        "flows not completed exactly once: {not_once:?}"
    );
    // Each refusal was the guard's "replayed", and the guard saw nothing else.
    assert_eq!(refused.load(Ordering::Relaxed), total);
    assert_eq!(guard.consumed.load(Ordering::Relaxed), total);
    assert_eq!(guard.replayed.load(Ordering::Relaxed), total);
    assert_eq!(guard.other.load(Ordering::Relaxed), 0);
    assert_eq!(guard.inner.len(), total);
    eprintln!(
        "stress: {THREADS} threads, {total} flows, {} requests in {elapsed:.2?}",
        total * 3
    );
}
