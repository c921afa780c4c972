//! `Round::step` outside a task (issue 37): the step's result travels in
//! the flow's sealed state, so a later round gets it without running the
//! step; a result the state cannot hold is the handler's mistake.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};

use mrtr_guard::runtime::Misuse;
use mrtr_guard::{Field, Flow, Form, Round, RoundEnd, RpcError, Stop};
use mrtr_guard_test_support::{accept, asked, harness, req};
use serde_json::{Value, json};

/// `future`, polled once: the steps here never wait.
fn now<F: Future>(future: F) -> F::Output {
    crate::ready(future, "a step")
}

fn confirm() -> Form {
    Form::builder("Go on?")
        .field(Field::boolean("go").required())
        .build()
        .unwrap()
}

/// One round of a tool that copies rows in a step (counted in `runs`),
/// then asks to go on; `result` is what the step returns.
fn round_of(
    flow: &Flow,
    answer: Option<&str>,
    runs: &AtomicU32,
    result: &Value,
) -> Result<RoundEnd<String>, RpcError> {
    let mut r = req("ada", "copy_rows");
    if let Some(state) = answer {
        r = r.answer(json!({"go": accept(json!({"go": true}))}), Some(state));
    }
    let mut round: Round<'_> = flow.round(r.call()?)?;
    let copied = now(round.step("copy", async {
        runs.fetch_add(1, Ordering::SeqCst);
        result.clone()
    }));
    let outcome = copied.map_err(Stop::from).and_then(|copied: Value| {
        round.require("go", &confirm())?;
        Ok(format!("copied {copied}"))
    });
    round.complete(outcome)
}

#[test]
fn a_step_outside_a_task_runs_once_across_the_rounds_of_its_flow() {
    let h = harness();
    let runs = AtomicU32::new(0);
    let rows = json!({"rows": 12});
    let (_, state) = asked(&round_of(&h.flow, None, &runs, &rows));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let Ok(RoundEnd::Complete(text)) = round_of(&h.flow, Some(&state), &runs, &rows) else {
        panic!("the answered round completes")
    };
    assert_eq!(
        text, r#"copied {"rows":12}"#,
        "the result the state carried"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the step ran again");
    // The token carries it sealed: its text is not in the state.
    assert!(!state.contains("rows"));
}

#[test]
fn a_step_result_the_state_cannot_hold_is_the_handlers_mistake() {
    let h = harness();
    let runs = AtomicU32::new(0);
    let huge = json!("x".repeat(64 * 1024));
    let refused = round_of(&h.flow, None, &runs, &huge).unwrap_err();
    assert!(
        matches!(refused.misuse(), Some(Misuse::StateTooLarge { .. })),
        "{refused:?}"
    );
}
