//! The legacy path in process: `rmcp`'s own client, speaking `2025-11-25`
//! over an in-memory duplex, against `#[tool]` functions written for the
//! `2026-07-28` rounds, served through `mrtr_guard::rmcp::McpHandler`. The
//! client answers the server-initiated requests from a script
//! (`legacy_session.rs`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]
#![allow(deprecated, reason = "sampling and roots still serve old clients")]

use std::sync::atomic::Ordering;
use std::time::Duration;

use mrtr_guard::Policy;
use rmcp::model::{CallToolRequestParams, GetPromptRequestParams};
use serde_json::json;

use super::legacy_session::{
    ALL, Answer, FORM, call, default_server, error, messages, server, session, text,
};

#[tokio::test]
async fn a_form_goes_out_as_elicitation_and_the_handler_completes() {
    let s = session(
        default_server(),
        FORM,
        vec![Answer::Accept(json!({"trackingNumber": "ZX-1"}))],
    )
    .await;
    let result = call(&s, "ship").await.unwrap();
    assert_eq!(text(&result), "Shipped as ZX-1.");
    assert_ne!(result.is_error, Some(true));
    let seen = s.handler.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["message"], "Tracking number?");
    assert_eq!(
        seen[0]["requestedSchema"]["properties"]["trackingNumber"]["maxLength"],
        8
    );
}

#[tokio::test]
async fn a_decline_and_a_cancel_reach_the_handler() {
    let s = session(
        default_server(),
        FORM,
        vec![Answer::Decline, Answer::Cancel],
    )
    .await;
    assert_eq!(text(&call(&s, "ship").await.unwrap()), "Shipping declined.");
    assert_eq!(
        text(&call(&s, "ship").await.unwrap()),
        "Shipping cancelled."
    );
}

#[tokio::test]
async fn an_invalid_answer_is_asked_again_with_the_reason() {
    let s = session(
        default_server(),
        FORM,
        vec![
            Answer::Accept(json!({"trackingNumber": "far-too-long"})),
            Answer::Accept(json!({"trackingNumber": "OK-7"})),
        ],
    )
    .await;
    let result = call(&s, "ship").await.unwrap();
    assert_eq!(text(&result), "Shipped as OK-7.");
    let messages = messages(&s);
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0], "Tracking number?");
    assert!(
        messages[1].starts_with("Tracking number?"),
        "{}",
        messages[1]
    );
    assert!(messages[1].contains("Please correct:"), "{}", messages[1]);
    assert!(
        messages[1].contains("at most 8 characters"),
        "{}",
        messages[1]
    );
    assert!(
        !messages[1].contains("far-too-long"),
        "echoed: {}",
        messages[1]
    );
}

#[tokio::test]
async fn three_invalid_answers_end_the_flow() {
    let bad = Answer::Accept(json!({"trackingNumber": ""}));
    let s = session(default_server(), FORM, vec![bad.clone(), bad.clone(), bad]).await;
    let result = call(&s, "ship").await.unwrap();
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert_eq!(messages(&s).len(), 3);
    assert!(s.handler.script.lock().unwrap().is_empty());
}

#[tokio::test]
async fn an_effect_under_once_runs_once() {
    let s = session(
        default_server(),
        FORM,
        vec![
            Answer::Accept(json!({"amount": 12})),
            Answer::Accept(json!({})),
        ],
    )
    .await;
    let result = call(&s, "charge").await.unwrap();
    assert_eq!(text(&result), "Charged 12.");
    assert_eq!(s.charges.load(Ordering::SeqCst), 1);
    assert_eq!(messages(&s), ["Amount?", "Confirm?"]);
}

#[tokio::test]
async fn the_round_cap_holds() {
    let s = session(
        server(Policy::default().with_max_rounds(3), Duration::from_secs(5)),
        FORM,
        vec![Answer::Accept(json!({})); 8],
    )
    .await;
    let result = call(&s, "endless").await.unwrap();
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert!(
        text(&result).contains("more than 3 rounds"),
        "{}",
        text(&result)
    );
    // Rounds 1 to 3 asked; round 4 could not.
    assert_eq!(messages(&s).len(), 3);
}

#[tokio::test]
async fn the_deadline_holds() {
    let policy = Policy::default()
        .with_ttl(time::Duration::minutes(20))
        .with_flow_ttl(time::Duration::minutes(30));
    let late = time::Duration::minutes(16);
    let s = session(
        server(policy, Duration::from_secs(5)),
        FORM,
        vec![
            Answer::Late(late, json!({"amount": 3})),
            Answer::Late(late, json!({})),
        ],
    )
    .await;
    let error = error(call(&s, "charge").await);
    assert_eq!(error.code.0, -32602);
    assert!(
        error.message.contains("call the tool again"),
        "{}",
        error.message
    );
    assert_eq!(messages(&s).len(), 2);
}

#[tokio::test]
async fn an_unanswered_request_times_out_and_is_cancelled() {
    let s = session(
        server(Policy::default(), Duration::from_millis(300)),
        FORM,
        vec![Answer::Hang],
    )
    .await;
    let started = std::time::Instant::now();
    let error = error(call(&s, "ship").await);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(error.code.0, -32603);
    assert_eq!(error.data.as_ref().unwrap()["reason"], "input_timeout");
    assert!(
        error.message.contains("elicitation/create"),
        "{}",
        error.message
    );
    // The server told the client to drop the request.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(s.handler.cancelled.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_cancelled_call_cancels_its_request() {
    let s = session(default_server(), FORM, vec![Answer::Hang]).await;
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
        CallToolRequestParams::new("ship"),
    ));
    let handle = s
        .client
        .peer()
        .send_cancellable_request(request, Default::default())
        .await
        .unwrap();
    for _ in 0..100 {
        if !messages(&s).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(messages(&s).len(), 1);
    handle.cancel(None).await.unwrap();
    for _ in 0..100 {
        if !s.handler.cancelled.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(s.handler.cancelled.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn an_undeclared_capability_is_32021() {
    let s = session(default_server(), "{}", vec![]).await;
    let error = error(call(&s, "charge").await);
    assert_eq!(error.code.0, -32021);
    assert_eq!(
        error.data.unwrap()["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
}

#[tokio::test]
async fn url_sampling_and_roots_go_out_too() {
    let s = session(default_server(), ALL, vec![Answer::Accept(json!({}))]).await;
    let result = call(&s, "mixed").await.unwrap();
    assert_eq!(text(&result), "mixed: 1 roots");
    let seen = s.handler.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["mode"], "url");
    assert_eq!(seen[0]["url"], "https://example.com/connect");
    assert!(!seen[0]["elicitationId"].as_str().unwrap().is_empty());
}

#[tokio::test]
async fn a_prompt_runs_its_rounds_too() {
    let s = session(
        default_server(),
        FORM,
        vec![Answer::Accept(json!({"trackingNumber": "P-1"}))],
    )
    .await;
    let prompt = s
        .client
        .peer()
        .get_prompt(GetPromptRequestParams::new("track"))
        .await
        .unwrap();
    let json = serde_json::to_value(&prompt).unwrap();
    assert_eq!(
        json["messages"][0]["content"]["text"], "Track P-1.",
        "{json}"
    );
    assert_eq!(messages(&s), ["Tracking number?"]);
}
