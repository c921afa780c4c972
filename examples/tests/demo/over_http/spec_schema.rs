//! Every message the demo answers a `2026-07-28` client with validates
//! against the specification's own schema: `schema/2026-07-28/schema.json`
//! of modelcontextprotocol/modelcontextprotocol (JSON Schema 2020-12),
//! copied with its licence in `tests/data/mcp-schema/`. Each response is
//! checked against the `$defs` entry the specification gives it (the
//! method's `*ResultResponse`, or `JSONRPCErrorResponse`) and its result or
//! error against the entry of its kind (`CallToolResult`,
//! `InputRequiredResult`, `ParseError`, `HeaderMismatchError`...): a
//! `*ResultResponse` takes an `InputRequiredResult` (all of whose members
//! are optional but `resultType`) for any result, so the envelope alone
//! would pass a malformed `CallToolResult`.
//!
//! The Tasks extension's types are not in the core schema: its messages are
//! checked as the core schema has them (the envelope, `Result`, and what a
//! task carries: `InputRequests`, a `CallToolResult`, an `Error`), and
//! their members as the extension names them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mrtr_guard::json::Limits;
use mrtr_guard::runtime::FixedClock;
use mrtr_guard::{Flow, MasterKey, StateCodec};
use mrtr_guard_examples::signup_service::Signup;
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::client::{exchange_raw, first, meta, retry, rpc, state_of, status_and_json, task_meta};
use super::server::on_loopback;
use super::tasks::{self, AUDIENCE, create, get, outstanding, refunds, settled, update};

/// The specification's schema, as copied.
const SCHEMA: &str = include_str!("../../../../tests/data/mcp-schema/schema.json");

/// The schema, parsed; `check` validates a message against one of its
/// `$defs`.
struct Spec {
    schema: Value,
}

impl Spec {
    fn new() -> Self {
        Self {
            schema: serde_json::from_str(SCHEMA).unwrap(),
        }
    }

    /// Every way `message` is not a `def`, one line each (empty: it is
    /// one). Formats (`uri`, ...) are checked too.
    fn errors(&self, def: &str, message: &Value) -> Vec<String> {
        assert!(
            self.schema["$defs"].get(def).is_some(),
            "the schema has no {def}"
        );
        let mut schema = self.schema.clone();
        schema["$ref"] = json!(format!("#/$defs/{def}"));
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap_or_else(|e| panic!("{def}: {e}"));
        validator
            .iter_errors(message)
            .map(|error| format!("{}: {error}", error.instance_path()))
            .collect()
    }

    /// Panics unless `message` is a `def`; `what` names it.
    fn check(&self, what: &str, def: &str, message: &Value) {
        let errors = self.errors(def, message);
        assert!(
            errors.is_empty(),
            "{what} is not a {def}:\n{}\n{message:#}",
            errors.join("\n")
        );
    }

    /// A result response that is an `envelope` (the method's
    /// `*ResultResponse`), whose result is a `result`.
    fn result(&self, what: &str, response: &Value, envelope: &str, result: &str) {
        self.check(what, envelope, response);
        self.check(what, result, &response["result"]);
    }

    /// An error response whose error is an `error` (an error object's def,
    /// such as `ParseError`), with `id` as the request's or, for `None`, no
    /// `id` member.
    fn error(&self, what: &str, response: &Value, error: &str, id: Option<i64>) {
        self.check(what, "JSONRPCErrorResponse", response);
        self.check(what, error, &response["error"]);
        match id {
            Some(id) => assert_eq!(response["id"], id, "{what}: {response}"),
            None => assert!(response.get("id").is_none(), "{what}: {response}"),
        }
    }
}

/// `tools/call` of `tool` with `params` by ada, as the client sends it.
async fn call(addr: SocketAddr, tool: &str, params: &Value) -> Value {
    rpc(addr, "ada", "tools/call", tool, params).await
}

/// `body` POSTed with `headers`: the HTTP status and the JSON-RPC answer.
async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &[u8]) -> (u16, Value) {
    status_and_json(&exchange_raw(addr, headers, body).await)
}

/// The headers of ada's 2026-07-28 `tools/call` of `ShipOrder`.
const SHIP_ORDER: [(&str, &str); 4] = [
    ("MCP-Protocol-Version", "2026-07-28"),
    ("Mcp-Method", "tools/call"),
    ("Mcp-Name", "ShipOrder"),
    ("Authorization", "Bearer ada"),
];

/// A request with id 7.
fn request(method: &str, params: &Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

fn ship(tracking: &Value) -> Value {
    json!({"ship": {"action": "accept", "content": {"trackingNumber": tracking}}})
}

/// An `input_required` result: the schema has every member optional but
/// `resultType`; the specification adds that it has `inputRequests` or
/// `requestState`, and the demo's has both.
fn asks(spec: &Spec, what: &str, response: &Value) -> String {
    spec.result(
        what,
        response,
        "CallToolResultResponse",
        "InputRequiredResult",
    );
    let result = &response["result"];
    assert_eq!(result["resultType"], "input_required", "{what}: {response}");
    spec.check(what, "InputRequests", &result["inputRequests"]);
    assert!(
        !result["inputRequests"].as_object().unwrap().is_empty(),
        "{what}: {response}"
    );
    state_of(response).unwrap_or_else(|| panic!("{what}: no requestState: {response}"))
}

/// A complete `tools/call` result.
fn completes(spec: &Spec, what: &str, response: &Value) {
    spec.result(what, response, "CallToolResultResponse", "CallToolResult");
    assert_eq!(
        response["result"]["resultType"], "complete",
        "{what}: {response}"
    );
}

/// The check can fail: what the schema refuses, it refuses, so a message
/// that passes below passes for a reason.
#[test]
fn the_check_refuses_what_the_schema_refuses() {
    let spec = Spec::new();
    let error = json!({"code": -32700, "message": "Parse error"});
    let refused = [
        // `id` is optional and never `null`.
        (
            "JSONRPCErrorResponse",
            json!({"jsonrpc": "2.0", "id": null, "error": error}),
        ),
        (
            "ParseError",
            json!({"code": -32600, "message": "Parse error"}),
        ),
        (
            "CallToolResult",
            json!({"resultType": "complete", "content": "pong"}),
        ),
        ("Result", json!({})),
        (
            "ListToolsResultResponse",
            json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "tools": []}}),
        ),
        (
            "InputRequests",
            json!({"k": {"method": "elicitation/create", "params": {"message": "m"}}}),
        ),
        (
            "Implementation",
            json!({"name": "n", "version": "1", "websiteUrl": "not a uri"}),
        ),
    ];
    for (def, message) in refused {
        assert!(!spec.errors(def, &message).is_empty(), "{def}: {message}");
    }
    let accepted = json!({"jsonrpc": "2.0", "error": error});
    spec.check("an error without id", "JSONRPCErrorResponse", &accepted);
}

/// `server/discover` and `tools/list`.
#[tokio::test]
async fn discovery_and_the_tool_list_validate() {
    let spec = Spec::new();
    let addr = tasks::start().await;
    let params = json!({"_meta": meta()});
    let discovered = rpc(addr, "ada", "server/discover", "", &params).await;
    spec.result(
        "server/discover",
        &discovered,
        "DiscoverResultResponse",
        "DiscoverResult",
    );
    let listed = rpc(addr, "ada", "tools/list", "", &params).await;
    spec.result(
        "tools/list",
        &listed,
        "ListToolsResultResponse",
        "ListToolsResult",
    );
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
}

/// Every round of the demo's tools: each form it asks (ShipOrder's,
/// signup's three, export's range), a re-ask after an invalid answer, each
/// complete result, a decline's, and the tool error after three invalid
/// answers.
#[tokio::test]
async fn every_round_of_the_demo_tools_validates() {
    let spec = Spec::new();
    let addr = tasks::start().await;

    completes(&spec, "ping", &call(addr, "ping", &first("ping")).await);

    // weather_report: a URL-mode connect link, and the link asked again
    // after an accept the step did not back.
    let url_meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}},
    });
    let weather =
        json!({"name": "weather_report", "arguments": {"city": "Oslo"}, "_meta": url_meta});
    let state = asks(
        &spec,
        "weather_report's connect link",
        &call(addr, "weather_report", &weather).await,
    );
    let mut accepted = weather.clone();
    accepted["inputResponses"] = json!({"weather-key": {"action": "accept"}});
    accepted["requestState"] = json!(state);
    asks(
        &spec,
        "weather_report's link asked again",
        &call(addr, "weather_report", &accepted).await,
    );

    let asked = call(addr, "ShipOrder", &first("ShipOrder")).await;
    let state = asks(&spec, "ShipOrder's ask", &asked);
    let shipped = call(
        addr,
        "ShipOrder",
        &retry("ShipOrder", ship(&json!("1Z9")), &state),
    )
    .await;
    completes(&spec, "ShipOrder shipped", &shipped);

    let mut state = asks(
        &spec,
        "ShipOrder's ask",
        &call(addr, "ShipOrder", &first("ShipOrder")).await,
    );
    for strike in 1..=2 {
        let params = retry("ShipOrder", ship(&json!("")), &state);
        let reasked = call(addr, "ShipOrder", &params).await;
        state = asks(&spec, &format!("ShipOrder's re-ask {strike}"), &reasked);
    }
    let params = retry("ShipOrder", ship(&json!("")), &state);
    let failed = call(addr, "ShipOrder", &params).await;
    completes(&spec, "ShipOrder after three invalid answers", &failed);
    assert_eq!(failed["result"]["isError"], true, "{failed}");

    let state = asks(
        &spec,
        "ShipOrder's ask",
        &call(addr, "ShipOrder", &first("ShipOrder")).await,
    );
    let declined = json!({"ship": {"action": "decline"}});
    let params = retry("ShipOrder", declined, &state);
    completes(
        &spec,
        "ShipOrder declined",
        &call(addr, "ShipOrder", &params).await,
    );

    // signup: the account form, the team form (team plan), the confirmation
    // (a form without fields), then the account.
    let mut answers = json!({});
    let mut state = asks(
        &spec,
        "signup's account form",
        &call(addr, "signup", &first("signup")).await,
    );
    for (key, content) in [
        (
            "account",
            json!({"email": "ada@example.com", "plan": "team"}),
        ),
        ("team", json!({"teamSize": 5, "roles": ["admin", "member"]})),
    ] {
        answers[key] = json!({"action": "accept", "content": content});
        let round = call(addr, "signup", &retry("signup", answers.clone(), &state)).await;
        state = asks(&spec, &format!("signup after {key}"), &round);
    }
    answers["confirm"] = json!({"action": "accept", "content": {}});
    let done = call(addr, "signup", &retry("signup", answers, &state)).await;
    completes(&spec, "signup done", &done);
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Account created"), "{done}");

    let export = json!({"name": "export_orders", "arguments": {"format": "csv"}, "_meta": meta()});
    asks(
        &spec,
        "export_orders' range",
        &call(addr, "export_orders", &export).await,
    );
}

/// Every error the demo answers a 2026-07-28 client with, from the screen,
/// from the library's rounds and from `rmcp`.
#[tokio::test]
async fn every_error_the_demo_answers_validates() {
    let spec = Spec::new();
    let addr = tasks::start().await;
    let ship_order = request("tools/call", &first("ShipOrder"));

    // The screen: a body that does not parse has no id to answer.
    let (status, parse) = post(addr, &SHIP_ORDER, br#"{"jsonrpc":"2.0","id":7,"#).await;
    assert_eq!(status, 400);
    spec.error("a parse error", &parse, "ParseError", None);

    let small = tasks::codec();
    let limits = Limits::default().with_max_bytes(256);
    let capped = on_loopback(Signup::service_with(small, |b| b.limits(limits)).unwrap()).await;
    let big = request(
        "tools/call",
        &json!({"name": "ShipOrder", "pad": "x".repeat(256)}),
    );
    let (status, too_large) = post(capped, &SHIP_ORDER, &big).await;
    assert_eq!(status, 413);
    spec.error("a body too large", &too_large, "InvalidRequestError", None);

    let (status, anonymous) = post(addr, &SHIP_ORDER[..3], &ship_order).await;
    assert_eq!(status, 401);
    spec.error("no credentials", &anonymous, "Error", Some(7));
    assert_eq!(anonymous["error"]["code"], -32001, "{anonymous}");

    let params = retry("ShipOrder", ship(&json!("1Z9")), "not a state");
    let (status, bad_state) = post(addr, &SHIP_ORDER, &request("tools/call", &params)).await;
    assert_eq!(status, 200);
    spec.error(
        "an invalid requestState",
        &bad_state,
        "InvalidParamsError",
        Some(7),
    );

    let mut params = first("ShipOrder");
    params["inputResponses"] = json!({"ship": "yes"});
    params["requestState"] = json!("s");
    let (status, bad_answers) = post(addr, &SHIP_ORDER, &request("tools/call", &params)).await;
    assert_eq!(status, 200);
    spec.error(
        "invalid inputResponses",
        &bad_answers,
        "InvalidParamsError",
        Some(7),
    );

    // A retry whose headers do not say what its body says (the screen), and
    // a round 1 whose `Mcp-Name` does not (`rmcp`).
    let mut other = SHIP_ORDER;
    other[2] = ("Mcp-Name", "signup");
    let retried = retry("ShipOrder", ship(&json!("1Z9")), "s");
    for (what, body) in [
        ("a retry's header mismatch", request("tools/call", &retried)),
        ("a header mismatch", ship_order.clone()),
    ] {
        let (status, mismatch) = post(addr, &other, &body).await;
        assert_eq!(status, 400, "{what}: {mismatch}");
        spec.check(what, "HeaderMismatchError", &mismatch);
        assert_eq!(mismatch["id"], 7, "{what}: {mismatch}");
    }

    let mut old = SHIP_ORDER;
    old[0] = ("MCP-Protocol-Version", "2099-01-01");
    let mut params = first("ShipOrder");
    params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let (status, version) = post(addr, &old, &request("tools/call", &params)).await;
    assert_eq!(status, 400, "{version}");
    spec.check(
        "an unsupported version",
        "UnsupportedProtocolVersionError",
        &version,
    );
    assert_eq!(version["id"], 7, "{version}");

    // The rounds: an ask the client declared no capability for.
    let mut params = first("ShipOrder");
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
    let (status, missing) = post(addr, &SHIP_ORDER, &request("tools/call", &params)).await;
    assert_eq!(status, 400, "{missing}");
    spec.check(
        "a missing capability",
        "MissingRequiredClientCapabilityError",
        &missing,
    );
    assert_eq!(missing["id"], 7, "{missing}");

    // `rmcp`: a method the demo does not serve, a tool it does not have.
    let prompts = rpc(addr, "ada", "prompts/list", "", &json!({"_meta": meta()})).await;
    spec.error("prompts/list", &prompts, "MethodNotFoundError", Some(1));
    let unknown = json!({"name": "nope", "arguments": {}, "_meta": meta()});
    let unknown = call(addr, "nope", &unknown).await;
    spec.error("an unknown tool", &unknown, "InvalidParamsError", Some(1));
    // Arguments that do not fit the tool's are a tool error, as the
    // specification asks (the model can see it and correct them).
    let bad_args =
        json!({"name": "export_orders", "arguments": {"format": "xml"}, "_meta": meta()});
    let bad_args = call(addr, "export_orders", &bad_args).await;
    completes(&spec, "invalid arguments", &bad_args);
    assert_eq!(bad_args["result"]["isError"], true, "{bad_args}");
}

/// The Tasks extension's messages: `CreateTaskResult`, `tasks/get` in
/// every status, the `tasks/update` and `tasks/cancel` acks, an unknown
/// task.
#[tokio::test]
async fn the_task_messages_validate() {
    let spec = Spec::new();
    let addr = tasks::start().await;
    let (created, _) = create(addr, "ada").await;
    task(&spec, "CreateTaskResult", &created, "working");
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    task(
        &spec,
        "tasks/get (working)",
        &get(addr, "ada", &id).await,
        "working",
    );

    let parked = get_settled(addr, &id).await;
    task(
        &spec,
        "tasks/get (input_required)",
        &parked,
        "input_required",
    );
    spec.check(
        "the task's ask",
        "InputRequests",
        &parked["result"]["inputRequests"],
    );
    let key = outstanding(&parked["result"]);
    let ack = update(addr, "ada", &id, json!({key: refunds(&json!(true))})).await;
    ack_of(&spec, "tasks/update", &ack);
    let done = get_settled(addr, &id).await;
    task(&spec, "tasks/get (completed)", &done, "completed");
    spec.check(
        "the task's result",
        "CallToolResult",
        &done["result"]["result"],
    );

    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let cancel = json!({"taskId": id, "_meta": task_meta()});
    let ack = rpc(addr, "ada", "tasks/cancel", &id, &cancel).await;
    ack_of(&spec, "tasks/cancel", &ack);
    let cancelled = get_settled(addr, &id).await;
    task(&spec, "tasks/get (cancelled)", &cancelled, "cancelled");

    let unknown = get(addr, "ada", "0123456789abcdef0123456789abcdef").await;
    spec.error("an unknown task", &unknown, "InvalidParamsError", Some(1));

    // Failed: its question is not answered in time, by the flow's clock.
    let clock = Arc::new(FixedClock::new(OffsetDateTime::now_utc()));
    let codec = StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[0x42; 32]).unwrap())
        .build()
        .unwrap();
    let flow = Flow::new(codec).with_clock(clock.clone());
    let service =
        Signup::service_over(flow, |b| b.task_question_timeout(Duration::from_secs(60))).unwrap();
    let addr = on_loopback(service).await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(settled(addr, "ada", &id).await["status"], "input_required");
    clock.advance(time::Duration::seconds(61));
    let failed = get(addr, "ada", &id).await;
    task(&spec, "tasks/get (failed)", &failed, "failed");
    spec.check("the task's error", "Error", &failed["result"]["error"]);
}

/// `tasks/get` once the task has left `working`, as the whole response.
async fn get_settled(addr: SocketAddr, id: &str) -> Value {
    let result = settled(addr, "ada", id).await;
    json!({"jsonrpc": "2.0", "id": 1, "result": result})
}

/// A task (a `CreateTaskResult` or a `tasks/get` result) in `status`: a
/// result response as the core schema has it, with the members the
/// extension requires of every task.
fn task(spec: &Spec, what: &str, response: &Value, status: &str) {
    spec.result(what, response, "JSONRPCResultResponse", "Result");
    let task = &response["result"];
    assert_eq!(task["status"], status, "{what}: {response}");
    for member in ["taskId", "createdAt", "lastUpdatedAt"] {
        assert!(task[member].is_string(), "{what}: {member}: {response}");
    }
    let ttl = task.get("ttlMs");
    assert!(
        ttl.is_some_and(|ttl| ttl.is_u64() || ttl.is_null()),
        "{what}: {response}"
    );
}

/// The ack of `tasks/update` or `tasks/cancel`: an empty result.
fn ack_of(spec: &Spec, what: &str, response: &Value) {
    spec.result(what, response, "JSONRPCResultResponse", "EmptyResult");
    assert_eq!(
        response["result"],
        json!({"resultType": "complete"}),
        "{what}"
    );
}
