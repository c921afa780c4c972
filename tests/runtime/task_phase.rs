//! `Round::task` in each [`TaskPhase`]: where the host offers a task the
//! round ends there with the state the task's first run opens, which
//! carries the answers so far; inside the task and where no task is offered
//! the handler goes on; a tool not declared as a task is a handler mistake.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use mrtr_guard::runtime::{Misuse, TaskPhase};
use mrtr_guard::wire::{CallParams, ClientCapabilities, InputResponses, RequestMeta};
use mrtr_guard::{
    Call, Field, Flow, Form, KeyRing, MasterKey, Method, Round, RoundEnd, StateCodec, Stop,
};
use serde_json::json;

fn flow() -> Flow {
    let key = MasterKey::from_bytes(&[7; 32]).unwrap();
    Flow::new(
        StateCodec::builder("https://mcp.example.com/mcp", KeyRing::new(key))
            .build()
            .unwrap(),
    )
}

fn form() -> Form {
    Form::builder("Name?")
        .field(Field::string("name").required())
        .build()
        .unwrap()
}

fn call(phase: TaskPhase, retry: Option<(serde_json::Value, &str)>) -> Call {
    let meta = RequestMeta::new(
        "2026-07-28",
        ClientCapabilities::none().with_elicitation_form(),
    );
    let mut params = CallParams::new(Method::ToolsCall, "export", meta);
    if let Some((answers, state)) = retry {
        params = params
            .with_input_responses(InputResponses::from_json(&answers).unwrap())
            .with_request_state(state);
    }
    Call::new(params)
        .with_principal("ada")
        .with_task_phase(phase)
}

/// Asks a name, then goes on as a task, then greets.
fn handler(form: &Form) -> impl Fn(&mut Round<'_>) -> Result<String, Stop> + '_ {
    move |round| {
        let name = round.require("name", form)?.str("name")?.to_owned();
        round.task()?;
        Ok(format!("Hello, {name}! task: {}", round.is_task()))
    }
}

#[test]
fn an_offered_task_ends_the_round_with_a_state_that_carries_the_answers() {
    let (flow, form) = (flow(), form());
    let RoundEnd::InputRequired(asked) = flow
        .run(call(TaskPhase::Offered, None), handler(&form))
        .unwrap()
    else {
        panic!("round 1 asks")
    };
    let answers = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    let state = asked.request_state().unwrap();
    let end = flow
        .run(
            call(TaskPhase::Offered, Some((answers, state))),
            handler(&form),
        )
        .unwrap();
    let RoundEnd::Task { request_state } = end else {
        panic!("{end:?}")
    };
    // The task's first run opens that state, inside the task, with no answers:
    // the name comes from the state, and the handler goes on.
    let inside = call(TaskPhase::Inside, Some((json!({}), &request_state)));
    assert_eq!(
        flow.run(inside, handler(&form)).unwrap(),
        RoundEnd::Complete("Hello, Ada! task: true".to_owned())
    );
}

#[test]
fn without_an_offer_the_handler_goes_on_in_the_call() {
    let (flow, form) = (flow(), form());
    let RoundEnd::InputRequired(asked) = flow
        .run(call(TaskPhase::Synchronous, None), handler(&form))
        .unwrap()
    else {
        panic!("round 1 asks")
    };
    let answers = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    let retry = call(
        TaskPhase::Synchronous,
        Some((answers, asked.request_state().unwrap())),
    );
    assert_eq!(
        flow.run(retry, handler(&form)).unwrap(),
        RoundEnd::Complete("Hello, Ada! task: false".to_owned())
    );
}

#[test]
fn a_task_in_a_tool_not_declared_as_one_is_a_handler_mistake() {
    let flow = flow();
    let error = flow
        .run(call(TaskPhase::NotDeclared, None), |round| {
            round.task()?;
            Ok("ran")
        })
        .unwrap_err();
    assert_eq!(error.misuse(), Some(&Misuse::TaskNotDeclared));
    assert_eq!(error.code(), -32603);
}

#[test]
fn questions_asked_before_the_task_go_out_first() {
    let (flow, form) = (flow(), form());
    let end = flow
        .run(call(TaskPhase::Offered, None), |round| {
            let _pending = round.form("name", &form);
            round.task()?;
            Ok("ran")
        })
        .unwrap();
    let RoundEnd::InputRequired(asked) = end else {
        panic!("{end:?}")
    };
    assert!(asked.input_requests().unwrap().contains_key("name"));
}
