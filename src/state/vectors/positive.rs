//! The positive vectors: the inputs of each as a draft, for both modes,
//! minted into a vector with its intermediate values; and the flows they
//! start from (round 1, carried answers, the other methods, anonymous use).

use serde_json::{Value, json};

use super::file::{BindingSpec, Vector, hex, unhex};
use super::inputs::{AUDIENCE, Draft, T0, claims_value, default_policy, nonce_for, one_key, user};
use super::positive_edges::{key_and_size_drafts, number_drafts, step_draft, time_drafts};
use crate::state::layout::{self, NONCE_LEN};
use crate::state::{claims_json, context};

/// The inputs of every positive vector, for both modes, in file order.
fn positive_drafts() -> Vec<Draft> {
    let mut drafts = Vec::new();
    for mode in ["sealed", "signed"] {
        drafts.extend(flow_drafts(mode));
        drafts.extend(key_and_size_drafts(mode));
        drafts.extend(time_drafts(mode));
        drafts.extend(number_drafts(mode));
        // Last of their mode, in the order they came, so that the nonces of
        // the others stay as they were.
        drafts.push(generation_draft(mode));
        drafts.push(step_draft(mode));
    }
    drafts
}

/// Round 2 of a flow under a replay guard: its claims carry the guard's
/// generation.
fn generation_draft(mode: &'static str) -> Draft {
    Draft {
        name: "generation",
        description: "round 2 minted under a replay guard: the claims carry the guard's \
            generation (gen), and the verifier's guard has that generation",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "tools/call",
            "ShipOrder",
            Some(json!({"orderId": 42})),
        ),
        claims: with_generation(
            claims_value(2, 6, &[("ship", ship_ask())], &[], json!({"cart": 17})),
            GENERATION,
        ),
        mint_key: None,
        keys: one_key(),
        now: T0 + 150,
    }
}

fn build_positive(draft: &Draft, index: usize) -> Vector {
    let mut vector = Vector {
        name: format!("{}-{}", draft.mode, draft.name),
        description: draft.description.to_owned(),
        mode: draft.mode.to_owned(),
        audience: AUDIENCE.to_owned(),
        keys: draft.keys.clone(),
        mint_key: draft.mint_key.map(str::to_owned),
        anonymous: draft.anonymous,
        policy: default_policy(),
        replay_guard: false,
        generation: None,
        binding: draft.binding.clone(),
        arguments_canonical: None,
        arguments_digest: None,
        context: None,
        claims_json: None,
        nonce: (draft.mode == "sealed").then(|| nonce_for(u8::try_from(index).unwrap())),
        token: String::new(),
        now: draft.now,
        expect: "valid".to_owned(),
        reason: None,
        app_type: None,
    };
    let claims_bytes = serde_json::to_vec(&draft.claims).unwrap();
    let claims = claims_json::decode::<Value>(&claims_bytes).unwrap();
    let canonical_claims =
        claims_json::encode(claims.meta(), &claims.clone().into_contents()).unwrap();
    let binding = vector.binding.binding();
    let nonce: Option<[u8; NONCE_LEN]> = vector
        .nonce
        .as_deref()
        .map(|n| unhex(n).try_into().unwrap());
    let token = vector
        .codec(true)
        .mint_claims(
            &binding,
            claims.meta(),
            &claims.clone().into_contents(),
            nonce,
        )
        .unwrap();
    let bytes = layout::decode_token(&token).unwrap();
    let raw = layout::RawToken::split(&bytes).unwrap();
    vector.context = Some(hex(&context::context(
        raw.mode, raw.header, AUDIENCE, &binding,
    )));
    vector.arguments_canonical = Some(vector.binding.arguments_canonical());
    vector.arguments_digest = Some(hex(binding.arguments().as_bytes()));
    vector.claims_json = Some(String::from_utf8(canonical_claims).unwrap());
    vector.token = token;
    // A token minted under a guard's generation opens under a guard of
    // that generation.
    if let Some(generation) = claims.generation() {
        vector.replay_guard = true;
        vector.generation = Some(generation.to_string());
    }
    vector
}

/// The positive vectors of both modes, in file order.
pub(super) fn positives() -> Vec<Vector> {
    let mut positives: Vec<Vector> = positive_drafts()
        .iter()
        .enumerate()
        .map(|(i, d)| build_positive(d, i))
        .collect();
    // A token exactly as long as the verifier's cap opens.
    for mode in ["sealed", "signed"] {
        let name = format!("{mode}-app-data-512");
        let mut at_cap = by_name(&positives, &name).clone();
        at_cap.name = format!("{mode}-length-cap-exact");
        at_cap.description = "the verifier's max_token_len equals the token's length".to_owned();
        at_cap.policy.max_token_len = at_cap.token.len();
        positives.push(at_cap);
    }
    positives
}

pub(super) fn by_name<'a>(positives: &'a [Vector], name: &str) -> &'a Vector {
    positives.iter().find(|v| v.name == name).unwrap()
}

/// The question the flows ask in round 1.
fn ship_ask() -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Where to?",
        "requestedSchema": {"type": "object", "properties": {"trackingNumber": {"type": "string"}},
        "required": ["trackingNumber"]}}})
}

/// Flows: round 1, a later round carrying answers, the other methods, anonymous use.
fn flow_drafts(mode: &'static str) -> Vec<Draft> {
    let ship_ask = ship_ask();
    let mut drafts = Vec::new();
    drafts.push(Draft {
        name: "basic",
        description: "round 1 of a tool call, application data only",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "tools/call",
            "ShipOrder",
            Some(json!({"orderId": 42})),
        ),
        claims: claims_value(
            1,
            1,
            &[("ship", ship_ask.clone())],
            &[],
            json!({"cart": 17}),
        ),
        mint_key: None,
        keys: one_key(),
        now: T0 + 120,
    });
    drafts.push(Draft {
        name: "carried-answers-unicode",
        description: "round 3 carrying proven answers; non-ASCII principal, target and data",
        mode,
        anonymous: false,
        binding: user(
            "ユーザー-ø",
            "tools/call",
            "résumé ✓",
            Some(json!({"b": [1.0, "x"], "a": null})),
        ),
        claims: claims_value(
            3,
            2,
            &[(
                "confirm",
                json!({"method": "elicitation/create", "params": {"message": "Sure?",
                "requestedSchema": {"type": "object", "properties": {}}}}),
            )],
            &carried_answers(),
            json!({"note": "naïve café \u{1F600}"}),
        ),
        mint_key: None,
        keys: one_key(),
        now: T0 + 200,
    });
    drafts.push(Draft {
        name: "prompt-no-arguments",
        description: "prompts/get without arguments (binds like {})",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "prompts/get",
            "test_input_required_result_prompt",
            None,
        ),
        claims: claims_value(1, 3, &[], &[], Value::Null),
        mint_key: None,
        keys: one_key(),
        now: T0 + 60,
    });
    drafts.push(Draft {
        name: "resource-uri",
        description: "resources/read; the target is the URI",
        mode,
        anonymous: false,
        binding: user("user-7", "resources/read", "file:///reports/q3.pdf", None),
        claims: claims_value(2, 4, &[], &[], json!([1, 2, 3])),
        mint_key: None,
        keys: one_key(),
        now: T0 + 120,
    });
    drafts.push(Draft {
        name: "anonymous",
        description: "a codec built with allow_anonymous; the binding has no principal",
        mode,
        anonymous: true,
        binding: BindingSpec {
            principal: None,
            method: "tools/call".to_owned(),
            target: "ShipOrder".to_owned(),
            arguments: Some(json!({})),
        },
        claims: claims_value(1, 5, &[], &[], json!("x")),
        mint_key: None,
        keys: one_key(),
        now: T0 + 60,
    });
    drafts
}

/// The generation the vectors' guard tokens are minted under.
pub(super) const GENERATION: [u8; 8] = [0x67, 0x65, 0x6e, 0x2d, 0x00, 0x01, 0xfe, 0xff];

/// `claims` with the member `gen` for `generation` (the minter writes it
/// after `fid`, §5.3).
pub(super) fn with_generation(mut claims: Value, generation: [u8; 8]) -> Value {
    claims["gen"] = Value::from(layout::encode_id(&generation));
    claims
}

/// Answers proven by rounds 1 and 2 of a sign-up: two forms accepted, one
/// declined.
fn carried_answers() -> [(&'static str, Value, Value); 3] {
    let form = |message: &str, properties: Value| {
        json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
            "requestedSchema": {"type": "object", "properties": properties}}})
    };
    [
        (
            "account",
            form(
                "Your account",
                json!({"email": {"type": "string", "format": "email"}}),
            ),
            json!({"action": "accept", "content": {"email": "ada@example.com"}}),
        ),
        (
            "newsletter",
            form("Newsletter?", json!({"weekly": {"type": "boolean"}})),
            json!({"action": "decline"}),
        ),
        (
            "team",
            form(
                "Your team",
                json!({"plan": {"type": "string"}, "roles": {"type": "array"},
                "teamSize": {"type": "integer"}}),
            ),
            json!({"action": "accept", "content": {"plan": "team", "roles": ["admin", "member"], "teamSize": 12}}),
        ),
    ]
}
