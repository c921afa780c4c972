//! Shared set-up for the runtime tests: a flow on a fixed clock, the demo's
//! tools, and a client that drives them in-process.

#![allow(dead_code, unreachable_pub, reason = "each test file uses part of it")]

use std::sync::{Arc, LazyLock};

use mrtr_guard::{
    Call, CallParams, ClientCapabilities, Field, FixedClock, Flow, Form, InputResponses, KeyRing,
    MasterKey, Method, Policy, RequestMeta, Response, Round, RpcError, StateCodec, Stop,
};
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
    configure: impl FnOnce(mrtr_guard::CodecBuilder) -> mrtr_guard::CodecBuilder,
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
    let call = req.call()?;
    match req.tool {
        "ShipOrder" => flow.run(call, ship_order),
        "signup" => flow.run(call, signup),
        _ => Err(RpcError::invalid_params("unknown tool")),
    }
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

pub static SHIP: LazyLock<Form> = LazyLock::new(|| {
    Form::builder("Where should we ship?")
        .field(Field::string("trackingNumber").required())
        .build()
        .unwrap()
});

pub fn ship_order(round: &mut Round<'_>) -> Result<String, Stop> {
    match round.form("ship", &SHIP) {
        mrtr_guard::Reply::Accepted(answers) => {
            Ok(format!("Shipped as {}.", answers.str("trackingNumber")?))
        }
        mrtr_guard::Reply::Declined | mrtr_guard::Reply::Cancelled => {
            Ok("Shipping cancelled.".to_owned())
        }
        _ => Err(Stop::Ask),
    }
}

pub static ACCOUNT: LazyLock<Form> = LazyLock::new(|| {
    Form::builder("Create your account")
        .field(Field::email("email").required())
        .field(
            Field::choice("plan")
                .titled_option("pro", "Pro")
                .titled_option("team", "Team")
                .required(),
        )
        .build()
        .unwrap()
});

pub static TEAM: LazyLock<Form> = LazyLock::new(|| {
    Form::builder("Tell us about your team")
        .field(
            Field::integer("teamSize")
                .minimum(2)
                .maximum(500)
                .required(),
        )
        .field(
            Field::multi_choice("roles")
                .options(["admin", "billing", "member"])
                .min_items(1)
                .max_items(3)
                .required(),
        )
        .build()
        .unwrap()
});

pub static CONFIRM: LazyLock<Form> =
    LazyLock::new(|| Form::builder("Create the account?").build().unwrap());

pub fn signup(round: &mut Round<'_>) -> Result<String, Stop> {
    let account = round.require("account", &ACCOUNT)?;
    let email = account.str("email")?;
    let plan = account.str("plan")?;
    let team = if plan == "team" {
        let team = round.require("team", &TEAM)?;
        Some((team.i64("teamSize")?, team.strings("roles")?.join(", ")))
    } else {
        None
    };
    round.require("confirm", &CONFIRM)?;
    Ok(match team {
        Some((size, roles)) => {
            format!("Created a team account for {email}: {size} seats, roles {roles}.")
        }
        None => format!("Created a pro account for {email}."),
    })
}

pub fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}
