//! The README's whole server (`examples/src/bin/minimal_server.rs`), run
//! as its binary on a free loopback port and driven over HTTP: `ShipOrder`
//! asks, then ships; a call without the bearer token gets `401`; a refused
//! state, a replay and an invalid answer each log one line with its reason;
//! `RUST_LOG` picks the targets logged.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::io::Read as _;
use std::net::SocketAddr;
use std::process::{Command, Stdio};

use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::binary::{Running, free_addr, wait_listening};
use super::client::{call, first, is_state_refusal, retry, state_of, text_of};

const TOKEN: &str = "the-token";
const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

/// Starts the binary on a free port with a key and the token, and waits
/// until it accepts connections; its stderr goes to `stderr`.
async fn start(stderr: Stdio) -> (Running, SocketAddr) {
    start_logging(stderr, None).await
}

/// [`start`], with `RUST_LOG` set to `rust_log` (`None`: unset, the
/// binary's default).
async fn start_logging(stderr: Stdio, rust_log: Option<&str>) -> (Running, SocketAddr) {
    let addr = free_addr();
    let mut command = Command::new(env!("CARGO_BIN_EXE_minimal_server"));
    match rust_log {
        Some(filter) => command.env("RUST_LOG", filter),
        None => command.env_remove("RUST_LOG"),
    };
    let child = command
        .env("MRTR_GUARD_KEY", KEY)
        .env("MCP_TOKEN", TOKEN)
        .env("PORT", addr.port().to_string())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut server = Running(child);
    wait_listening(&mut server, addr).await;
    (server, addr)
}

/// Stops `server` and returns what it wrote to its (piped) stderr.
fn log_of(mut server: Running) -> String {
    let _ = server.0.kill();
    let mut log = String::new();
    server
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    log
}

#[tokio::test]
async fn the_readme_server_asks_then_ships_over_http() {
    let (_server, addr) = start(Stdio::null()).await;
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
    let (_server, addr) = start(Stdio::null()).await;
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

/// With nothing but the README's set-up (its subscriber line), a refused
/// state, a replay and an invalid answer each log one line to stderr, each
/// with its own reason, and no line holds a state or a submitted value.
#[tokio::test]
async fn the_readme_server_logs_each_refusal_once_with_its_reason() {
    let (server, addr) = start(Stdio::piped()).await;
    let asked = call(addr, TOKEN, "ShipOrder", &first("ShipOrder")).await;
    let first_state = state_of(&asked).unwrap();
    let answer = |number: &str| json!({"ship": {"action": "accept", "content": {"tracking_number": number}}});

    // Too long for the form (max_length 64): asked again.
    let too_long = "V".repeat(65);
    let params = retry("ShipOrder", answer(&too_long), &first_state);
    let reasked = call(addr, TOKEN, "ShipOrder", &params).await;
    let state = state_of(&reasked).unwrap();

    // The state with one character changed: forged.
    let mut chars: Vec<char> = state.chars().collect();
    let middle = chars.len() / 2;
    chars[middle] = if chars[middle] == 'A' { 'B' } else { 'A' };
    let tampered: String = chars.into_iter().collect();
    let params = retry("ShipOrder", answer("1Z999"), &tampered);
    let refused = call(addr, TOKEN, "ShipOrder", &params).await;
    assert!(is_state_refusal(&refused), "{refused}");

    // Shipped, then the same retry again: replayed (refused by the guard,
    // and logged; the client gets back what the first retry got, and the
    // order is not shipped twice).
    let params = retry("ShipOrder", answer("1Z999"), &state);
    let done = call(addr, TOKEN, "ShipOrder", &params).await;
    assert_eq!(text_of(&done), Some("Shipped as 1Z999."), "{done}");
    let replayed = call(addr, TOKEN, "ShipOrder", &params).await;
    assert_eq!(replayed, done);

    let log = log_of(server);
    let lines: Vec<&str> = log
        .lines()
        .filter(|line| line.contains(" reason=\""))
        .collect();
    assert_eq!(lines.len(), 3, "{log}");
    for (line, reason, level) in [
        (lines[0], "invalid_answer", "INFO"),
        (lines[1], "forged", "WARN"),
        (lines[2], "replayed", "WARN"),
    ] {
        assert!(line.contains(&format!("reason=\"{reason}\"")), "{line}");
        assert!(line.contains(level), "{line}");
    }
    assert!(
        lines[0].contains("tracking_number:too_long"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("another user, tool, arguments"),
        "{}",
        lines[1]
    );
    for value in [&too_long[..8], "1Z999"] {
        assert!(!log.contains(value), "{value} in {log}");
    }
    for token in [&first_state, &state, &tampered] {
        for at in 0..token.len() - 12 {
            let window = &token[at..at + 12];
            assert!(!log.contains(window), "state text {window:?} in {log}");
        }
    }
}

/// `RUST_LOG` takes effect: with `mrtr_guard=info,rmcp=warn` (as the README
/// runs it) mrtr-guard's line for an invalid answer is logged and none of
/// the `INFO` lines `rmcp` logs for each request; with `rmcp=info`, those
/// and not mrtr-guard's.
#[tokio::test]
async fn rust_log_picks_what_the_readme_server_logs() {
    for (rust_log, ours, rmcp_info) in [
        ("mrtr_guard=info,rmcp=warn", true, false),
        ("rmcp=info", false, true),
    ] {
        let (server, addr) = start_logging(Stdio::piped(), Some(rust_log)).await;
        let asked = call(addr, TOKEN, "ShipOrder", &first("ShipOrder")).await;
        let empty = json!({"ship": {"action": "accept", "content": {"tracking_number": ""}}});
        let params = retry("ShipOrder", empty, &state_of(&asked).unwrap());
        let reasked = call(addr, TOKEN, "ShipOrder", &params).await;
        assert!(state_of(&reasked).is_some(), "{reasked}");
        let log = log_of(server);
        // Whether `line` is an event of `target` (or a module under it).
        let from = |line: &str, target: &str| line.split(' ').any(|word| word.starts_with(target));
        let invalid = log
            .lines()
            .any(|line| from(line, "mrtr_guard::runtime") && line.contains("invalid_answer"));
        let rmcp = log
            .lines()
            .filter(|line| line.contains(" INFO ") && from(line, "rmcp::"))
            .count();
        assert_eq!(invalid, ours, "RUST_LOG={rust_log}: {log}");
        assert_eq!(rmcp > 0, rmcp_info, "RUST_LOG={rust_log}: {log}");
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
