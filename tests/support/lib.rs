//! What the integration tests of the workspace share (one copy of each
//! fixture): the base timestamp, a flow on a fixed clock, a client request
//! built in-process, base64url as tokens spell it. A test-only crate of the
//! workspace (never published): both `tests/` of the root package and
//! `examples/tests/` depend on it.

#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Arc;

use mrtr_guard::runtime::FixedClock;
use mrtr_guard::wire::{CallParams, ClientCapabilities, InputResponses, RequestMeta};
use mrtr_guard::{Call, Flow, KeyRing, MasterKey, Method, Policy, RoundEnd, RpcError, StateCodec};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

/// The tests' base timestamp (2027-01-15T08:00:00Z).
pub const T0: i64 = 1_800_000_000;

pub fn t0() -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(T0).unwrap()
}

pub struct Harness {
    pub flow: Flow,
    pub clock: Arc<FixedClock>,
}

pub fn harness() -> Harness {
    harness_with(|builder| builder)
}

pub fn harness_with(
    configure: impl FnOnce(mrtr_guard::state::CodecBuilder) -> mrtr_guard::state::CodecBuilder,
) -> Harness {
    let key = MasterKey::from_bytes(&[9; 32]).unwrap();
    let codec = configure(StateCodec::builder(
        "https://mcp.example.com/mcp",
        KeyRing::new(key),
    ))
    .build()
    .unwrap();
    let clock = Arc::new(FixedClock::new(t0()));
    let flow = Flow::new(codec).with_clock(clock.clone());
    Harness { flow, clock }
}

pub fn policy_rounds(max_rounds: u32) -> Policy {
    Policy::default().with_max_rounds(max_rounds)
}

pub fn form_caps() -> ClientCapabilities {
    ClientCapabilities::none().with_elicitation_form()
}

/// One request as a client sends it.
#[derive(Clone)]
pub struct Req {
    pub user: Option<&'static str>,
    pub method: Method,
    pub tool: &'static str,
    pub args: Option<Value>,
    pub responses: Option<Value>,
    pub state: Option<String>,
    pub caps: ClientCapabilities,
}

pub fn req(user: &'static str, tool: &'static str) -> Req {
    Req {
        user: Some(user),
        method: Method::ToolsCall,
        tool,
        args: Some(json!({})),
        responses: None,
        state: None,
        caps: form_caps(),
    }
}

impl Req {
    pub fn answer(mut self, responses: Value, state: Option<&str>) -> Self {
        self.responses = Some(responses);
        self.state = state.map(str::to_owned);
        self
    }

    pub fn call(&self) -> Result<Call, RpcError> {
        let meta = RequestMeta::new("2026-07-28", self.caps.clone());
        let mut params = CallParams::new(self.method, self.tool, meta);
        if let Some(Value::Object(args)) = &self.args {
            params = params.with_arguments(args.clone());
        }
        if let Some(responses) = &self.responses {
            params = params.with_input_responses(InputResponses::from_json(responses)?);
        }
        if let Some(state) = &self.state {
            params = params.with_request_state(state.clone());
        }
        let call = Call::new(params);
        Ok(match self.user {
            Some(user) => call.with_principal(user),
            None => call,
        })
    }
}

/// The `InputRequiredResult` of a response, as JSON, and its state.
pub fn asked(response: &Result<RoundEnd<String>, RpcError>) -> (Value, String) {
    match response {
        Ok(RoundEnd::InputRequired(result)) => {
            (result.to_json(), result.request_state().unwrap().to_owned())
        }
        other => panic!("expected input_required, got {other:?}"),
    }
}

pub fn keys(result: &Value) -> Vec<String> {
    result["inputRequests"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

pub fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

pub fn complete(text: &str) -> Result<RoundEnd<String>, RpcError> {
    Ok(RoundEnd::Complete(text.to_owned()))
}

pub fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

// ---- base64url, as tokens spell it ----------------------------------------

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// Unpadded URL-safe base64, as tokens are spelled.
pub fn encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The inverse of [`encode`] (valid input only).
pub fn decode(text: &str) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(text).unwrap()
}
