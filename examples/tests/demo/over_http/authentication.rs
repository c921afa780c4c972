//! The principal function runs once per request, whatever path serves it:
//! the screen derives the principal and hands it down, and the sessions
//! layer, the round (and every re-run of a legacy call's handler) and the
//! task host read what it derived. Counted with an authenticator of the
//! test's own through the demo's `McpServer`: a stateless round, a call on a
//! `2025-11-25` session answered over the session, and `tasks/get`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;

use super::client::{first, retry, rpc, state_of, text_of};
use super::sessions::{open_session, send, ship_order, start};
use super::tasks;

/// The demo, its principal the bearer token, counting each time its
/// principal function runs.
async fn counted() -> (SocketAddr, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let addr = start(move |builder| {
        builder.authenticate(move |parts| {
            counter.fetch_add(1, Ordering::SeqCst);
            let value = parts.headers.get(http::header::AUTHORIZATION)?;
            let user = value.to_str().ok()?.strip_prefix("Bearer ")?;
            (!user.is_empty()).then(|| user.to_owned())
        })
    })
    .await;
    (addr, calls)
}

/// How many times the principal function ran since `before`.
fn since(calls: &AtomicUsize, before: &mut usize) -> usize {
    let now = calls.load(Ordering::SeqCst);
    let ran = now - *before;
    *before = now;
    ran
}

#[tokio::test]
async fn a_stateless_round_finds_its_principal_once() {
    let (addr, calls) = counted().await;
    let mut seen = 0;
    let asked = rpc(
        addr,
        "alice",
        "tools/call",
        "ShipOrder",
        &first("ShipOrder"),
    )
    .await;
    let state = state_of(&asked).expect("round 1 asks");
    assert_eq!(since(&calls, &mut seen), 1, "round 1");
    let answers = json!({"ship": {"action": "accept", "content": {"trackingNumber": "1Z9"}}});
    let done = rpc(
        addr,
        "alice",
        "tools/call",
        "ShipOrder",
        &retry("ShipOrder", answers, &state),
    )
    .await;
    assert_eq!(text_of(&done), Some("Shipped as 1Z9."), "{done}");
    assert_eq!(
        since(&calls, &mut seen),
        1,
        "round 2, whose state is bound to alice"
    );
}

#[tokio::test]
async fn a_session_call_finds_its_principal_once_a_request() {
    let (addr, calls) = counted().await;
    let mut seen = 0;
    let session = open_session(addr, "alice").await;
    assert_eq!(since(&calls, &mut seen), 2, "initialize, then initialized");
    let mut call = send(
        addr,
        "POST",
        Some("alice"),
        Some(&session),
        &[],
        Some(&ship_order(7)),
    )
    .await;
    let ask = call.next_message().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert_eq!(since(&calls, &mut seen), 1, "the call");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {
        "action": "accept", "content": {"trackingNumber": "1Z9"}}});
    let reply = send(
        addr,
        "POST",
        Some("alice"),
        Some(&session),
        &[],
        Some(&answer),
    )
    .await
    .finish()
    .await;
    assert_eq!(reply.status, 202);
    let result = call.next_message().await;
    assert_eq!(
        result["result"]["content"][0]["text"], "Shipped as 1Z9.",
        "{result}"
    );
    assert_eq!(
        since(&calls, &mut seen),
        1,
        "the answer's request; the handler's run again in process reads the call's principal"
    );
}

#[tokio::test]
async fn tasks_get_finds_its_principal_once() {
    let (addr, calls) = counted().await;
    let mut seen = 0;
    let (created, _) = tasks::create(addr, "alice").await;
    let id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_owned();
    assert_eq!(
        since(&calls, &mut seen),
        2,
        "the two rounds that created it"
    );
    let got = tasks::get(addr, "alice", &id).await;
    assert_eq!(got["result"]["taskId"], id.as_str(), "{got}");
    assert_eq!(since(&calls, &mut seen), 1, "tasks/get");
    let other = tasks::get(addr, "bob", &id).await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    assert_eq!(since(&calls, &mut seen), 1, "another principal's tasks/get");
}
