//! One whole round on the server through the runtime, from the retry
//! request's bytes to the response's bytes, in both modes.
//!
//! `cargo bench -p mrtr-guard-peers --bench round`
//!
//! The round: the request checked by `check_strict` (as `ScreenLayer`
//! checks it, no tree) and parsed once by `serde_json` (as the SDK behind
//! parses it); `CallParams::from_json_owned` (the params moved out of the
//! request);
//! `Flow::run` with a handler that `require`s the 10-field ship form (the
//! runtime opens the `requestState` under the call's binding, checks that the
//! answer is to the question the state asked, and validates it) and then a
//! confirmation (so the runtime mints the next state carrying the proven
//! answer and 512 B of application data); `serde_json::to_vec` of the
//! `input_required` response, written straight from the result (a server
//! has no reason to build a `Value` of it first).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    missing_docs,
    reason = "benchmark code (the workspace lints are for the library): a panic is a failed run"
)]

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mrtr_guard::json::{Limits, check_strict};
use mrtr_guard::wire::{CallParams, InputRequiredResult};
use mrtr_guard::{Call, Flow, Form, MasterKey, Method, Mode, Round, RoundEnd, StateCodec, Stop};
use mrtr_guard_peers::{accepted, app_data, ship_form};
use serde::Serialize;
use serde_json::{Value, json};

const PRINCIPAL: &str = "user-7";

struct Forms {
    ship: Form,
    confirm: Form,
}

/// The tool: ship form, then a confirmation; 512 B of app data from round 1.
fn handler(round: &mut Round<'_>, forms: &Forms) -> Result<usize, Stop> {
    if round.is_first() {
        round.set_app(&app_data(512)).map_err(Stop::Error)?;
    }
    let ship = round.require("ship", &forms.ship)?;
    round.require("confirm", &forms.confirm)?;
    Ok(ship.str("name")?.len())
}

/// The server's side of one round: `None` when any step refuses.
fn round(flow: &Flow, forms: &Forms, request: &[u8]) -> Option<Vec<u8>> {
    check_strict(request, &Limits::new()).ok()?;
    let mut request: Value = serde_json::from_slice(request).ok()?;
    let method = Method::from_name(request.get("method")?.as_str()?)?;
    let params = request.get_mut("params")?.take();
    let params = CallParams::from_json_owned(method, params).ok()?;
    let call = Call::new(params).with_principal(PRINCIPAL);
    let RoundEnd::InputRequired(result) = flow.run(call, |round| handler(round, forms)).ok()?
    else {
        return None;
    };
    let response = Envelope {
        jsonrpc: "2.0",
        id: request.get("id")?,
        result: &result,
    };
    serde_json::to_vec(&response).ok()
}

/// The JSON-RPC response around the result.
#[derive(Serialize)]
struct Envelope<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: &'a InputRequiredResult,
}

fn request(id: u32, state: Option<&str>, responses: Option<Value>) -> Vec<u8> {
    let mut params = json!({
        "name": "ShipOrder",
        "arguments": {"orderId": 42, "note": "fragile"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        },
    });
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(responses) = responses {
        params["inputResponses"] = responses;
    }
    serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
    )
    .expect("json")
}

fn bench_round(c: &mut Criterion) {
    let forms = Forms {
        ship: ship_form(),
        confirm: Form::builder("Ship it?").build().expect("form"),
    };
    let mut group = c.benchmark_group("round");
    for (name, mode) in [("sealed", Mode::Sealed), ("signed", Mode::Signed)] {
        let codec = StateCodec::builder(
            "https://mcp.example.com/mcp",
            MasterKey::from_bytes(&[7; 32]).expect("key"),
        )
        .mode(mode)
        .build()
        .expect("codec");
        let flow = Flow::new(codec);
        // Round 1 through the runtime: it asks the ship form.
        let first = round(&flow, &forms, &request(1, None, None)).expect("round 1");
        let first: Value = serde_json::from_slice(&first).expect("json");
        let state = first["result"]["requestState"].as_str().expect("state");
        let retry = request(
            2,
            Some(state),
            Some(json!({"ship": {"action": "accept", "content": accepted()}})),
        );
        // Round 2 answers it; the runtime asks the confirmation next.
        let second = round(&flow, &forms, &retry).expect("round 2");
        let second: Value = serde_json::from_slice(&second).expect("json");
        assert!(second["result"]["inputRequests"]["confirm"].is_object());
        group.bench_function(BenchmarkId::new("mrtr-guard", name), |b| {
            b.iter(|| round(&flow, &forms, black_box(&retry)));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_round);
criterion_main!(benches);
