//! The generator of `tests/vectors/*.json`: the inputs of every vector
//! (keys, nonces, bindings, claims), the edits that make the negative ones,
//! and the argument texts of `arguments.json`. Nothing here is a check:
//! `super` holds those, and compares the files with what this makes.

use serde::Serialize;
use serde_json::{Value, json};

use super::{
    ARGUMENTS_FILE, ArgumentsCase, ArgumentsFile, BindingSpec, KeysSpec, PolicySpec, Vector,
    VectorFile, canonical_and_digest, hex, unhex,
};
use crate::json::JsonDigest;
use crate::state::layout::{self, NONCE_LEN};
use crate::state::{claims_json, context};

impl ArgumentsCase {
    fn new(name: &str, description: &str, texts: &[&str]) -> Self {
        let (canonical, digest) = canonical_and_digest(texts[0]);
        Self {
            name: name.to_owned(),
            description: description.to_owned(),
            texts: texts.iter().map(|text| (*text).to_owned()).collect(),
            canonical,
            digest,
        }
    }
}

fn arguments_cases() -> Vec<ArgumentsCase> {
    [small_number_cases(), large_integer_cases(), other_cases()].concat()
}

/// Small numbers: the spellings of one value share a form.
fn small_number_cases() -> Vec<ArgumentsCase> {
    let case = ArgumentsCase::new;
    vec![
        case(
            "one",
            "spellings of 1",
            &[
                r#"{"n":1}"#,
                r#"{"n":1.0}"#,
                r#"{"n":1e0}"#,
                r#"{"n":1E+0}"#,
                r#"{"n":10e-1}"#,
                r#"{"n":0.1e1}"#,
                r#"{"n":1.0000000000000001}"#,
            ],
        ),
        case(
            "zero",
            "0 and -0, and a number too small for a double",
            &[
                r#"{"n":0}"#,
                r#"{"n":-0}"#,
                r#"{"n":0.0}"#,
                r#"{"n":-0.0}"#,
                r#"{"n":0e7}"#,
                r#"{"n":-0E-3}"#,
                r#"{"n":1e-400}"#,
                r#"{"n":-1e-400}"#,
            ],
        ),
        case(
            "hundred",
            "exponent forms of an integer",
            &[
                r#"{"n":100}"#,
                r#"{"n":1E2}"#,
                r#"{"n":1e+2}"#,
                r#"{"n":100.0}"#,
                r#"{"n":10000e-2}"#,
            ],
        ),
        case(
            "negative-fraction",
            "a negative fraction",
            &[r#"{"n":-1.5}"#, r#"{"n":-15e-1}"#, r#"{"n":-0.15E1}"#],
        ),
        case(
            "tenth",
            "decimals that parse to one double",
            &[
                r#"{"n":0.1}"#,
                r#"{"n":0.10}"#,
                r#"{"n":1e-1}"#,
                r#"{"n":0.1000000000000000055511151231257827}"#,
            ],
        ),
        case("three-tenths", "0.3", &[r#"{"n":0.3}"#]),
        case(
            "three-tenths-neighbour",
            "the next double after 0.3",
            &[r#"{"n":0.30000000000000004}"#],
        ),
        case(
            "tiny",
            "RFC 8785's exponent form below 10^-6",
            &[r#"{"n":1e-7}"#, r#"{"n":0.0000001}"#, r#"{"n":1E-7}"#],
        ),
    ]
}

/// Integers from 2^53 up: exact digits, not the nearest double (§4.1).
fn large_integer_cases() -> Vec<ArgumentsCase> {
    let case = ArgumentsCase::new;
    vec![
        case(
            "two-to-53",
            "2^53, and a fraction that parses to it",
            &[
                r#"{"n":9007199254740992}"#,
                r#"{"n":9007199254740992.0}"#,
                r#"{"n":9.007199254740992e15}"#,
                r#"{"n":9007199254740993.0}"#,
            ],
        ),
        case(
            "two-to-53-plus-one",
            "an integer no double holds: exact",
            &[r#"{"n":9007199254740993}"#],
        ),
        case(
            "big-integer",
            "an order id beyond 2^53",
            &[r#"{"orderId":1234567890123456789}"#],
        ),
        case(
            "big-integer-neighbour",
            "another order id, equal as doubles",
            &[r#"{"orderId":1234567890123456700}"#],
        ),
        case(
            "big-integer-as-double",
            "the double nearest 1234567890123456789, written exactly",
            &[
                r#"{"orderId":1234567890123456768}"#,
                r#"{"orderId":1234567890123456789.0}"#,
                r#"{"orderId":1.234567890123456789e18}"#,
            ],
        ),
        case(
            "two-to-63",
            "2^63 as an integer and as a double",
            &[
                r#"{"n":9223372036854775808}"#,
                r#"{"n":9.223372036854775808e18}"#,
                r#"{"n":9223372036854775808.0}"#,
                r#"{"n":9.223372036854776e18}"#,
            ],
        ),
        case(
            "two-to-63-shortest",
            "the digits RFC 8785 writes for 2^63, as an integer",
            &[r#"{"n":9223372036854776000}"#],
        ),
        case(
            "u64-max",
            "the largest integer serde_json holds exactly",
            &[r#"{"n":18446744073709551615}"#],
        ),
        case(
            "two-to-64",
            "beyond u64, integers are parsed as doubles",
            &[
                r#"{"n":18446744073709551616}"#,
                r#"{"n":18446744073709551617}"#,
                r#"{"n":1.8446744073709552e19}"#,
                r#"{"n":18446744073709551616.0}"#,
            ],
        ),
        case(
            "i64-min",
            "the smallest integer serde_json holds exactly, and one below it",
            &[
                r#"{"n":-9223372036854775808}"#,
                r#"{"n":-9223372036854775809}"#,
                r#"{"n":-9.223372036854775808e18}"#,
            ],
        ),
    ]
}

/// Doubles of 10^21 and more, a string, member order and nesting.
fn other_cases() -> Vec<ArgumentsCase> {
    let case = ArgumentsCase::new;
    vec![
        case(
            "just-below-ten-to-21",
            "the largest double below 10^21, written exactly",
            &[
                r#"{"n":999999999999999868928}"#,
                r#"{"n":9.999999999999999e20}"#,
            ],
        ),
        case(
            "ten-to-21",
            "from 10^21 on, RFC 8785's exponent form",
            &[
                r#"{"n":1e21}"#,
                r#"{"n":1E21}"#,
                r#"{"n":1e+21}"#,
                r#"{"n":1000000000000000000000}"#,
                r#"{"n":1000000000000000000000.0}"#,
                r#"{"n":999999999999999999999}"#,
            ],
        ),
        case(
            "large-double",
            "a large double",
            &[r#"{"n":1e300}"#, r#"{"n":1E300}"#, r#"{"n":10e299}"#],
        ),
        case("string-one", "a string is not a number", &[r#"{"n":"1"}"#]),
        case(
            "order-and-nesting",
            "member order, white space and nested spellings",
            &[
                r#"{"a":1,"b":[1.0,-0,{"y":2,"x":1}]}"#,
                r#"{ "b" : [ 1e0 , 0 , { "x" : 1.0 , "y" : 2E0 } ] , "a" : 1 }"#,
            ],
        ),
    ]
}

// ---- Generation ------------------------------------------------------------

const KEY_1: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const KEY_2: &str = "//79/Pv6+fj39vX08/Lx8O/u7ezr6uno5+bl5OPi4eA=";
const AUDIENCE: &str = "https://mcp.example.com/mcp";
const T0: i64 = 1_800_000_000;

fn default_policy() -> PolicySpec {
    PolicySpec {
        ttl: 600,
        flow_ttl: 1800,
        skew: 60,
        max_rounds: 10,
        max_token_len: 8192,
    }
}

fn nonce_for(n: u8) -> String {
    hex(&[n; NONCE_LEN]
        .iter()
        .enumerate()
        .map(|(i, b)| b ^ (i as u8))
        .collect::<Vec<_>>())
}

struct Draft {
    name: &'static str,
    description: &'static str,
    mode: &'static str,
    anonymous: bool,
    binding: BindingSpec,
    claims: Value,
    mint_key: Option<&'static str>,
    keys: KeysSpec,
    now: i64,
}

/// The spelling of the digest of `ask` in the claims.
fn digest_text(ask: &Value) -> Value {
    Value::from(layout::encode_id(JsonDigest::of(ask).as_bytes()))
}

/// Claims of round `round` of the flow `[fid; 16]`: the questions asked, by
/// key, and the answers proven, by key, as (question asked, response).
fn claims_value(
    round: u32,
    fid: u8,
    questions: &[(&str, Value)],
    answers: &[(&str, Value, Value)],
    app: Value,
) -> Value {
    let q: serde_json::Map<String, Value> = questions
        .iter()
        .map(|(key, ask)| ((*key).to_owned(), digest_text(ask)))
        .collect();
    let answers: serde_json::Map<String, Value> = answers
        .iter()
        .map(|(key, ask, response)| {
            let proven = json!({"q": digest_text(ask), "r": response});
            ((*key).to_owned(), proven)
        })
        .collect();
    // The flow started with round 1 at T0 + 60; one round a minute since.
    let iat = T0 + i64::from(round) * 60;
    let deadline = T0 + 60 + 1800;
    json!({
        "iat": iat,
        "exp": (iat + 600).min(deadline),
        "dl": deadline,
        "rnd": round,
        "fid": layout::encode_id(&[fid; 16]),
        "q": q,
        "ans": answers,
        "app": app,
    })
}

/// Round 2 of a sign-up whose account form was answered invalidly twice:
/// `q` holds the digest of the re-ask sent (the form's message followed by
/// what to correct), `inv` the digest of the form as first asked and the
/// count; the welcome email already went out.
fn reask_claims() -> Value {
    let form = |message: &str| {
        json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
            "requestedSchema": {"type": "object",
            "properties": {"email": {"type": "string", "format": "email"}},
            "required": ["email"]}}})
    };
    let first = form("Create your account");
    let reask = form(
        "Create your account\n\nPlease correct: Email: the text does not have the field's format.",
    );
    let mut claims = claims_value(2, 13, &[("account", reask)], &[], Value::Null);
    claims["inv"] = json!({"account": {"q": digest_text(&first), "n": 2}});
    claims["once"] = json!(["welcome-email"]);
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

/// The inputs of every positive vector, for both modes, in file order.
fn positive_drafts() -> Vec<Draft> {
    let mut drafts = Vec::new();
    for mode in ["sealed", "signed"] {
        drafts.extend(flow_drafts(mode));
        drafts.extend(key_and_size_drafts(mode));
        drafts.extend(time_drafts(mode));
        drafts.extend(number_drafts(mode));
    }
    drafts
}

/// The question the flows ask in round 1.
fn ship_ask() -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Where to?",
        "requestedSchema": {"type": "object", "properties": {"trackingNumber": {"type": "string"}},
        "required": ["trackingNumber"]}}})
}

fn user(principal: &str, method: &str, target: &str, arguments: Option<Value>) -> BindingSpec {
    BindingSpec {
        principal: Some(principal.to_owned()),
        method: method.to_owned(),
        target: target.to_owned(),
        arguments,
    }
}

fn one_key() -> KeysSpec {
    KeysSpec {
        active: KEY_1.to_owned(),
        verify_only: vec![],
    }
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

/// Key rotation and a long application payload.
fn key_and_size_drafts(mode: &'static str) -> Vec<Draft> {
    let mut drafts = Vec::new();
    drafts.push(Draft {
        name: "rotation-verify-only-key",
        description: "minted with key 1; opened by a ring where key 2 is active and key 1 verify-only",
        mode,
        anonymous: false,
        binding: user("user-7", "tools/call", "ShipOrder", Some(json!({"orderId": 42}))),
        claims: claims_value(1, 6, &[], &[], json!({"cart": 17})),
        mint_key: Some(KEY_1),
        keys: KeysSpec {
            active: KEY_2.to_owned(),
            verify_only: vec![KEY_1.to_owned()],
        },
        now: T0 + 60,
    });
    drafts.push(Draft {
        name: "app-data-512",
        description: "512 bytes of application data",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "tools/call",
            "signup",
            Some(json!({"source": "web"})),
        ),
        claims: claims_value(1, 7, &[], &[], json!({"blob": "a".repeat(500)})),
        mint_key: None,
        keys: one_key(),
        now: T0 + 60,
    });
    drafts
}

/// The edges of the clock checks.
fn time_drafts(mode: &'static str) -> Vec<Draft> {
    let mut drafts = Vec::new();
    drafts.push(Draft {
        name: "last-valid-second",
        description: "opened one second before expiry",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "tools/call",
            "ShipOrder",
            Some(json!({"orderId": 42})),
        ),
        claims: claims_value(1, 8, &[], &[], json!({})),
        mint_key: None,
        keys: one_key(),
        now: T0 + 60 + 599,
    });
    drafts.push(Draft {
        name: "issued-at-skew-edge",
        description: "issued exactly the allowed skew (60 s) after the verifier's clock",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "tools/call",
            "ShipOrder",
            Some(json!({"orderId": 42})),
        ),
        claims: claims_value(1, 9, &[], &[], json!({})),
        mint_key: None,
        keys: one_key(),
        now: T0,
    });
    drafts
}

/// Numbers in the arguments, the latest times, re-asks and effects.
fn number_drafts(mode: &'static str) -> Vec<Draft> {
    let mut drafts = Vec::new();
    drafts.push(Draft {
        name: "big-integer",
        description: "an integer argument beyond 2^53 is bound exactly (§4.1)",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "tools/call",
            "ShipOrder",
            Some(json!({"orderId": 1_234_567_890_123_456_789_u64})),
        ),
        claims: claims_value(1, 10, &[], &[], json!({})),
        mint_key: None,
        keys: one_key(),
        now: T0 + 60,
    });
    drafts.push(Draft {
        name: "number-forms",
        description: "integers and doubles of every range: exact digits below 10^21, RFC 8785 otherwise (§4.1)",
        mode,
        anonymous: false,
        binding: user("user-7", "tools/call", "Measure", Some(number_forms())),
        claims: claims_value(1, 11, &[], &[], json!({})),
        mint_key: None,
        keys: one_key(),
        now: T0 + 60,
    });
    for (name, description, iat) in [
        (
            "latest-times",
            "times at the end of year 9999 (§5)",
            TIME_MAX - 1800,
        ),
        (
            "earliest-times",
            "times at the start of year -9999 (§5)",
            TIME_MIN,
        ),
    ] {
        drafts.push(Draft {
            name,
            description,
            mode,
            anonymous: false,
            binding: user(
                "user-7",
                "tools/call",
                "ShipOrder",
                Some(json!({"orderId": 42})),
            ),
            claims: json!({"iat": iat, "exp": iat + 600, "dl": iat + 1800, "rnd": 1,
                "fid": layout::encode_id(&[12; 16]), "q": {}, "ans": {}, "app": null}),
            mint_key: None,
            keys: one_key(),
            now: iat + 599,
        });
    }
    drafts.push(Draft {
        name: "reask-and-effects",
        description: "round 2 asking a form again after two invalid answers (`inv`), one effect run (`once`)",
        mode,
        anonymous: false,
        binding: user("user-7", "tools/call", "signup", None),
        claims: reask_claims(),
        mint_key: None,
        keys: one_key(),
        now: T0 + 150,
    });
    drafts
}

/// The first and last second of the claims' time range (§5).
const TIME_MIN: i64 = -377_705_116_800;
const TIME_MAX: i64 = 253_402_300_799;

/// Arguments with a number of each kind and range `serde_json` holds.
fn number_forms() -> Value {
    json!({
        "small": 42,
        "negative": -7,
        "minusZero": -0.0,
        "fraction": 0.1,
        "tiny": 1e-7,
        "integralDouble": 1.0,
        "twoTo53PlusOne": 9_007_199_254_740_993_u64,
        "twoTo63Double": 9_223_372_036_854_775_808.0_f64,
        "u64Max": u64::MAX,
        "i64Min": i64::MIN,
        "twoTo64Double": 18_446_744_073_709_551_616.0_f64,
        "belowTenTo21": 999_999_999_999_999_868_928.0_f64,
        "tenTo21": 1e21,
        "large": 1e300,
        "nested": [2.5, {"b": 9_007_199_254_740_992.0_f64, "a": -9_007_199_254_740_993_i64}],
    })
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
        .seal_claims(
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
    vector
}

/// A negative vector made from a positive one: `change` edits a copy.
fn negative(
    base: &Vector,
    name: &str,
    description: &str,
    reason: &str,
    change: impl FnOnce(&mut Vector),
) -> Vector {
    let mut vector = base.clone();
    vector.name = format!("{}-{name}", base.mode);
    vector.description = description.to_owned();
    vector.arguments_canonical = None;
    vector.arguments_digest = None;
    vector.context = None;
    vector.claims_json = None;
    vector.nonce = None;
    vector.mint_key = None;
    vector.expect = "fail".to_owned();
    vector.reason = Some(reason.to_owned());
    change(&mut vector);
    vector
}

fn edit_bytes(token: &str, edit: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut bytes = layout::decode_token(token).unwrap();
    edit(&mut bytes);
    layout::encode_token(&bytes)
}

fn negatives_for(base: &Vector, other_mode: &Vector) -> Vec<Vector> {
    [
        tampered_negatives(base, other_mode),
        clock_negatives(base),
        text_negatives(base),
    ]
    .concat()
}

/// Edited bytes, another mode, another binding or audience: `unsupported_version`, `unknown_key`, `forged`, `missing_principal`.
fn tampered_negatives(base: &Vector, other_mode: &Vector) -> Vec<Vector> {
    let len = layout::decode_token(&base.token).unwrap().len();
    let header_len = if base.mode == "sealed" { 29 } else { 5 };
    let tag_len = if base.mode == "sealed" { 16 } else { 32 };
    vec![
        negative(
            base,
            "version-unknown",
            "version byte changed to 0x7f",
            "unsupported_version",
            |v| {
                v.token = edit_bytes(&v.token, |b| b[0] = 0x7f);
            },
        ),
        negative(
            base,
            "mode-swapped",
            "a token of the other mode",
            "unsupported_version",
            |v| {
                v.token = other_mode.token.clone();
            },
        ),
        negative(
            base,
            "key-id-flipped",
            "one bit of the key id flipped",
            "unknown_key",
            |v| {
                v.token = edit_bytes(&v.token, |b| b[2] ^= 0x01);
            },
        ),
        negative(
            base,
            "body-flipped",
            "one bit of the body flipped",
            "forged",
            |v| {
                v.token = edit_bytes(&v.token, |b| b[header_len + 3] ^= 0x20);
            },
        ),
        negative(
            base,
            "tag-first-byte",
            "first tag byte flipped",
            "forged",
            |v| {
                v.token = edit_bytes(&v.token, |b| b[len - tag_len] ^= 0x01);
            },
        ),
        negative(
            base,
            "tag-last-byte",
            "last tag byte flipped",
            "forged",
            |v| {
                v.token = edit_bytes(&v.token, |b| b[len - 1] ^= 0x80);
            },
        ),
        negative(
            base,
            "wrong-principal",
            "presented by another principal",
            "forged",
            |v| {
                v.binding.principal = Some("user-8".to_owned());
            },
        ),
        negative(
            base,
            "anonymous-binding",
            "no principal, codec not anonymous",
            "missing_principal",
            |v| {
                v.binding.principal = None;
            },
        ),
        negative(
            base,
            "wrong-method",
            "presented on prompts/get",
            "forged",
            |v| {
                v.binding.method = "prompts/get".to_owned();
            },
        ),
        negative(
            base,
            "wrong-target",
            "presented on another tool",
            "forged",
            |v| {
                v.binding.target = "DeleteOrder".to_owned();
            },
        ),
        negative(
            base,
            "wrong-arguments",
            "presented with other arguments",
            "forged",
            |v| {
                v.binding.arguments = Some(json!({"orderId": 43}));
            },
        ),
        negative(
            base,
            "wrong-audience",
            "presented to another server",
            "forged",
            |v| {
                v.audience = "https://other.example.com/mcp".to_owned();
            },
        ),
    ]
}

/// The clock and the key ring: `expired`, `not_yet_valid`, `unknown_key` after a rotation.
fn clock_negatives(base: &Vector) -> Vec<Vector> {
    vec![
        negative(
            base,
            "expired",
            "opened exactly at expiry",
            "expired",
            |v| {
                v.now = T0 + 60 + 600;
            },
        ),
        negative(
            base,
            "ttl-lowered",
            "the verifier's TTL is now 300 s; opened 300 s after issue",
            "expired",
            |v| {
                v.policy.ttl = 300;
                v.now = T0 + 60 + 300;
            },
        ),
        negative(
            base,
            "not-yet-valid",
            "issued 61 s after the verifier's clock (skew 60 s)",
            "not_yet_valid",
            |v| {
                v.now = T0 + 60 - 61;
            },
        ),
        negative(
            base,
            "unknown-key-after-rotation",
            "the ring no longer holds the minting key",
            "unknown_key",
            |v| {
                v.keys = KeysSpec {
                    active: KEY_2.to_owned(),
                    verify_only: vec![],
                };
            },
        ),
        negative(base, "extra-byte", "one byte appended", "forged", |v| {
            v.token = edit_bytes(&v.token, |b| b.push(0));
        }),
        negative(base, "truncated-byte", "last byte removed", "forged", |v| {
            v.token = edit_bytes(&v.token, |b| {
                b.pop();
            });
        }),
    ]
}

/// Text and length edge cases: `malformed`, `too_large`, `forged`.
fn text_negatives(base: &Vector) -> Vec<Vector> {
    let header_len = if base.mode == "sealed" { 29 } else { 5 };
    vec![
        negative(
            base,
            "truncated-to-header",
            "only the header is left",
            "malformed",
            |v| {
                v.token = edit_bytes(&v.token, |b| b.truncate(header_len));
            },
        ),
        negative(
            base,
            "padding",
            "base64 padding appended",
            "malformed",
            |v| {
                v.token.push('=');
            },
        ),
        negative(
            base,
            "standard-alphabet",
            "a character of the standard alphabet (+)",
            "malformed",
            |v| {
                v.token.replace_range(10..11, "+");
            },
        ),
        negative(
            base,
            "trailing-newline",
            "a newline appended",
            "malformed",
            |v| {
                v.token.push('\n');
            },
        ),
        negative(base, "empty", "the empty string", "malformed", |v| {
            v.token = String::new();
        }),
        negative(
            base,
            "oversize",
            "one character over the 8192 cap (checked before decoding)",
            "too_large",
            |v| {
                v.token = "!".repeat(8193);
            },
        ),
        negative(
            base,
            "oversize-small-cap",
            "a valid token over a 256-character cap",
            "too_large",
            |v| {
                v.policy.max_token_len = 256;
            },
        ),
    ]
}

/// Seals arbitrary claim bytes with the vector's minting key and binding.
fn seal_raw(base: &Vector, plain: &[u8], nonce_seed: u8) -> String {
    let nonce = (base.mode == "sealed")
        .then(|| <[u8; NONCE_LEN]>::try_from(unhex(&nonce_for(nonce_seed))).unwrap());
    base.codec(true)
        .seal_bytes(&base.binding.binding(), plain, nonce)
        .unwrap()
}

/// Negative vectors for the rules a tampered token cannot reach: authentic
/// tokens with odd claims, and text-level edge cases.
fn edge_negatives(mode: &str, positives: &[Vector]) -> Vec<Vector> {
    let base = positives
        .iter()
        .find(|v| v.name == format!("{mode}-basic"))
        .unwrap();
    let claims = |rnd: u32, iat: i64, dl: i64| {
        serde_json::to_vec(
            &json!({"iat": iat, "exp": (iat + 600).min(dl), "dl": dl, "rnd": rnd,
            "fid": layout::encode_id(&[11; 16]), "q": {}, "ans": {}, "app": {}}),
        )
        .unwrap()
    };
    let mut out = vec![
        negative(
            base,
            "flow-deadline",
            "round 4, opened exactly at the flow's deadline",
            "flow_expired",
            |v| {
                v.token = seal_raw(v, &claims(4, T0 + 1500, T0 + 1800), 41);
                v.now = T0 + 1800;
            },
        ),
        negative(
            base,
            "round-zero",
            "an authentic token claiming round 0",
            "too_many_rounds",
            |v| {
                v.token = seal_raw(v, &claims(0, T0 + 60, T0 + 1800), 42);
            },
        ),
        negative(
            base,
            "bad-claims-missing-member",
            "authentic, but the claims lack `app`",
            "bad_claims",
            |v| {
                let plain = br#"{"iat":1800000060,"exp":1800000660,"dl":1800001800,"rnd":1,"fid":"CwsLCwsLCwsLCwsLCwsLCw","q":{},"ans":{}}"#;
                v.token = seal_raw(v, plain, 43);
            },
        ),
        negative(
            base,
            "bad-claims-extra-member",
            "authentic, but the claims have an unknown member",
            "bad_claims",
            |v| {
                let plain = br#"{"iat":1800000060,"exp":1800000660,"dl":1800001800,"rnd":1,"fid":"CwsLCwsLCwsLCwsLCwsLCw","q":{},"ans":{},"app":{},"admin":true}"#;
                v.token = seal_raw(v, plain, 44);
            },
        ),
        negative(
            base,
            "bad-claims-not-json",
            "authentic, but the claims are not JSON",
            "bad_claims",
            |v| {
                v.token = seal_raw(v, b"not json", 45);
            },
        ),
        negative(
            base,
            "replayed",
            "opened twice with a replay guard; the second open fails",
            "replayed",
            |v| {
                v.replay_guard = true;
            },
        ),
        negative(
            base,
            "empty-principal",
            "the binding's principal is the empty string",
            "missing_principal",
            |v| {
                v.binding.principal = Some(String::new());
            },
        ),
        negative(
            base,
            "oversize-non-ascii",
            "4097 two-byte characters: 8194 bytes, over the cap in bytes",
            "too_large",
            |v| {
                v.token = "é".repeat(4097);
            },
        ),
        negative(
            base,
            "short-unknown-version",
            "one byte, 0x7f",
            "unsupported_version",
            |v| {
                v.token = "fw".to_owned();
            },
        ),
        negative(
            base,
            "short-own-layout",
            "40 bytes whose version byte says sealed: too short for a sealed token",
            "malformed",
            |v| {
                let mut bytes = vec![0x01u8; 40];
                bytes[1..5].copy_from_slice(&[0xe6, 0xda, 0x0a, 0xdc]);
                v.token = layout::encode_token(&bytes);
            },
        ),
    ];
    out.extend(claims_rule_negatives(base));
    out.push(non_canonical_base64(mode, positives));
    out
}

/// Non-canonical base64: stray low bits in the last character of a token of
/// `mode` whose length is not a multiple of 3.
fn non_canonical_base64(mode: &str, positives: &[Vector]) -> Vector {
    let odd = positives
        .iter()
        .find(|v| {
            v.mode == mode
                && !layout::decode_token(&v.token)
                    .unwrap()
                    .len()
                    .is_multiple_of(3)
        })
        .unwrap();
    let mut stray = odd.token.clone();
    let last = stray.pop().unwrap();
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let index = alphabet.find(last).unwrap();
    stray.push(alphabet.chars().nth(index ^ 1).unwrap());
    negative(
        odd,
        "non-canonical-base64",
        "stray low bits in the last character",
        "malformed",
        |v| {
            v.name = format!("{mode}-non-canonical-base64");
            v.token = stray;
        },
    )
}

/// Claims that open: every negative of [`claims_rule_negatives`] breaks one
/// rule of §5 in a copy of them.
fn good_claims_text() -> String {
    let ship =
        digest_text(&json!({"method": "elicitation/create", "params": {"message": "Ship?"}}));
    let email =
        digest_text(&json!({"method": "elicitation/create", "params": {"message": "Email?"}}));
    format!(
        concat!(
            r#"{{"iat":1800000060,"exp":1800000660,"dl":1800001800,"rnd":1,"fid":"CwsLCwsLCwsLCwsLCwsLCw","#,
            r#""q":{{"ship":{ship}}},"ans":{{"email":{{"q":{email},"r":{{"action":"decline"}}}}}},"app":{{}}}}"#
        ),
        ship = ship,
        email = email,
    )
}

/// A negative vector for every rule of the claims (§5, §8 step 7): authentic
/// tokens whose claims break exactly one rule, each an edit of the good
/// claims (which open, checked first).
fn claims_rule_negatives(base: &Vector) -> Vec<Vector> {
    let good = good_claims_text();
    let (ship, email) = (ship_digest(), email_digest());
    let control = seal_raw(base, good.as_bytes(), 99);
    let opened = base
        .codec(false)
        .open_at::<Value>(&control, &base.binding.binding(), base.now());
    assert!(opened.is_ok(), "the claims the negatives edit must open");
    let with_both = good.replacen(
        CLAIMS_TAIL,
        &format!(r#","inv":{{"ship":{{"q":"{ship}","n":2}}}},"once":["mail"]{CLAIMS_TAIL}"#),
        1,
    );
    let control = seal_raw(base, with_both.as_bytes(), 98);
    let opened = base
        .codec(false)
        .open_at::<Value>(&control, &base.binding.binding(), base.now());
    assert!(opened.is_ok(), "the claims with inv and once open");
    // The order fixes each vector's nonce: new edits go last.
    let edits = [
        member_and_number_edits(&good),
        identifier_edits(&ship),
        answer_edits(&email),
        reask_and_effect_edits(&ship, &email),
        strictness_edits(&good, &email),
    ]
    .concat();
    edits
        .into_iter()
        .enumerate()
        .map(|(index, (name, description, from, to))| {
            assert_eq!(good.matches(from.as_str()).count(), 1, "{name}");
            let plain = good.replacen(&from, &to, 1);
            let description = format!("authentic, but the claims break a rule: {description}");
            negative(
                base,
                &format!("claims-{name}"),
                &description,
                "bad_claims",
                |v| {
                    v.token = seal_raw(v, plain.as_bytes(), 100 + index as u8);
                },
            )
        })
        .collect()
}

/// One edit of the good claims: name, description, the text replaced, and
/// what replaces it.
type Edit = (&'static str, &'static str, String, String);

/// How the good claims end; `inv` and `once`, absent from them, go before it.
const CLAIMS_TAIL: &str = r#","app":{}}"#;

fn ship_digest() -> String {
    let ship =
        digest_text(&json!({"method": "elicitation/create", "params": {"message": "Ship?"}}));
    ship.as_str().unwrap().to_owned()
}

fn email_digest() -> String {
    let email =
        digest_text(&json!({"method": "elicitation/create", "params": {"message": "Email?"}}));
    email.as_str().unwrap().to_owned()
}

/// An identifier of `n` bytes, spelled as the claims spell them.
fn id(n: usize) -> String {
    layout::encode_id(&vec![7; n])
}

/// Adds `inv` with `value` to the good claims.
fn inv_edit(name: &'static str, description: &'static str, value: String) -> Edit {
    (
        name,
        description,
        CLAIMS_TAIL.to_owned(),
        format!(r#","inv":{value}{CLAIMS_TAIL}"#),
    )
}

/// Adds `once` with `value` to the good claims.
fn once_edit(name: &'static str, description: &'static str, value: &str) -> Edit {
    (
        name,
        description,
        CLAIMS_TAIL.to_owned(),
        format!(r#","once":{value}{CLAIMS_TAIL}"#),
    )
}

/// The claims as a whole, the times and `rnd`.
fn member_and_number_edits(good: &str) -> Vec<Edit> {
    vec![
        (
            "duplicate-member",
            "a top-level member twice",
            r#""rnd":1,"#.into(),
            r#""rnd":1,"rnd":1,"#.into(),
        ),
        (
            "not-an-object",
            "the claims are a JSON array",
            good.to_owned(),
            format!("[{good}]"),
        ),
        (
            "iat-after-range",
            "iat one second after year 9999",
            "1800000060".into(),
            "253402300800".into(),
        ),
        (
            "dl-before-range",
            "dl one second before year -9999",
            "1800001800".into(),
            "-377705116801".into(),
        ),
        (
            "exp-beyond-i64",
            "exp beyond a signed 64-bit integer",
            "1800000660".into(),
            "9223372036854775808".into(),
        ),
        (
            "iat-fraction",
            "a fractional time",
            "1800000060".into(),
            "1800000060.5".into(),
        ),
        (
            "iat-integral-fraction",
            "a time written as a fraction",
            "1800000060".into(),
            "1800000060.0".into(),
        ),
        (
            "iat-exponent",
            "a time written with an exponent",
            "1800000060".into(),
            "1.80000006e9".into(),
        ),
        (
            "iat-string",
            "a time as a string",
            "1800000060".into(),
            r#""1800000060""#.into(),
        ),
        (
            "rnd-above-u32",
            "rnd 2^32",
            r#""rnd":1"#.into(),
            r#""rnd":4294967296"#.into(),
        ),
        (
            "rnd-negative",
            "rnd -1",
            r#""rnd":1"#.into(),
            r#""rnd":-1"#.into(),
        ),
        (
            "rnd-minus-zero",
            "rnd -0, which JSON parsers read as a double",
            r#""rnd":1"#.into(),
            r#""rnd":-0"#.into(),
        ),
    ]
}

/// The flow id and the digests of `q`.
fn identifier_edits(ship: &str) -> Vec<Edit> {
    vec![
        (
            "fid-15-bytes",
            "a flow id of 15 bytes",
            "CwsLCwsLCwsLCwsLCwsLCw".into(),
            id(15),
        ),
        (
            "fid-17-bytes",
            "a flow id of 17 bytes",
            "CwsLCwsLCwsLCwsLCwsLCw".into(),
            id(17),
        ),
        (
            "fid-padded",
            "a flow id with base64 padding",
            "CwsLCwsLCwsLCwsLCwsLCw".into(),
            "CwsLCwsLCwsLCwsLCwsLCw==".into(),
        ),
        (
            "fid-standard-alphabet",
            "a flow id in the standard alphabet",
            "CwsLCwsLCwsLCwsLCwsLCw".into(),
            "+wsLCwsLCwsLCwsLCwsLCw".into(),
        ),
        (
            "q-digest-31-bytes",
            "a question digest of 31 bytes",
            ship.into(),
            id(31),
        ),
        (
            "q-digest-33-bytes",
            "a question digest of 33 bytes",
            ship.into(),
            id(33),
        ),
        (
            "q-key-twice",
            "a question key twice",
            r#""q":{"#.into(),
            format!(r#""q":{{"ship":"{ship}","#),
        ),
        (
            "q-not-object",
            "q an array",
            format!(r#""q":{{"ship":"{ship}"}}"#),
            "\"q\":[]".into(),
        ),
    ]
}

/// `ans` and its answers.
fn answer_edits(email: &str) -> Vec<Edit> {
    vec![
        (
            "ans-digest-31-bytes",
            "an answer's question digest of 31 bytes",
            email.into(),
            id(31),
        ),
        (
            "ans-missing-response",
            "an answer without r",
            r#","r":{"action":"decline"}"#.into(),
            String::new(),
        ),
        (
            "ans-missing-question",
            "an answer without q",
            format!(r#""q":"{email}","#),
            String::new(),
        ),
        (
            "ans-extra-member",
            "an answer with a third member",
            r#","r":"#.into(),
            r#","x":1,"r":"#.into(),
        ),
        (
            "ans-response-not-object",
            "an answer whose r is a string",
            r#""r":{"action":"decline"}"#.into(),
            r#""r":"decline""#.into(),
        ),
        (
            "ans-bare-value",
            "an answer as a bare value (the untyped layout)",
            format!(r#"{{"q":"{email}","r":{{"action":"decline"}}}}"#),
            r#""ada@example.com""#.into(),
        ),
        (
            "ans-key-twice",
            "an answer key twice",
            r#""ans":{"#.into(),
            format!(r#""ans":{{"email":{{"q":"{email}","r":{{}}}},"#),
        ),
    ]
}

/// `inv` and `once`.
fn reask_and_effect_edits(ship: &str, email: &str) -> Vec<Edit> {
    vec![
        inv_edit("inv-empty", "inv present but empty", "{}".into()),
        inv_edit(
            "inv-not-object",
            "inv an array",
            format!(r#"[{{"q":"{ship}","n":1}}]"#),
        ),
        inv_edit(
            "inv-key-not-asked",
            "a re-ask under a key that is not in q",
            format!(r#"{{"email":{{"q":"{email}","n":1}}}}"#),
        ),
        inv_edit(
            "inv-key-twice",
            "a re-ask key twice",
            format!(r#"{{"ship":{{"q":"{ship}","n":1}},"ship":{{"q":"{ship}","n":2}}}}"#),
        ),
        inv_edit(
            "inv-count-zero",
            "a re-ask after 0 invalid answers",
            format!(r#"{{"ship":{{"q":"{ship}","n":0}}}}"#),
        ),
        inv_edit(
            "inv-count-above-u32",
            "a re-ask count of 2^32",
            format!(r#"{{"ship":{{"q":"{ship}","n":4294967296}}}}"#),
        ),
        inv_edit(
            "inv-count-fraction",
            "a re-ask count written as a fraction",
            format!(r#"{{"ship":{{"q":"{ship}","n":1.0}}}}"#),
        ),
        inv_edit(
            "inv-missing-count",
            "a re-ask without n",
            format!(r#"{{"ship":{{"q":"{ship}"}}}}"#),
        ),
        inv_edit(
            "inv-extra-member",
            "a re-ask with a third member",
            format!(r#"{{"ship":{{"q":"{ship}","n":1,"x":1}}}}"#),
        ),
        inv_edit(
            "inv-digest-31-bytes",
            "a re-ask's question digest of 31 bytes",
            format!(r#"{{"ship":{{"q":"{}","n":1}}}}"#, id(31)),
        ),
        once_edit("once-empty", "once present but empty", "[]"),
        once_edit(
            "once-name-twice",
            "an effect name twice",
            r#"["mail","mail"]"#,
        ),
        once_edit("once-not-strings", "an effect name that is a number", "[1]"),
        once_edit("once-not-array", "once a string", r#""mail""#),
    ]
}

/// The edits for the rules of §5.2 that revision 2 first wrote down: `ans`
/// not an object, how deep the claims nest, which number literals `rnd` is,
/// lone surrogates and numbers beyond a double anywhere in the claims.
/// Appended after the older edits, so those keep their nonces.
fn strictness_edits(good: &str, email: &str) -> Vec<Edit> {
    let ans = format!(r#""ans":{{"email":{{"q":"{email}","r":{{"action":"decline"}}}}}}"#);
    assert_eq!(good.matches(ans.as_str()).count(), 1);
    let app = r#""app":{}"#;
    let too_deep = format!(r#""app":{}{}"#, "[".repeat(127), "]".repeat(127));
    vec![
        ("ans-not-object", "ans an array", ans, r#""ans":[]"#.into()),
        (
            "app-too-deep",
            "app 127 arrays deep: with the claims object, 128 levels of nesting",
            app.into(),
            too_deep,
        ),
        (
            "app-lone-surrogate",
            "a lone surrogate escape in app",
            app.into(),
            r#""app":"\ud800""#.into(),
        ),
        (
            "app-number-beyond-double",
            "a number in app beyond the range of a double",
            app.into(),
            r#""app":1e400"#.into(),
        ),
        (
            "rnd-integral-fraction",
            "rnd written as a fraction",
            r#""rnd":1,"#.into(),
            r#""rnd":1.0,"#.into(),
        ),
        (
            "rnd-exponent",
            "rnd written with an exponent",
            r#""rnd":1,"#.into(),
            r#""rnd":1e0,"#.into(),
        ),
    ]
}

/// Authentic tokens at the length limits of the layout (§2), and an `app`
/// the verifier's application type does not accept (§5.2).
fn limit_negatives(base: &Vector) -> Vec<Vector> {
    let shortest = seal_raw(base, b"", 60);
    vec![
        negative(
            base,
            "shortest-authentic",
            "the shortest token the layout allows (header and tag, no claims), authentic: the empty claims do not parse",
            "bad_claims",
            |v| v.token.clone_from(&shortest),
        ),
        negative(
            base,
            "one-under-shortest",
            "the shortest authentic token with its last byte removed: too short for the layout",
            "malformed",
            |v| {
                v.token = edit_bytes(&shortest, |b| {
                    b.pop();
                })
            },
        ),
        negative(
            base,
            "app-wrong-type",
            "authentic claims whose app is a string, for a verifier whose application type is an object",
            "bad_claims",
            |v| {
                let plain = good_claims_text().replacen(r#""app":{}"#, r#""app":"cart""#, 1);
                v.token = seal_raw(v, plain.as_bytes(), 61);
                v.app_type = Some("object".to_owned());
            },
        ),
    ]
}

/// Every vector file, as the generator makes it: (file name, text).
pub(super) fn files() -> Vec<(&'static str, String)> {
    let positives = positives();
    let negatives = negatives(&positives);
    let of_mode = |mode: &str| -> Vec<Vector> {
        positives
            .iter()
            .filter(|v| v.mode == mode)
            .cloned()
            .collect()
    };
    let cases = ArgumentsFile {
        description: "The arguments digest (docs/FORMAT.md §4.1): the texts of a case share one \
            canonical form and digest; no two cases share a digest."
            .to_owned(),
        cases: arguments_cases(),
    };
    vec![
        (ARGUMENTS_FILE, pretty(&cases)),
        (
            "negative.json",
            vector_file(
                "Negative vectors: each must fail to open, for the reason it names. See docs/FORMAT.md.",
                negatives,
            ),
        ),
        (
            "sealed.json",
            vector_file(
                "Positive known-answer vectors, sealed mode (XChaCha20-Poly1305). See docs/FORMAT.md.",
                of_mode("sealed"),
            ),
        ),
        (
            "signed.json",
            vector_file(
                "Positive known-answer vectors, signed mode (HMAC-SHA256). See docs/FORMAT.md.",
                of_mode("signed"),
            ),
        ),
    ]
}

fn vector_file(description: &str, vectors: Vec<Vector>) -> String {
    pretty(&VectorFile {
        description: description.to_owned(),
        vectors,
    })
}

/// Pretty JSON with a final newline, as the files are checked in.
fn pretty(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap();
    text.push('\n');
    text
}

/// The positive vectors of both modes, in file order.
fn positives() -> Vec<Vector> {
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

fn by_name<'a>(positives: &'a [Vector], name: &str) -> &'a Vector {
    positives.iter().find(|v| v.name == name).unwrap()
}

/// The negative vectors of both modes, in file order, edited from `positives`.
fn negatives(positives: &[Vector]) -> Vec<Vector> {
    let by_name = |name: &str| by_name(positives, name);
    let mut negatives = Vec::new();
    for (mode, other) in [("sealed", "signed"), ("signed", "sealed")] {
        let base = by_name(&format!("{mode}-basic"));
        negatives.extend(negatives_for(base, by_name(&format!("{other}-basic"))));
        // The carried-answers vector is round 3.
        let round3 = by_name(&format!("{mode}-carried-answers-unicode"));
        negatives.push(negative(
            round3,
            "round-cap",
            "a round-3 token; the verifier allows 2 rounds",
            "too_many_rounds",
            |v| {
                v.policy.max_rounds = 2;
            },
        ));
        negatives.extend(time_overflow_negatives(
            base,
            by_name(&format!("{mode}-latest-times")),
        ));
        negatives.extend(number_negatives(
            by_name(&format!("{mode}-big-integer")),
            by_name(&format!("{mode}-number-forms")),
        ));
    }
    for mode in ["sealed", "signed"] {
        negatives.extend(edge_negatives(mode, positives));
    }
    for mode in ["sealed", "signed"] {
        negatives.extend(limit_negatives(by_name(&format!("{mode}-basic"))));
    }
    negatives
}

/// An overflow fails the step it is in (§8): `now + skew` at step 8,
/// `iat + ttl` at step 10.
fn time_overflow_negatives(basic: &Vector, latest: &Vector) -> Vec<Vector> {
    vec![
        negative(
            basic,
            "ttl-overflow",
            "the verifier's TTL is 2^63 - 1 s: iat + ttl overflows at step 10",
            "expired",
            |v| {
                v.policy.ttl = i64::MAX;
            },
        ),
        negative(
            latest,
            "skew-overflow",
            "the verifier's clock 30 s before the end of year 9999: now + skew overflows at step 8",
            "not_yet_valid",
            |v| {
                v.now = TIME_MAX - 30;
            },
        ),
    ]
}

/// Tokens bound to exact numbers, presented with numbers of another value
/// (§4.1).
fn number_negatives(big: &Vector, forms: &Vector) -> Vec<Vector> {
    let with = |base: &Vector, name: &str, description: &str, member: &str, number: Value| {
        negative(base, name, description, "forged", |v| {
            let arguments = v.binding.arguments.as_mut().unwrap();
            arguments[member] = number;
        })
    };
    vec![
        with(
            big,
            "big-integer-neighbour",
            "orderId 1234567890123456700: the same double, another integer",
            "orderId",
            json!(1_234_567_890_123_456_700_u64),
        ),
        with(
            big,
            "big-integer-as-double",
            "orderId as the double nearest it (1234567890123456768)",
            "orderId",
            json!(1_234_567_890_123_456_789_u64 as f64),
        ),
        with(
            forms,
            "two-to-53-neighbour",
            "9007199254740992 for 9007199254740993",
            "twoTo53PlusOne",
            json!(9_007_199_254_740_992_u64),
        ),
        with(
            forms,
            "u64-max-as-double",
            "2^64 (a double) for 2^64 - 1",
            "u64Max",
            json!(u64::MAX as f64),
        ),
        with(
            forms,
            "shortest-digits-as-integer",
            "the integer 9223372036854776000 for the double 2^63",
            "twoTo63Double",
            json!(9_223_372_036_854_776_000_u64),
        ),
        with(
            forms,
            "next-double",
            "the double after 0.1",
            "fraction",
            json!(f64::from_bits(0.1_f64.to_bits() + 1)),
        ),
    ]
}
