//! The signup demo's opt-in Prometheus exporter, run as its binary: with
//! `MRTR_GUARD_METRICS_ADDR` it serves the counters mrtr-guard records on an
//! address of its own, and they move with the calls the server answers.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;
use std::process::{Command, Stdio};

use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::binary::{Running, free_addr, wait_listening};
use super::client::{call, first, is_state_refusal, retry, rpc, state_of, task_meta};

/// The exporter's text, read with one `GET /metrics`.
async fn scrape(addr: SocketAddr) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    response
}

/// The value of the series written exactly as `series`, if it is there.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map(|value| value.parse().unwrap())
}

#[tokio::test]
async fn the_demo_serves_its_counters_when_asked() {
    let (mcp, metrics) = (free_addr(), free_addr());
    let child = Command::new(env!("CARGO_BIN_EXE_signup_server"))
        .env_remove("MRTR_GUARD_REDIS_URL")
        .env("PORT", mcp.port().to_string())
        .env("MRTR_GUARD_METRICS_ADDR", metrics.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut server = Running(child);
    wait_listening(&mut server, mcp).await;
    wait_listening(&mut server, metrics).await;

    // One re-ask, one flow completed, one state refused.
    let asked = call(mcp, "ada", "ShipOrder", &first("ShipOrder")).await;
    let answer =
        |number: &str| json!({"ship": {"action": "accept", "content": {"trackingNumber": number}}});
    let params = retry("ShipOrder", answer(""), &state_of(&asked).unwrap());
    let reasked = call(mcp, "ada", "ShipOrder", &params).await;
    let params = retry("ShipOrder", answer("1Z999"), &state_of(&reasked).unwrap());
    call(mcp, "ada", "ShipOrder", &params).await;
    let refused = call(
        mcp,
        "ada",
        "ShipOrder",
        &retry("ShipOrder", json!({}), "not base64!"),
    )
    .await;
    assert!(is_state_refusal(&refused), "{refused}");

    // One task created, then cancelled.
    let export = |responses: Option<(serde_json::Value, String)>| {
        let mut params = json!({"name": "export_orders", "arguments": {"format": "csv"},
                                "_meta": task_meta()});
        if let Some((answers, state)) = responses {
            params["inputResponses"] = answers;
            params["requestState"] = json!(state);
        }
        params
    };
    let asked = rpc(mcp, "ada", "tools/call", "export_orders", &export(None)).await;
    let range = json!({"range": {"action": "accept",
                                 "content": {"from": "2026-01-01", "to": "2026-01-31"}}});
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let created = rpc(
        mcp,
        "ada",
        "tools/call",
        "export_orders",
        &export(Some((range, state))),
    )
    .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let cancel = json!({"taskId": id, "_meta": task_meta()});
    rpc(mcp, "ada", "tasks/cancel", &id, &cancel).await;

    let text = scrape(metrics).await;
    let working = r#"mrtr_guard_tasks_total{status="working"}"#;
    assert_eq!(value(&text, working), Some(1.0), "{text}");
    let cancelled = r#"mrtr_guard_tasks_total{status="cancelled"}"#;
    assert_eq!(value(&text, cancelled), Some(1.0), "{text}");
    assert_eq!(value(&text, "mrtr_guard_reasks_total"), Some(1.0), "{text}");
    let completed = r#"mrtr_guard_flows_ended_total{end="completed"}"#;
    assert_eq!(value(&text, completed), Some(1.0), "{text}");
    let malformed = r#"mrtr_guard_state_refused_total{reason="malformed"}"#;
    assert_eq!(value(&text, malformed), Some(1.0), "{text}");
    assert!(
        text.contains("# HELP mrtr_guard_state_refused_total "),
        "described: {text}"
    );
}

/// Without the variable, no exporter: the address is not listened on.
#[tokio::test]
async fn the_demo_serves_no_metrics_unless_asked() {
    let mcp = free_addr();
    let child = Command::new(env!("CARGO_BIN_EXE_signup_server"))
        .env_remove("MRTR_GUARD_REDIS_URL")
        .env_remove("MRTR_GUARD_METRICS_ADDR")
        .env("PORT", mcp.port().to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut server = Running(child);
    wait_listening(&mut server, mcp).await;
    let _ = server.0.kill();
    let mut log = String::new();
    let mut stderr = server.0.stderr.take().unwrap();
    std::io::Read::read_to_string(&mut stderr, &mut log).unwrap();
    assert!(log.contains("listening on"), "{log}");
    assert!(!log.contains("metrics on"), "{log}");
}
