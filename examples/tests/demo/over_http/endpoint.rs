//! The demo's endpoint as a client and its model see it: the tools it
//! lists, and the one path it serves.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;

use mrtr_guard::{MasterKey, StateCodec};
use mrtr_guard_examples::signup_service::Signup;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::client::meta;
use super::server::on_loopback;

/// Serves the demo on a free loopback port of the current runtime.
async fn start() -> SocketAddr {
    let key = MasterKey::from_bytes(&[0x42; 32]).unwrap();
    let codec = StateCodec::builder("http://mcp.test/mcp", key)
        .build()
        .unwrap();
    on_loopback(Signup::service(codec).unwrap()).await
}

/// Sends `method` (with a JSON-RPC body when `body` is given) to `path`;
/// the status code and the body.
async fn send(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
    let mcp_method = body
        .and_then(|body| body["method"].as_str())
        .unwrap_or("none");
    let body = body.map(Value::to_string).unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {mcp_method}\r\nAuthorization: Bearer ada\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let response = String::from_utf8_lossy(&response).into_owned();
    let status = response[9..12].parse().unwrap();
    (status, response)
}

/// The tools the demo lists.
async fn tools(addr: SocketAddr) -> Vec<Value> {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                      "params": {"_meta": meta()}});
    let (status, response) = send(addr, "POST", "/mcp", Some(&list)).await;
    assert_eq!(status, 200, "{response}");
    let reply = super::client::json_body(response.as_bytes());
    reply["result"]["tools"].as_array().unwrap().clone()
}

/// Every client hands the tool descriptions to its model: `ping`'s says
/// what the tool does, and nothing about this repository's scripts.
#[tokio::test]
async fn ping_is_described_for_a_model() {
    let tools = tools(start().await).await;
    let ping = tools.iter().find(|tool| tool["name"] == "ping").unwrap();
    let description = ping["description"].as_str().unwrap();
    assert!(description.contains("pong"), "{description}");
    for word in ["loadbench", "scripts/", "baseline", "`"] {
        assert!(!description.contains(word), "{description}");
    }
}

/// The endpoint is `/mcp` and nothing below it: a client probing
/// `/mcp/.well-known/oauth-protected-resource` (RFC 9728's path-suffixed
/// form) gets 404, not the MCP endpoint's 406.
#[tokio::test]
async fn only_mcp_itself_is_the_endpoint() {
    let addr = start().await;
    for path in [
        "/mcp/.well-known/oauth-protected-resource",
        "/mcp/",
        "/mcp/anything",
        "/",
        "/mcpx",
    ] {
        let (status, response) = send(addr, "GET", path, None).await;
        assert_eq!(status, 404, "GET {path}: {response}");
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let (status, response) = send(addr, "POST", path, Some(&ping)).await;
        assert_eq!(status, 404, "POST {path}: {response}");
    }
    assert!(!tools(addr).await.is_empty());
}
