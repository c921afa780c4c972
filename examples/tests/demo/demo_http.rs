//! The demo server (`examples/src/bin/signup_server.rs`'s handler and router)
//! over real HTTP on loopback: what a client sees on the wire
//! when its answers keep failing validation.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;

use crate::http_client::{call, first, retry, state_of};
use mrtr_guard::{MasterKey, StateCodec};
use mrtr_guard_examples::serve as support;
use mrtr_guard_examples::signup_service::Signup;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// Serves the demo on a free loopback port of the current runtime.
async fn start() -> SocketAddr {
    let codec = StateCodec::builder(
        "http://mcp.test/mcp",
        MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .build()
    .unwrap();
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = support::router(Signup::service(codec).unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

fn message_of(answer: &Value, key: &str) -> String {
    answer["result"]["inputRequests"][key]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no message under {key}: {answer}"))
        .to_owned()
}

/// A tracking number one code point longer than the form allows, and easy
/// to find in any text that would echo it.
fn too_long() -> Value {
    let number = format!("ECHO{}", "9".repeat(61));
    json!({"ship": {"action": "accept", "content": {"trackingNumber": number}}})
}

#[tokio::test]
async fn answers_that_keep_failing_end_with_a_tool_error_after_three() {
    let addr = start().await;
    let asked = call(addr, "ada", "ShipOrder", &first("ShipOrder")).await;
    let original = message_of(&asked, "ship");
    let mut state = state_of(&asked).unwrap();
    // Two invalid answers: each is asked again, saying which field and why,
    // never echoing the answer.
    for attempt in 1..=2 {
        let answer = call(
            addr,
            "ada",
            "ShipOrder",
            &retry("ShipOrder", too_long(), &state),
        )
        .await;
        let reask = message_of(&answer, "ship");
        assert_ne!(reask, original, "attempt {attempt}: the re-ask says why");
        assert!(reask.starts_with(&original), "{reask}");
        assert!(reask.contains("Tracking Number"), "{reask}");
        assert!(reask.contains("at most 64 characters"), "{reask}");
        assert!(!reask.contains("ECHO"), "{reask}");
        state = state_of(&answer).unwrap();
    }
    // The third ends the flow: a tool result with isError, not another ask.
    let answer = call(
        addr,
        "ada",
        "ShipOrder",
        &retry("ShipOrder", too_long(), &state),
    )
    .await;
    let result = &answer["result"];
    assert_eq!(result["resultType"], "complete", "{answer}");
    assert_eq!(result["isError"], true, "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("kept failing validation"), "{text}");
    assert!(!text.contains("ECHO"), "{text}");
}
