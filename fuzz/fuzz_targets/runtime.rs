//! Arbitrary request bodies through the runtime's request handling, as a
//! server runs it: `screen_body` (strict JSON), the MCP header check,
//! `CallParams::from_json`, then `Flow::run` with a handler that requires one
//! form.
//!
//! The first input byte picks how the request is made (mod 3):
//! - 0: the rest is the whole JSON-RPC body;
//! - 1: the rest is the `params` object of a `tools/call`, with the real
//!   round-1 state put in as its `requestState` (when params is an object);
//! - 2: the rest is the `inputResponses` of a round-2 request built around the
//!   real state.
//!
//! Properties: nothing panics; a request without the real state never
//! completes (no answer is taken that the state did not ask for); a completed
//! call has a validated, non-empty tracking number, and no validated answer
//! ever makes the handler fail (no internal error).
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run runtime` (see CONTRIBUTING.md).

#![no_main]

use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use mrtr_guard::{Call, Field, Flow, Form, KeyRing, MasterKey, Method, RoundEnd, Round, StateCodec, Stop};
use mrtr_guard::json::Limits;
use mrtr_guard::runtime::FixedClock;
use mrtr_guard::wire::{CallParams, ClientCapabilities, RequestMeta, check_headers, screen_body};
use serde_json::{Value, json};
use time::OffsetDateTime;

static SHIP: LazyLock<Form> = LazyLock::new(|| {
    Form::builder("Where should we ship it?")
        .field(
            Field::string("trackingNumber")
                .min_length(1)
                .max_length(40)
                .required(),
        )
        .field(Field::email("email"))
        .field(Field::choice("speed").options(["slow", "fast"]))
        .build()
        .unwrap()
});

struct Fixture {
    flow: Flow,
    /// The state a real round 1 of `ShipOrder({"orderId":42})` for ada returned.
    state: String,
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let codec = StateCodec::builder(
        "https://mcp.example.com/mcp",
        KeyRing::new(MasterKey::from_bytes(&[0x31; 32]).unwrap()),
    )
    .build()
    .unwrap();
    let clock = FixedClock::new(OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap());
    let flow = Flow::new(codec).with_clock(Arc::new(clock));
    let meta = RequestMeta::new(
        "2026-07-28",
        ClientCapabilities::none().with_elicitation_form(),
    );
    let mut arguments = serde_json::Map::new();
    arguments.insert("orderId".to_owned(), json!(42));
    let params = CallParams::new(Method::ToolsCall, "ShipOrder", meta).with_arguments(arguments);
    let Ok(RoundEnd::InputRequired(asked)) =
        flow.run(Call::new(params).with_principal("ada"), handler)
    else {
        panic!("round 1 must ask");
    };
    let state = asked.request_state().unwrap().to_owned();
    Fixture { flow, state }
});

fn handler(round: &mut Round<'_>) -> Result<String, Stop> {
    let answers = round.require("ship", &SHIP)?;
    Ok(answers.str("trackingNumber")?.to_owned())
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    let fixture = &*FIXTURE;
    let body = match selector % 3 {
        0 => input.to_vec(),
        1 => {
            let Ok(mut params) = serde_json::from_slice::<Value>(input) else {
                return;
            };
            if let Some(object) = params.as_object_mut() {
                object.insert("requestState".to_owned(), json!(fixture.state));
            }
            envelope(params)
        }
        _ => {
            let Ok(responses) = serde_json::from_slice::<Value>(input) else {
                return;
            };
            envelope(json!({
                "name": "ShipOrder",
                "arguments": {"orderId": 42},
                "inputResponses": responses,
                "requestState": fixture.state,
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
                }
            }))
        }
    };
    handle(fixture, &body);
});

fn envelope(params: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params
    }))
    .unwrap()
}

/// What a server does with one POSTed body.
fn handle(fixture: &Fixture, body: &[u8]) {
    let Ok(request) = screen_body(body, &Limits::default()) else {
        return;
    };
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "ShipOrder"),
    ];
    let _ = check_headers(headers, &request);
    let Some(method) = request
        .get("method")
        .and_then(Value::as_str)
        .and_then(Method::from_name)
    else {
        return;
    };
    let Ok(params) = CallParams::from_json(method, request.get("params").unwrap_or(&Value::Null))
    else {
        return;
    };
    let with_real_state = params.request_state() == Some(fixture.state.as_str());
    match fixture
        .flow
        .run(Call::new(params).with_principal("ada"), handler)
    {
        Ok(RoundEnd::Complete(tracking)) => {
            assert!(with_real_state, "completed without the real state");
            assert!(!tracking.is_empty());
            assert!(tracking.chars().count() <= 40);
        }
        Ok(_) => {}
        Err(error) => assert_ne!(error.code(), -32603, "internal error: {error:?}"),
    }
}
