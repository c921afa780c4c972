//! A few lines of HTTP/1.1 over tokio's `TcpStream`, one connection per
//! request (`Connection: close`), for the tests that drive the demo server
//! over real HTTP: no client crate to build, and two presentations of a
//! state never share a connection.

#![allow(dead_code, unreachable_pub, reason = "each test file uses part of it")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// One `tools/call` of `tool` by `user`, as the README's curl sends it, and
/// the JSON-RPC answer (of an HTTP 200).
pub async fn call(addr: SocketAddr, user: &str, tool: &str, params: &Value) -> Value {
    json_body(&exchange(addr, user, "tools/call", tool, params).await)
}

/// One JSON-RPC request `method` with `params` by `user`, its `Mcp-Name`
/// header `name`, and the raw HTTP/1.1 response.
pub async fn exchange(
    addr: SocketAddr,
    user: &str,
    method: &str,
    name: &str,
    params: &Value,
) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let bearer = format!("Bearer {user}");
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
        ("Mcp-Name", name),
        ("Authorization", &bearer),
    ];
    exchange_raw(addr, &headers, body.to_string().as_bytes()).await
}

/// One `POST /mcp` of `body`, any bytes, with `Content-Type` and `Accept` as
/// a Streamable HTTP client sends them and `headers` (a `Host` among them
/// instead of `addr`); the raw HTTP/1.1 response.
pub async fn exchange_raw(addr: SocketAddr, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let host = headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"));
    let host = if host {
        String::new()
    } else {
        format!("Host: {addr}\r\n")
    };
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\n{host}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    response
}

/// The status and the JSON body of an HTTP/1.1 response read to its end,
/// whatever the status.
pub fn status_and_json(response: &[u8]) -> (u16, Value) {
    let (head, json) = head_and_json(response);
    (head[9..12].parse().unwrap(), json)
}

/// An HTTP/1.1 response read to its end: its head (status line and
/// headers, lower-cased) and its JSON body.
pub fn head_and_json(response: &[u8]) -> (String, Value) {
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response head");
    let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
    let body = &response[split + 4..];
    let body = if head.contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_vec()
    };
    let json = serde_json::from_slice(&body).unwrap_or_else(|_| panic!("{head}"));
    (head, json)
}

/// The JSON body of an HTTP/1.1 response read to its end, which must be
/// an HTTP 200.
pub fn json_body(response: &[u8]) -> Value {
    let (status, json) = status_and_json(response);
    assert_eq!(status, 200, "{json}");
    json
}

pub fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line = body.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = std::str::from_utf8(&body[..line]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[line + 2..line + 2 + size]);
        body = &body[line + 2 + size + 2..];
    }
}

pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    })
}

/// Round 1: no state.
pub fn first(tool: &str) -> Value {
    json!({"name": tool, "arguments": {}, "_meta": meta()})
}

/// A retry: answers and the state.
pub fn retry(tool: &str, responses: Value, state: &str) -> Value {
    json!({"name": tool, "arguments": {}, "inputResponses": responses,
           "requestState": state, "_meta": meta()})
}

/// The state of an `input_required` answer.
pub fn state_of(answer: &Value) -> Option<String> {
    let result = answer.get("result")?;
    (result["resultType"] == "input_required")
        .then(|| result["requestState"].as_str().map(str::to_owned))
        .flatten()
}

pub fn is_state_refusal(answer: &Value) -> bool {
    answer["error"]["code"] == -32602
        && answer["error"]["data"]["reason"] == "invalid_request_state"
}

pub fn text_of(answer: &Value) -> Option<&str> {
    let result = answer.get("result")?;
    (result["resultType"] == "complete")
        .then(|| result["content"][0]["text"].as_str())
        .flatten()
}

/// One JSON-RPC request `method` with `params` by `user`, its `Mcp-Name`
/// header `name`, and the answer, whatever the HTTP status.
pub async fn rpc(addr: SocketAddr, user: &str, method: &str, name: &str, params: &Value) -> Value {
    rpc_with_head(addr, user, method, name, params).await.1
}

/// [`rpc`], with the response's head (status line and headers, lower-cased).
pub async fn rpc_with_head(
    addr: SocketAddr,
    user: &str,
    method: &str,
    name: &str,
    params: &Value,
) -> (String, Value) {
    head_and_json(&exchange(addr, user, method, name, params).await)
}

/// `_meta` of a request that declares the Tasks extension.
pub fn task_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
    })
}
