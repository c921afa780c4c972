//! The memory guard across a real process restart: this test runs its own
//! binary again as the "previous run" (a child process that consumes states
//! under its `MemoryReplayGuard` and prints them), then opens those states
//! in this process, under a guard of its own, as the restarted server does.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout,
    reason = "test code: a panic is a failing test; the child prints its states"
)]

use std::process::Command;
use std::sync::Arc;

use mrtr_guard::{
    Binding, MasterKey, MemoryReplayGuard, Method, StateCodec, StateContents, StateError,
};

/// Set in the child: it plays the previous run.
const CHILD: &str = "MRTR_GUARD_TEST_PREVIOUS_RUN";
/// How many states the previous run consumes.
const STATES: usize = 60;
/// What starts a state's line in the child's output.
const LINE: &str = "consumed-state: ";
/// What starts the line of the flow the previous run had in flight.
const IN_FLIGHT: &str = "in-flight-state: ";

fn codec() -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[5; 32]).unwrap(),
    )
    .replay_guard(Arc::new(MemoryReplayGuard::new(1000)))
    .build()
    .unwrap()
}

fn binding() -> Binding<'static> {
    Binding::new("ada", Method::ToolsCall, "redeem_voucher", None)
}

/// The previous run (in the child), or the restarted one (here).
#[test]
fn a_restarted_process_reopens_nothing_its_previous_run_consumed() {
    if std::env::var_os(CHILD).is_some() {
        previous_run();
        return;
    }
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "replay::restart::a_restarted_process_reopens_nothing_its_previous_run_consumed",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "the previous run failed");
    let text = String::from_utf8(output.stdout).unwrap();
    let consumed: Vec<&str> = text
        .lines()
        .filter_map(|line| line.split_once(LINE).map(|(_, state)| state))
        .collect();
    let in_flight: Vec<&str> = text
        .lines()
        .filter_map(|line| line.split_once(IN_FLIGHT).map(|(_, state)| state))
        .collect();
    assert_eq!((consumed.len(), in_flight.len()), (STATES, 1), "{text}");

    let restarted = codec();
    let reopened = consumed
        .iter()
        .filter(|state| restarted.open::<()>(state, &binding()).is_ok())
        .count();
    assert_eq!(reopened, 0, "of {STATES} states the previous run consumed");
    for state in consumed.iter().chain(&in_flight) {
        assert_eq!(
            restarted.open::<()>(state, &binding()).err(),
            Some(StateError::GenerationChanged)
        );
    }
    let fresh = restarted
        .start(&binding(), &StateContents::new(()))
        .unwrap();
    assert!(restarted.open::<()>(&fresh, &binding()).is_ok());
}

/// Consumes `STATES` states and begins one more flow, printing them all.
fn previous_run() {
    let codec = codec();
    for _ in 0..STATES {
        let state = codec.start(&binding(), &StateContents::new(())).unwrap();
        codec.open::<()>(&state, &binding()).unwrap();
        println!("{LINE}{state}");
    }
    let first = codec.start(&binding(), &StateContents::new(())).unwrap();
    let claims = codec.open::<()>(&first, &binding()).unwrap();
    let second = codec
        .next(&binding(), &claims, &StateContents::new(()))
        .unwrap();
    println!("{IN_FLIGHT}{second}");
}
