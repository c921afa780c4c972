//! SSE priming events (empty `data`, an `id`, a `retry`; revision
//! `2025-11-25`) over real HTTP through the demo's `McpServer`: a
//! `2025-06-18` session gets none, on its `initialize`, its calls' streams
//! or its `GET` stream; a `2025-11-25` session gets them as `rmcp` writes
//! them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::json;
use tokio::io::AsyncReadExt as _;

use super::sessions::{Reply, initialize_at, send_at, ship_order, start};

/// Whether `text` holds a priming event: an event whose data is empty.
fn primed(text: &str) -> bool {
    text.split("\n\n")
        .any(|event| event.lines().any(|line| line.trim_end() == "data:"))
}

/// A session of `revision` for alice, initialized, and its `initialize`
/// response.
async fn open(revision: &str, addr: SocketAddr) -> (String, Reply) {
    let init = initialize_at(revision, addr, Some("alice")).await;
    assert_eq!(init.status, 200, "{}", String::from_utf8_lossy(&init.body));
    let session = init.header("mcp-session-id").unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = send_at(
        revision,
        addr,
        "POST",
        Some("alice"),
        Some(&session),
        &[],
        Some(&initialized),
    )
    .await;
    assert_eq!(reply.status, 202);
    (session, init)
}

/// What a stream sends within `wait`.
async fn within(mut reply: Reply, wait: Duration) -> Vec<u8> {
    let mut chunk = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + wait;
    while let Ok(Ok(n)) = tokio::time::timeout_at(deadline, reply.stream.read(&mut chunk)).await {
        if n == 0 {
            break;
        }
        reply.body.extend_from_slice(&chunk[..n]);
    }
    reply.body
}

/// Each stream of a session at `revision`, named: the `initialize`
/// response, a call's stream up to its first question, the `GET` stream's
/// first half second.
async fn streams(revision: &str) -> [(&'static str, String); 3] {
    let addr = start(|b| b).await;
    let (session, init) = open(revision, addr).await;
    assert_eq!(init.json()["result"]["protocolVersion"], revision);
    let call = send_at(
        revision,
        addr,
        "POST",
        Some("alice"),
        Some(&session),
        &[],
        Some(&ship_order(1)),
    )
    .await;
    assert_eq!(call.status, 200);
    let call = within(call, Duration::from_millis(500)).await;
    let get = send_at(
        revision,
        addr,
        "GET",
        Some("alice"),
        Some(&session),
        &[],
        None,
    )
    .await;
    assert_eq!(get.status, 200);
    let get = within(get, Duration::from_millis(500)).await;
    let text = |body: &[u8]| String::from_utf8_lossy(body).into_owned();
    let call = text(&call);
    assert!(call.contains("elicitation/create"), "{call}");
    [
        ("initialize", text(&init.body)),
        ("call", call),
        ("GET", text(&get)),
    ]
}

#[tokio::test]
async fn a_2025_06_18_session_gets_no_priming_event() {
    for (stream, text) in streams("2025-06-18").await {
        assert!(!primed(&text), "{stream}: {text}");
        assert!(!text.contains("retry:"), "{stream}: {text}");
    }
}

#[tokio::test]
async fn a_2025_11_25_session_still_gets_them() {
    for (stream, text) in streams("2025-11-25").await {
        assert!(primed(&text), "{stream}: {text}");
        assert!(text.starts_with("data:"), "{stream}: {text}");
    }
}
