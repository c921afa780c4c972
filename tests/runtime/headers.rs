//! The Streamable HTTP header checks, one test per way a request can
//! disagree with its headers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use mrtr_guard::RpcError;
use mrtr_guard::json::Limits;
use mrtr_guard::wire::{HeaderCheck, check_headers, screen_body};
use serde_json::{Value, json};

fn call(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": name, "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
}

const GOOD: [(&str, &str); 3] = [
    ("MCP-Protocol-Version", "2026-07-28"),
    ("Mcp-Method", "tools/call"),
    ("Mcp-Name", "ShipOrder"),
];

fn with(replace: &str, value: Option<&'static str>) -> Vec<(&'static str, &'static str)> {
    let mut headers: Vec<_> = GOOD
        .iter()
        .copied()
        .filter(|(n, _)| !n.eq_ignore_ascii_case(replace))
        .collect();
    if let Some(value) = value {
        let name = GOOD
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(replace))
            .unwrap()
            .0;
        headers.push((name, value));
    }
    headers
}

fn check(headers: &[(&str, &str)], body: &Value) -> Result<(), RpcError> {
    check_headers(headers.iter().copied(), body)
}

fn mismatch(result: Result<(), RpcError>) {
    let error = result.unwrap_err();
    assert_eq!(
        (error.code(), error.http_status()),
        (-32020, 400),
        "{error}"
    );
}

#[test]
fn matching_headers_pass_whatever_the_name_case() {
    assert_eq!(check(&GOOD, &call("ShipOrder")), Ok(()));
    let lower: Vec<_> = [
        ("mcp-protocol-version", "2026-07-28"),
        ("MCP-METHOD", "tools/call"),
        ("mcp-name", " ShipOrder "),
    ]
    .to_vec();
    assert_eq!(check(&lower, &call("ShipOrder")), Ok(()));
}

#[test]
fn protocol_version_missing() {
    mismatch(check(
        &with("MCP-Protocol-Version", None),
        &call("ShipOrder"),
    ));
}

#[test]
fn protocol_version_differs_from_meta() {
    let check = HeaderCheck::with_versions(["2026-07-28", "2026-12-01"]);
    mismatch(check.check(
        with("MCP-Protocol-Version", Some("2026-12-01")),
        &call("ShipOrder"),
    ));
}

#[test]
fn protocol_version_unsupported() {
    let error = check(
        &with("MCP-Protocol-Version", Some("2099-01-01")),
        &call("ShipOrder"),
    )
    .unwrap_err();
    assert_eq!((error.code(), error.http_status()), (-32022, 400));
    assert_eq!(
        error.data(),
        Some(&json!({"supported": ["2026-07-28"], "requested": "2099-01-01"}))
    );
}

#[test]
fn method_missing_or_different() {
    mismatch(check(&with("Mcp-Method", None), &call("ShipOrder")));
    mismatch(check(
        &with("Mcp-Method", Some("tools/list")),
        &call("ShipOrder"),
    ));
    mismatch(check(
        &with("Mcp-Method", Some("Tools/Call")),
        &call("ShipOrder"),
    ));
}

#[test]
fn name_missing_or_different() {
    mismatch(check(&with("Mcp-Name", None), &call("ShipOrder")));
    mismatch(check(
        &with("Mcp-Name", Some("shiporder")),
        &call("ShipOrder"),
    ));
    mismatch(check(&with("Mcp-Name", Some("signup")), &call("ShipOrder")));
}

#[test]
fn name_in_base64_form() {
    // "Grüße" is not plain ASCII, so a client must wrap it.
    let body = call("Grüße");
    assert_eq!(
        check(&with("Mcp-Name", Some("=?base64?R3LDvMOfZQ==?=")), &body),
        Ok(())
    );
    mismatch(check(
        &with("Mcp-Name", Some("=?base64?R3LDvMOfZQ?=")),
        &body,
    )); // padding
    mismatch(check(
        &with("Mcp-Name", Some("=?base64?R3LD!!vMOfZQ==?=")),
        &body,
    )); // alphabet
    mismatch(check(
        &with("Mcp-Name", Some("=?base64?U2hpcE9yZGVy?=")),
        &body,
    )); // another name
    // A plain value shaped like the sentinel is compared literally only if not wrapped.
    mismatch(check(&with("Mcp-Name", Some("Grüße")), &body)); // raw non-ASCII
}

#[test]
fn a_header_sent_twice_or_with_control_characters() {
    let mut twice = GOOD.to_vec();
    twice.push(("mcp-name", "ShipOrder"));
    mismatch(check(&twice, &call("ShipOrder")));
    mismatch(check(
        &with("Mcp-Name", Some("Ship\u{7}Order")),
        &call("ShipOrder"),
    ));
}

#[test]
fn missing_meta_is_invalid_params_400() {
    let mut body = call("ShipOrder");
    body["params"].as_object_mut().unwrap().remove("_meta");
    let error = check(&GOOD, &body).unwrap_err();
    assert_eq!((error.code(), error.http_status()), (-32602, 400));
    let mut body = call("ShipOrder");
    body["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let error = check(&GOOD, &body).unwrap_err();
    assert_eq!((error.code(), error.http_status()), (-32602, 400));
}

#[test]
fn duplicate_keys_in_the_body_are_refused_before_parsing() {
    let body =
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#;
    let error = screen_body(body, &Limits::default()).unwrap_err();
    assert_eq!((error.code(), error.http_status()), (-32700, 400));
    assert!(
        !error.to_json().to_string().contains("\"b\""),
        "no input echoed"
    );
}
