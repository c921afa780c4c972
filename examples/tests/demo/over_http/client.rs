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
async fn exchange(
    addr: SocketAddr,
    user: &str,
    method: &str,
    name: &str,
    params: &Value,
) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let body = body.to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\nMcp-Name: {name}\r\nAuthorization: Bearer {user}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    response
}

/// The JSON body of an HTTP/1.1 response read to its end.
pub fn json_body(response: &[u8]) -> Value {
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete response head");
    let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let body = &response[split + 4..];
    let body = if head.contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        body.to_vec()
    };
    serde_json::from_slice(&body).unwrap()
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
    let response = exchange(addr, user, method, name, params).await;
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
    let value = serde_json::from_slice(&body).unwrap_or_else(|_| panic!("{head}"));
    (head, value)
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
