//! `mrtr_guard::tower::ScreenLayer` (feature `tower`) in front of a recording
//! service, no network: each refusal's HTTP status and JSON-RPC error, and
//! what reaches the service behind.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::{Future, Ready, ready};
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body::{Body, Frame};
use http_body_util::{BodyExt, Full};
use mrtr_guard::json::Limits;
use mrtr_guard::tower::ScreenLayer;
use mrtr_guard::wire::HeaderCheck;
use serde_json::{Value, json};
use tower_layer::Layer;
use tower_service::Service;

/// Everything here is ready at once: poll until done, without a runtime.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..1000 {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
    panic!("future did not complete");
}

/// The service behind the screen: records each request's method and body.
#[derive(Clone, Default)]
struct Recorder {
    seen: Arc<Mutex<Vec<(Method, Bytes)>>>,
}

impl<B> Service<Request<B>> for Recorder
where
    B: Body<Data = Bytes>,
    B::Error: std::fmt::Debug,
{
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let (parts, body) = request.into_parts();
        let bytes = block_on(body.collect()).unwrap().to_bytes();
        self.seen.lock().unwrap().push((parts.method, bytes));
        let mut response = Response::new(Full::new(Bytes::from_static(b"inner")));
        *response.status_mut() = StatusCode::ACCEPTED;
        ready(Ok(response))
    }
}

/// A body in chunks, of unknown length (no `Content-Length`, no size hint).
struct Chunks(VecDeque<Bytes>);

impl Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.0.pop_front().map(|chunk| Ok(Frame::data(chunk))))
    }
}

struct Reply {
    status: StatusCode,
    content_type: Option<String>,
    body: Bytes,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

fn send<B>(layer: &ScreenLayer, recorder: &Recorder, request: Request<B>) -> Reply
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut service = layer.layer(recorder.clone());
    block_on(std::future::poll_fn(|cx| {
        Service::<Request<B>>::poll_ready(&mut service, cx)
    }))
    .unwrap();
    let response = block_on(service.call(request)).unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_owned());
    let body = block_on(response.into_body().collect()).unwrap().to_bytes();
    Reply {
        status,
        content_type,
        body,
    }
}

fn post(body: impl Into<Bytes>) -> Request<Full<Bytes>> {
    Request::post("/mcp")
        .header("content-type", "application/json")
        .body(Full::new(body.into()))
        .unwrap()
}

/// A refused body: the status, a JSON-RPC error response with `id` (with
/// no `id` member when `id` is `null`: the request's id could not be read),
/// and nothing reached the service.
fn refused(reply: &Reply, recorder: &Recorder, status: u16, code: i64, id: &Value) -> Value {
    assert_eq!(reply.status.as_u16(), status);
    assert_eq!(reply.content_type.as_deref(), Some("application/json"));
    let body = reply.json();
    assert_eq!(body["jsonrpc"], "2.0");
    match id {
        Value::Null => assert!(body.get("id").is_none(), "{body}"),
        id => assert_eq!(&body["id"], id),
    }
    assert_eq!(body["error"]["code"], code);
    assert!(
        recorder.seen.lock().unwrap().is_empty(),
        "reached the service"
    );
    body["error"].clone()
}

fn parse_error_detail(layer: &ScreenLayer, body: &'static str) -> String {
    let recorder = Recorder::default();
    let reply = send(layer, &recorder, post(body));
    let error = refused(&reply, &recorder, 400, -32700, &Value::Null);
    assert_eq!(error["message"], "Parse error");
    error["data"]["detail"].as_str().unwrap().to_owned()
}

/// The 2026-07-28 schema's `JSONRPCErrorResponse` has an optional `id` that
/// is a string or an integer, never `null`: a body that does not parse has
/// no id to read, and its refusal has no `id` member.
#[test]
fn a_parse_error_has_no_id_member() {
    let recorder = Recorder::default();
    let reply = send(
        &ScreenLayer::new(),
        &recorder,
        post(r#"{"jsonrpc":"2.0","id":1,"#),
    );
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json();
    let members: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(members, ["error", "jsonrpc"], "{body}");
    assert_eq!(body["error"]["code"], -32700, "{body}");
}

/// An id the request has but that is no JSON-RPC id MCP allows (`null`, a
/// number with a fraction, an object) is not echoed: the refusal has no
/// `id` member. A string or an integer is echoed as it came.
#[test]
fn a_refusal_echoes_only_a_string_or_integer_id() {
    for (id, echoed) in [
        (json!(null), Value::Null),
        (json!(1.5), Value::Null),
        (json!({"n": 1}), Value::Null),
        (json!([1]), Value::Null),
        (json!(true), Value::Null),
        (json!(-3), json!(-3)),
        (json!(u64::MAX), json!(u64::MAX)),
        (json!(""), json!("")),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": "t", "requestState": null}});
        let recorder = Recorder::default();
        let reply = send(&ScreenLayer::new(), &recorder, post(body.to_string()));
        refused(&reply, &recorder, 200, -32602, &echoed);
    }
}

#[test]
fn duplicate_key_is_a_parse_error() {
    let detail = parse_error_detail(
        &ScreenLayer::new(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
    );
    assert!(detail.starts_with("duplicate object key"), "{detail}");
}

#[test]
fn a_key_serde_json_reserves_is_a_parse_error() {
    // `serde_json::Value` would read the arguments as `{}`, the text inside.
    let detail = parse_error_detail(
        &ScreenLayer::new(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"$serde_json::private::RawValue":"{}"}}}"#,
    );
    assert!(
        detail.starts_with("object key reserved by serde_json"),
        "{detail}"
    );
}

#[test]
fn lone_surrogate_is_a_parse_error() {
    let detail = parse_error_detail(
        &ScreenLayer::new(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\ud800"}}"#,
    );
    assert!(detail.starts_with("lone utf-16 surrogate"), "{detail}");
}

#[test]
fn trailing_data_is_a_parse_error() {
    let detail = parse_error_detail(
        &ScreenLayer::new(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"} {"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert!(detail.starts_with("trailing data"), "{detail}");
}

#[test]
fn excessive_depth_is_a_parse_error() {
    let layer = ScreenLayer::new().with_limits(Limits::default().with_max_depth(8));
    let deep: &'static str = Box::leak(
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"x":{}{}}}}}"#,
            "[".repeat(8),
            "]".repeat(8)
        )
        .into_boxed_str(),
    );
    let detail = parse_error_detail(&layer, deep);
    assert!(detail.starts_with("json nests deeper than 8"), "{detail}");
}

#[test]
fn hostile_json_anywhere_in_a_call_is_a_parse_error() {
    // The screen reads only some members of a body; every other byte is
    // checked as strictly: the id, the arguments, an answer, `_meta`, a
    // member no one reads, the envelope's own.
    let fragments = [
        r#"{"a":1,"a":2}"#,
        r#"{"a":1,"\u0061":2}"#,
        r#""\ud800""#,
        "1e400",
        "\"\u{1}\"",
        "[1,]",
        "01",
        // `serde_json`'s reserved keys: `Value` (with `raw_value`, on in this
        // crate) would read the first as the JSON text of its string, so a
        // reader of the body through `Value` (rmcp, a handler, a gateway's
        // log) and the screen's tree would see two different values.
        r#"{"$serde_json::private::RawValue":"{\"a\":1,\"a\":2}"}"#,
        r#"{"\u0024serde_json::private::RawValue":"1"}"#,
        r#"[{"x":{"$serde_json::private::RawValue":"[[[]]]"}}]"#,
        r#"{"$serde_json::private::Number":"1"}"#,
    ];
    let places = [
        r#"{"jsonrpc":"2.0","id":F,"method":"tools/call","params":{"name":"t"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"x":F}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","requestState":"s","inputResponses":{"k":{"action":"accept","content":{"x":F}}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"x":F}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tasks/update","params":{"taskId":"t","inputResponses":{"k":{"action":"accept","content":{"x":F}}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tasks/update","params":{"taskId":"t","inputResponses":{"k":F}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","unread":F}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"unread":F}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"notifications/x","params":{"deep":[F]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":F}}"#,
    ];
    for place in places {
        for fragment in fragments {
            let body: &'static str = Box::leak(place.replace('F', fragment).into_boxed_str());
            let recorder = Recorder::default();
            let reply = send(&ScreenLayer::new(), &recorder, post(body));
            refused(&reply, &recorder, 400, -32700, &Value::Null);
        }
    }
}

#[test]
fn oversize_is_413_whether_declared_or_streamed() {
    let layer = ScreenLayer::new().with_limits(Limits::default().with_max_bytes(64));
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"pad":"{}"}}}}"#,
        "x".repeat(64)
    );
    // A Full body: Content-Length and an exact size hint.
    let recorder = Recorder::default();
    let declared = Request::post("/mcp")
        .header("content-length", big.len().to_string())
        .body(Full::new(Bytes::from(big.clone())))
        .unwrap();
    let reply = send(&layer, &recorder, declared);
    let error = refused(&reply, &recorder, 413, -32600, &Value::Null);
    assert_eq!(
        error,
        json!({"code": -32600, "message": "Request body too large", "data": {"maxBytes": 64}})
    );
    // Chunks of unknown length: refused once the cap is passed.
    let recorder = Recorder::default();
    let chunks: VecDeque<Bytes> = big
        .as_bytes()
        .chunks(16)
        .map(Bytes::copy_from_slice)
        .collect();
    let streamed = Request::post("/mcp").body(Chunks(chunks)).unwrap();
    let reply = send(&layer, &recorder, streamed);
    assert_eq!(refused(&reply, &recorder, 413, -32600, &Value::Null), error);
    // Exactly at the cap is read (and then parsed).
    let at_cap = format!(r#"{{"pad":"{}"}}"#, "x".repeat(64 - 10));
    assert_eq!(at_cap.len(), 64);
    let recorder = Recorder::default();
    let reply = send(&layer, &recorder, post(at_cap));
    assert_eq!(reply.status, StatusCode::ACCEPTED);
}

#[test]
fn a_good_body_reaches_the_service_byte_for_byte() {
    // Spacing, key order and escapes as the client sent them.
    let body = "{ \"jsonrpc\":\"2.0\", \"method\":\"tools/call\",\"id\":7,\n\"params\":{\"name\":\"caf\\u00e9\",\"arguments\":{\"n\":1.50}} }";
    let recorder = Recorder::default();
    let chunks: VecDeque<Bytes> = body
        .as_bytes()
        .chunks(5)
        .map(Bytes::copy_from_slice)
        .collect();
    let request = Request::post("/mcp").body(Chunks(chunks)).unwrap();
    let reply = send(&ScreenLayer::new(), &recorder, request);
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert_eq!(reply.body, Bytes::from_static(b"inner"));
    let seen = recorder.seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0], (Method::POST, Bytes::from_static(body.as_bytes())));
}

#[test]
fn other_methods_pass_through_unread() {
    let layer = ScreenLayer::new().with_limits(Limits::default().with_max_bytes(8));
    for method in [Method::GET, Method::DELETE] {
        let recorder = Recorder::default();
        // Neither JSON nor within the cap: not the screen's business.
        let request = Request::builder()
            .method(method.clone())
            .uri("/mcp")
            .body(Full::new(Bytes::from_static(b"{\"a\":1,\"a\":2} and more")))
            .unwrap();
        let reply = send(&layer, &recorder, request);
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{method}");
        let seen = recorder.seen.lock().unwrap();
        assert_eq!(
            seen.as_slice(),
            [(method, Bytes::from_static(b"{\"a\":1,\"a\":2} and more"))]
        );
    }
}

#[test]
fn header_check_is_opt_in_and_answers_with_the_request_id() {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "ShipOrder",
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let request = |name: &[u8]| {
        Request::post("/mcp")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", http::HeaderValue::from_bytes(name).unwrap())
            .body(Full::new(Bytes::from(body.clone())))
            .unwrap()
    };
    let checked = ScreenLayer::new().with_header_check(HeaderCheck::default());
    // Off: the service behind checks headers (rmcp does).
    let recorder = Recorder::default();
    let reply = send(&ScreenLayer::new(), &recorder, request(b"Other"));
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    // On: a mismatch, and a value that is not visible ASCII.
    for name in [&b"Other"[..], &b"Ship\xffOrder"[..]] {
        let recorder = Recorder::default();
        let reply = send(&checked, &recorder, request(name));
        refused(&reply, &recorder, 400, -32020, &json!(7));
    }
    let recorder = Recorder::default();
    let reply = send(&checked, &recorder, request(b"ShipOrder"));
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert_eq!(recorder.seen.lock().unwrap().len(), 1);
}

#[test]
fn null_retry_fields_are_refused_on_the_three_retry_methods() {
    for (method, params, code) in [
        (
            "prompts/get",
            json!({"name": "p", "inputResponses": null}),
            Some(-32602),
        ),
        (
            "resources/read",
            json!({"uri": "file:///a", "requestState": null}),
            Some(-32602),
        ),
        (
            "tools/call",
            json!({"name": "t", "requestState": 7}),
            Some(-32602),
        ),
        // Not a call that retries: the service behind decides.
        ("tools/list", json!({"requestState": null}), None),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": "r-1", "method": method, "params": params});
        let recorder = Recorder::default();
        let reply = send(&ScreenLayer::new(), &recorder, post(body.to_string()));
        match code {
            Some(code) => {
                refused(&reply, &recorder, 200, code, &json!("r-1"));
            }
            None => assert_eq!(reply.status, StatusCode::ACCEPTED, "{body}"),
        }
    }
}

/// A retry (`requestState` or `inputResponses`) passes only when its
/// `MCP-Protocol-Version` header and its `_meta` both say 2026-07-28 and its
/// `Mcp-Method` and `Mcp-Name` say what its body says, so that a gateway
/// routing, authorising or auditing by the headers sees the round with the
/// side effect. A round 1 from an older client, with no retry field and no
/// header, still passes.
#[test]
fn retries_speak_2026_07_28_with_matching_headers_or_are_refused() {
    let meta = |version: &str| {
        json!({"io.modelcontextprotocol/protocolVersion": version,
               "io.modelcontextprotocol/clientCapabilities": {}})
    };
    let body = |params: Value| {
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}).to_string()
    };
    let retry = |meta: Option<Value>| {
        let mut params = json!({"name": "ShipOrder", "requestState": "s",
            "inputResponses": {"ship": {"action": "accept", "content": {}}}});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        body(params)
    };
    let send_with = |headers: &[(&str, &str)], body: String| {
        let mut request = Request::post("/mcp").header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let recorder = Recorder::default();
        let reply = send(
            &ScreenLayer::new(),
            &recorder,
            request.body(Full::new(Bytes::from(body))).unwrap(),
        );
        (reply, recorder)
    };
    let good = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "ShipOrder"),
    ];
    let foreign = [("mcp-method", "tools/list"), ("mcp-name", "ping")];
    let old = [
        ("mcp-protocol-version", "2025-06-18"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "ShipOrder"),
    ];
    let wrapped_method = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "=?base64?dG9vbHMvY2FsbA==?="),
        ("mcp-name", "ShipOrder"),
    ];
    type Headers<'a> = &'a [(&'a str, &'a str)];
    let refusals: [(Headers<'_>, String, i64); 7] = [
        (&[], retry(Some(meta("2026-07-28"))), -32020),
        (&foreign, retry(Some(meta("2026-07-28"))), -32020),
        (&old, retry(Some(meta("2026-07-28"))), -32022),
        (&good, retry(None), -32602),
        (&good, retry(Some(meta("2025-11-25"))), -32020),
        (&wrapped_method, retry(Some(meta("2026-07-28"))), -32020),
        (
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "Other"),
            ],
            retry(Some(meta("2026-07-28"))),
            -32020,
        ),
    ];
    for (headers, body, code) in refusals {
        let (reply, recorder) = send_with(headers, body.clone());
        refused(&reply, &recorder, 400, code, &json!(9));
    }
    let (reply, recorder) = send_with(&good, retry(Some(meta("2026-07-28"))));
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert_eq!(recorder.seen.lock().unwrap().len(), 1);
    // Round 1 of an older client: no retry field, no header.
    let (reply, recorder) = send_with(&[], body(json!({"name": "ShipOrder"})));
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert_eq!(recorder.seen.lock().unwrap().len(), 1);
}
