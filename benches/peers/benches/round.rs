//! One whole round on the server, from the retry request's bytes to the
//! response's bytes, in both modes.
//!
//! `cargo bench -p mrtr-guard-peers --bench round`
//!
//! The multi-round runtime is not on `main` yet, so the round is built from
//! the public pieces it will use, in its order: `parse_strict` of the
//! JSON-RPC request; `StateCodec::open_at` of its `requestState` under the
//! call's binding; `Form::validate_response` of the `inputResponses` entry
//! that the token asked for; `StateCodec::next_at` with the proven answer
//! and the next question; `serde_json::to_vec` of the `input_required`
//! result.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mrtr_guard::{
    Binding, Contents, Limits, MasterKey, Method, Mode, Outcome, StateCodec, parse_strict,
};
use mrtr_guard_peers::{accepted, app_data, ship_form};
use serde_json::{Value, json};
use time::OffsetDateTime;

const PRINCIPAL: &str = "user-7";

/// The server's side of one round: `None` when any step refuses.
fn round(
    codec: &StateCodec,
    form: &mrtr_guard::Form,
    confirm: &Value,
    request: &[u8],
    now: OffsetDateTime,
) -> Option<Vec<u8>> {
    let request = parse_strict(request, &Limits::new()).ok()?;
    let method = Method::from_name(request.get("method")?.as_str()?)?;
    let params = request.get("params")?;
    let target = params.get("name")?.as_str()?;
    let binding = Binding::new(PRINCIPAL, method, target, params.get("arguments"));
    let token = params.get("requestState")?.as_str()?;
    let claims = codec.open_at::<Value>(token, &binding, now).ok()?;
    // The runtime answers only questions its token asked.
    let (key, _) = claims.questions().first_key_value()?;
    let Outcome::Accepted(answers) = form.validate_response(params.get("inputResponses")?, key)
    else {
        return None;
    };
    let contents = Contents::new(claims.app().clone())
        .answer(key.clone(), answers.to_json())
        .question("confirm", confirm);
    let next = codec.next_at(&binding, &claims, &contents, now).ok()?;
    let response = json!({
        "jsonrpc": "2.0",
        "id": request.get("id")?,
        "result": {
            "resultType": "input_required",
            "inputRequests": {"confirm": confirm},
            "requestState": next,
        },
    });
    serde_json::to_vec(&response).ok()
}

fn bench_round(c: &mut Criterion) {
    let form = ship_form();
    let ask = json!({"method": "elicitation/create", "params": form.elicit_params()});
    let confirm = json!({
        "method": "elicitation/create",
        "params": {"message": "Ship it?", "requestedSchema": {"type": "object", "properties": {}}},
    });
    let arguments = json!({"orderId": 42, "note": "fragile"});
    let binding = Binding::new(PRINCIPAL, Method::ToolsCall, "ShipOrder", Some(&arguments));
    let now = OffsetDateTime::now_utc();

    let mut group = c.benchmark_group("round");
    for (name, mode) in [("sealed", Mode::Sealed), ("signed", Mode::Signed)] {
        let codec = StateCodec::builder(
            "https://mcp.example.com/mcp",
            MasterKey::from_bytes(&[7; 32]).expect("key"),
        )
        .mode(mode)
        .build()
        .expect("codec");
        // Round 1 asked the ship form and carried 512 B of application data.
        let first = codec
            .start_at(
                &binding,
                &Contents::new(app_data(512)).question("ship", &ask),
                now,
            )
            .expect("mint");
        let request = serde_json::to_vec(&json!({
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {
                "name": "ShipOrder",
                "arguments": arguments,
                "inputResponses": {"ship": {"action": "accept", "content": accepted()}},
                "requestState": first,
            },
        }))
        .expect("json");
        assert!(round(&codec, &form, &confirm, &request, now).is_some());
        group.bench_function(BenchmarkId::new("mrtr-guard", name), |b| {
            b.iter(|| round(&codec, &form, &confirm, black_box(&request), now));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_round);
criterion_main!(benches);
