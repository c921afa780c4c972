//! The README's whole server (`examples/src/bin/minimal_server.rs`), run
//! as its binary on a free loopback port and driven over HTTP: `ShipOrder`
//! asks, then ships; a call without the bearer token gets `401`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::client::{call, first, retry, state_of, text_of};

const TOKEN: &str = "the-token";
const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

/// The running binary, killed when the test ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the binary on a free port with a key and the token, and waits
/// until it accepts connections.
async fn start() -> (Server, SocketAddr) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(env!("CARGO_BIN_EXE_minimal_server"))
        .env("MRTR_GUARD_KEY", KEY)
        .env("MCP_TOKEN", TOKEN)
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut server = Server(child);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    for _ in 0..200 {
        if TcpStream::connect(addr).await.is_ok() {
            return (server, addr);
        }
        if let Some(status) = server.0.try_wait().unwrap() {
            panic!("minimal_server exited: {status}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("minimal_server did not listen on {addr}");
}

#[tokio::test]
async fn the_readme_server_asks_then_ships_over_http() {
    let (_server, addr) = start().await;
    let asked = call(addr, TOKEN, "ShipOrder", &first("ShipOrder")).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let ask = &asked["result"]["inputRequests"]["ship"]["params"];
    assert_eq!(ask["message"], "Where should we ship the order?");
    let state = state_of(&asked).unwrap();
    let answer = json!({"ship": {"action": "accept",
        "content": {"tracking_number": "1Z999"}}});
    let params = retry("ShipOrder", answer, &state);
    let done = call(addr, TOKEN, "ShipOrder", &params).await;
    assert_eq!(text_of(&done), Some("Shipped as 1Z999."), "{done}");
}

#[tokio::test]
async fn the_readme_server_refuses_a_call_without_the_token() {
    let (_server, addr) = start().await;
    for authorization in ["", "Authorization: Bearer not-the-token\r\n"] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": first("ShipOrder")})
        .to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n\
             MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n\
             Mcp-Name: ShipOrder\r\n{authorization}Content-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        let head = String::from_utf8_lossy(&response);
        assert!(head.starts_with("HTTP/1.1 401"), "{head}");
    }
}

/// Without a key the binary stops before it listens, with the message.
#[test]
fn the_readme_server_says_what_to_set() {
    let output = Command::new(env!("CARGO_BIN_EXE_minimal_server"))
        .env_remove("MRTR_GUARD_KEY")
        .env("MCP_TOKEN", TOKEN)
        .env("PORT", "1")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: set MRTR_GUARD_KEY\n"
    );
}
