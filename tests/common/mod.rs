//! Shared set-up for the runtime tests: a flow on a fixed clock, the demo's
//! tools, and a client that drives them in-process.

#![allow(dead_code, unreachable_pub, reason = "each test file uses part of it")]

use std::sync::{Arc, LazyLock};

use mrtr_guard::runtime::FixedClock;
use mrtr_guard::wire::{CallParams, ClientCapabilities, InputResponses, RequestMeta};
use mrtr_guard::{Call, Flow, KeyRing, MasterKey, Method, Policy, Response, RpcError, StateCodec};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

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

/// Runs the demo tool `req.tool` for one round.
pub fn run(flow: &Flow, req: &Req) -> Result<Response<String>, RpcError> {
    flow.run(req.call()?, |round| signup_tools::run_tool(round, &FORMS))
}

/// The `InputRequiredResult` of a response, as JSON, and its state.
pub fn asked(response: &Result<Response<String>, RpcError>) -> (Value, String) {
    match response {
        Ok(Response::InputRequired(result)) => {
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

pub fn complete(text: &str) -> Result<Response<String>, RpcError> {
    Ok(Response::Complete(text.to_owned()))
}

// ---- the demo's tools -------------------------------------------------------

/// The demo server's own tools (`examples/support/signup_tools.rs`), so these
/// tests drive the code the demo serves.
#[path = "../../examples/support/signup_tools.rs"]
pub mod signup_tools;

pub static FORMS: LazyLock<signup_tools::Forms> = LazyLock::new(|| signup_tools::forms().unwrap());

/// The conformance fixture's forms (`examples/support/conformance_forms.rs`).
#[path = "../../examples/support/conformance_forms.rs"]
pub mod conformance_forms;

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
