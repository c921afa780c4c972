//! One principal on every path of a `2025-11-25` session, over real HTTP
//! through the demo's `McpServer`: a session belongs to whoever initialized
//! it. Another principal, or a request without credentials, cannot answer
//! its pending `elicitation/create`, take over its stream, call a tool in it,
//! cancel its call or delete it: each gets what an unknown session gets,
//! and the owner's flow completes untouched. Sessions are capped per
//! principal and in total.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;

use mrtr_guard::rmcp::McpServerBuilder;
use mrtr_guard::{MasterKey, StateCodec};
use mrtr_guard_examples::signup_service::Signup;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::server::on_loopback;

/// The demo with `settings` on its builder, on a free loopback port.
pub(crate) async fn start(
    settings: impl FnOnce(McpServerBuilder) -> McpServerBuilder,
) -> SocketAddr {
    let codec = StateCodec::builder(
        "http://mcp.test/mcp",
        MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .build()
    .unwrap();
    on_loopback(Signup::service_with(codec, settings).unwrap()).await
}

/// A response read to its head, and what of its body has come so far.
pub(super) struct Reply {
    pub(super) status: u16,
    /// Header names lower-cased, in order, without `date`.
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: Vec<u8>,
    pub(super) stream: TcpStream,
}

impl Reply {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The rest of the body, to the end of the connection.
    pub(super) async fn finish(mut self) -> Self {
        self.stream.read_to_end(&mut self.body).await.unwrap();
        self
    }

    /// The JSON of the body's first SSE event with data or, for a JSON
    /// response, of the whole body.
    pub(super) fn json(&self) -> Value {
        let text = String::from_utf8_lossy(&self.body);
        let data = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .find(|d| !d.is_empty());
        serde_json::from_str(data.unwrap_or(&text)).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    /// The next SSE event whose data is a JSON-RPC message.
    pub(super) async fn next_message(&mut self) -> Value {
        loop {
            let text = String::from_utf8_lossy(&self.body).into_owned();
            if let Some(end) = text.find("\n\n") {
                let event = text[..end].to_owned();
                self.body.drain(..end + 2);
                let data: String = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim)
                    .collect();
                if !data.is_empty() {
                    return serde_json::from_str(&data).unwrap();
                }
                continue;
            }
            let mut chunk = [0u8; 4096];
            let n = tokio::time::timeout(
                std::time::Duration::from_secs(10),
                self.stream.read(&mut chunk),
            )
            .await
            .expect("an event within 10 s")
            .unwrap();
            assert!(n > 0, "the stream ended: {text}");
            self.body.extend_from_slice(&chunk[..n]);
        }
    }
}

/// Sends one HTTP/1.0 request (so the body is never chunked) of a
/// `2025-11-25` client and reads its head.
pub(super) async fn send(
    addr: SocketAddr,
    method: &str,
    user: Option<&str>,
    session: Option<&str>,
    extra: &[(&str, &str)],
    body: Option<&Value>,
) -> Reply {
    send_at("2025-11-25", addr, method, user, session, extra, body).await
}

/// [`send`] for a client of `revision`, which names it in every request on
/// its session.
pub(super) async fn send_at(
    revision: &str,
    addr: SocketAddr,
    method: &str,
    user: Option<&str>,
    session: Option<&str>,
    extra: &[(&str, &str)],
    body: Option<&Value>,
) -> Reply {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut head = format!(
        "{method} /mcp HTTP/1.0\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(user) = user {
        head.push_str(&format!("Authorization: Bearer {user}\r\n"));
    }
    if let Some(session) = session {
        head.push_str(&format!(
            "Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {revision}\r\n"
        ));
    }
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let split = loop {
        if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break split;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "no response head: {}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines.next().unwrap()[9..12].parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .filter(|(n, _)| n != "date")
        .collect();
    Reply {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
        stream,
    }
}

/// `initialize` as a `2025-11-25` client that can answer forms; the
/// session id, once `notifications/initialized` is sent.
pub(super) async fn open_session(addr: SocketAddr, user: &str) -> String {
    let reply = initialize(addr, Some(user)).await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    let session = reply
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = send(
        addr,
        "POST",
        Some(user),
        Some(&session),
        &[],
        Some(&initialized),
    )
    .await;
    assert_eq!(reply.status, 202);
    session
}

async fn initialize(addr: SocketAddr, user: Option<&str>) -> Reply {
    initialize_at("2025-11-25", addr, user).await
}

/// `initialize` as a client of `revision` that can answer forms, read to
/// its end.
pub(super) async fn initialize_at(revision: &str, addr: SocketAddr, user: Option<&str>) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": revision,
        "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "sessions-test", "version": "0"}}});
    send(addr, "POST", user, None, &[], Some(&body))
        .await
        .finish()
        .await
}

pub(crate) fn ship_order(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "ShipOrder", "arguments": {}}})
}

fn answer(id: &Value, tracking: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "action": "accept", "content": {"trackingNumber": tracking}}})
}

/// What an intruder tries on a session: a name, the HTTP verb, extra
/// headers and the body.
type Attempt = (
    &'static str,
    &'static str,
    Vec<(&'static str, &'static str)>,
    Option<Value>,
);

/// What a refused request got, without what differs between connections.
fn seen(reply: &Reply) -> (u16, Vec<(String, String)>, Vec<u8>) {
    (reply.status, reply.headers.clone(), reply.body.clone())
}

#[tokio::test]
async fn a_session_answers_only_to_the_principal_that_opened_it() {
    let addr = start(|b| b).await;
    let alice = open_session(addr, "alice").await;
    let mut call = send(
        addr,
        "POST",
        Some("alice"),
        Some(&alice),
        &[],
        Some(&ship_order(7)),
    )
    .await;
    assert_eq!(call.status, 200);
    let ask = call.next_message().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let ask_id = ask["id"].clone();

    // What a made-up session gets: every refusal below must look the same.
    let unknown = send(
        addr,
        "DELETE",
        Some("eve"),
        Some("0123456789abcdef0123456789abcdef"),
        &[],
        None,
    )
    .await
    .finish()
    .await;
    assert_eq!(unknown.status, 404);
    let unknown = seen(&unknown);

    let attempts: Vec<Attempt> = vec![
        (
            "answer",
            "POST",
            vec![],
            Some(answer(&ask_id, "EVE-CHOSE-THIS")),
        ),
        ("stream", "GET", vec![("Last-Event-ID", "0")], None),
        ("call", "POST", vec![], Some(ship_order(9))),
        (
            "cancel",
            "POST",
            vec![],
            Some(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 7, "reason": "eve"}}),
            ),
        ),
        ("delete", "DELETE", vec![], None),
    ];
    for (what, verb, extra, body) in &attempts {
        let reply = send(addr, verb, Some("eve"), Some(&alice), extra, body.as_ref())
            .await
            .finish()
            .await;
        assert_eq!(seen(&reply), unknown, "eve's {what} on alice's session");
        let anonymous = send(addr, verb, None, Some(&alice), extra, body.as_ref())
            .await
            .finish()
            .await;
        assert_eq!(anonymous.status, 401, "an unauthenticated {what}");
        assert_eq!(anonymous.json()["error"]["code"], -32001);
    }

    // Alice's flow went on untouched: her answer completes her call.
    let reply = send(
        addr,
        "POST",
        Some("alice"),
        Some(&alice),
        &[],
        Some(&answer(&ask_id, "1Z999")),
    )
    .await
    .finish()
    .await;
    assert_eq!(reply.status, 202);
    let result = call.next_message().await;
    assert_eq!(result["id"], 7, "{result}");
    assert_eq!(
        result["result"]["content"][0]["text"], "Shipped as 1Z999.",
        "{result}"
    );
    // Alice closes her session: 200, the status every official client
    // accepts (rmcp's own 202 makes the Python SDK log a failure).
    let deleted = send(addr, "DELETE", Some("alice"), Some(&alice), &[], None).await;
    assert_eq!(deleted.status, 200, "alice deletes her own session");
    let gone = send(
        addr,
        "POST",
        Some("alice"),
        Some(&alice),
        &[],
        Some(&ship_order(8)),
    )
    .await
    .finish()
    .await;
    assert_eq!(gone.status, 404, "a deleted session is gone");
}

#[tokio::test]
async fn initialize_without_credentials_is_refused() {
    let addr = start(|b| b).await;
    let reply = initialize(addr, None).await;
    assert_eq!(reply.status, 401);
    assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
    assert_eq!(reply.json()["error"]["code"], -32001);
    assert!(reply.header("mcp-session-id").is_none());
}

#[tokio::test]
async fn sessions_are_capped_per_principal_and_in_total() {
    let addr = start(|b| b.max_sessions(2, 3)).await;
    let a1 = open_session(addr, "alice").await;
    let _a2 = open_session(addr, "alice").await;
    let refused = initialize(addr, Some("alice")).await;
    assert_eq!(refused.status, 429);
    assert_eq!(refused.header("retry-after"), Some("300"));
    assert!(refused.header("mcp-session-id").is_none());
    let error = &refused.json()["error"];
    assert_eq!(error["code"], -32000);
    assert_eq!(error["data"]["limit"], "sessions for this principal");
    // No id the screen kept (an `initialize` is no call): no `id` member,
    // never `null`.
    assert!(refused.json().get("id").is_none(), "{:?}", refused.json());

    // Bob is still served, up to the server's total.
    let _b1 = open_session(addr, "bob").await;
    let refused = initialize(addr, Some("carol")).await;
    assert_eq!(refused.status, 429);
    assert_eq!(
        refused.json()["error"]["data"]["limit"],
        "sessions on this server"
    );

    // A session closed frees its place.
    let deleted = send(addr, "DELETE", Some("alice"), Some(&a1), &[], None).await;
    assert_eq!(deleted.status, 200);
    let _c1 = open_session(addr, "carol").await;
}

#[tokio::test]
async fn calls_in_flight_are_capped_and_a_call_whose_client_is_gone_is_cancelled() {
    let addr = start(|b| b.max_calls_in_flight(1, 8)).await;
    let alice = open_session(addr, "alice").await;
    // Alice listens on her session's own stream, where the server's
    // messages outside any call arrive.
    let mut listening = send(addr, "GET", Some("alice"), Some(&alice), &[], None).await;
    assert_eq!(listening.status, 200);
    let mut first = send(
        addr,
        "POST",
        Some("alice"),
        Some(&alice),
        &[],
        Some(&ship_order(1)),
    )
    .await;
    let ask = first.next_message().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");

    // At the cap: alice's second call is refused, bob's is served.
    let refused = send(
        addr,
        "POST",
        Some("alice"),
        Some(&alice),
        &[],
        Some(&ship_order(2)),
    )
    .await
    .finish()
    .await;
    assert_eq!(refused.status, 429);
    assert_eq!(refused.header("retry-after"), Some("5"));
    assert_eq!(
        refused.json()["error"]["data"]["limit"],
        "calls in flight for this principal"
    );
    // The call's id is known (the screen kept it): the refusal answers it.
    assert_eq!(refused.json()["id"], 2);
    let bob = open_session(addr, "bob").await;
    let mut served = send(
        addr,
        "POST",
        Some("bob"),
        Some(&bob),
        &[],
        Some(&ship_order(3)),
    )
    .await;
    assert_eq!(served.next_message().await["method"], "elicitation/create");

    // Alice's client goes away mid-call: the call is cancelled at once (the
    // server withdraws its question), and its place is free again.
    let started = std::time::Instant::now();
    drop(first);
    let withdrawn = tokio::time::timeout(std::time::Duration::from_secs(1), async {
        loop {
            let message = listening.next_message().await;
            if message["method"] == "notifications/cancelled" {
                return message;
            }
        }
    })
    .await
    .expect("the question withdrawn within a second");
    assert_eq!(withdrawn["params"]["requestId"], ask["id"], "{withdrawn}");
    let mut again = send(
        addr,
        "POST",
        Some("alice"),
        Some(&alice),
        &[],
        Some(&ship_order(4)),
    )
    .await;
    assert_eq!(again.status, 200);
    assert_eq!(again.next_message().await["method"], "elicitation/create");
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
}
