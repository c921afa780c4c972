//! Known-answer vectors: `tests/vectors/*.json`.
//!
//! Every positive vector is minted again from its inputs (key, nonce, binding,
//! claims) and must give the same token byte for byte, then open at `now`.
//! Every negative vector must fail to open with the reason it names.
//!
//! The files are written by `regenerate` below (`MRTR_GUARD_WRITE_VECTORS=1
//! cargo test --lib vectors -- --ignored`) and then frozen: a change to the
//! format shows up as a failing positive vector.

#![allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use super::layout::{self, NONCE_LEN};
use super::*;
use crate::json::JsonDigest;
use crate::wire::Method;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct VectorFile {
    description: String,
    vectors: Vec<Vector>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Vector {
    name: String,
    description: String,
    mode: String,
    audience: String,
    /// Master keys (standard base64): the ring that opens.
    keys: KeysSpec,
    /// The master key that minted, when not the opening ring's active key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mint_key: Option<String>,
    anonymous: bool,
    policy: PolicySpec,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    replay_guard: bool,
    binding: BindingSpec,
    /// Intermediate values, for implementers (positive vectors only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    arguments_canonical: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    arguments_digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    context: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    claims_json: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nonce: Option<String>,
    token: String,
    /// Unix seconds at which the token is opened.
    now: i64,
    /// `"valid"`, or `"fail"` with `reason`.
    expect: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeysSpec {
    active: String,
    verify_only: Vec<String>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicySpec {
    ttl: i64,
    flow_ttl: i64,
    skew: i64,
    max_rounds: u32,
    max_token_len: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BindingSpec {
    principal: Option<String>,
    method: String,
    target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    arguments: Option<Value>,
}

impl BindingSpec {
    /// The canonical form of the arguments (§4.1): absent and `null` are `{}`.
    fn arguments_canonical(&self) -> String {
        let empty = Value::Object(serde_json::Map::new());
        let arguments = self.arguments.as_ref().filter(|a| !a.is_null());
        String::from_utf8(crate::json::canonical::canonical(
            arguments.unwrap_or(&empty),
        ))
        .unwrap()
    }

    fn binding(&self) -> Binding<'_> {
        let method = Method::from_name(&self.method).unwrap();
        match &self.principal {
            Some(principal) => {
                Binding::new(principal, method, &self.target, self.arguments.as_ref())
            }
            None => Binding::anonymous(method, &self.target, self.arguments.as_ref()),
        }
    }
}

impl Vector {
    fn codec(&self, for_minting: bool) -> StateCodec {
        let active = match (&self.mint_key, for_minting) {
            (Some(key), true) => key,
            _ => &self.keys.active,
        };
        let mut ring = KeyRing::new(MasterKey::from_base64(active).unwrap());
        if !for_minting {
            for key in &self.keys.verify_only {
                ring = ring
                    .with_verify_only(MasterKey::from_base64(key).unwrap())
                    .unwrap();
            }
        }
        let mode = match self.mode.as_str() {
            "sealed" => Mode::Sealed,
            "signed" => Mode::Signed,
            other => panic!("unknown mode {other}"),
        };
        let policy = Policy::default()
            .with_ttl(Duration::seconds(self.policy.ttl))
            .with_flow_ttl(Duration::seconds(self.policy.flow_ttl))
            .with_skew(Duration::seconds(self.policy.skew))
            .with_max_rounds(self.policy.max_rounds)
            .with_max_token_len(self.policy.max_token_len);
        let mut builder = StateCodec::builder(self.audience.clone(), ring)
            .mode(mode)
            .policy(policy);
        if self.anonymous {
            builder = builder.allow_anonymous();
        }
        if self.replay_guard {
            builder = builder.replay_guard(Arc::new(MemoryReplayGuard::new(16)));
        }
        builder.build().unwrap()
    }

    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(self.now).unwrap()
    }
}

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("vectors")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// The token vector files; `arguments.json` holds the arguments digest cases.
const TOKEN_FILES: [&str; 3] = ["negative.json", "sealed.json", "signed.json"];
const ARGUMENTS_FILE: &str = "arguments.json";

fn load_all() -> Vec<(String, Vector)> {
    let mut all = Vec::new();
    let paths: Vec<_> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    let mut names: Vec<_> = paths
        .iter()
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [&[ARGUMENTS_FILE][..], &TOKEN_FILES[..]].concat());
    for name in TOKEN_FILES {
        let path = vectors_dir().join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let file: VectorFile = serde_json::from_str(&text).unwrap();
        all.extend(file.vectors.into_iter().map(|v| (name.to_owned(), v)));
    }
    all
}

/// Mints the positive vector's token again from its inputs and opens it.
fn check_positive(vector: &Vector) {
    let binding = vector.binding.binding();
    let claims_json = vector.claims_json.as_deref().unwrap();
    let claims = claims::decode::<Value>(claims_json.as_bytes()).unwrap();
    assert_eq!(
        claims::encode(claims.meta(), &claims.clone().into_contents()).unwrap(),
        claims_json.as_bytes(),
        "{}: claims JSON is not in its one serialization",
        vector.name
    );
    assert_eq!(
        vector.arguments_canonical.as_deref(),
        Some(vector.binding.arguments_canonical().as_str()),
        "{}: arguments canonical form",
        vector.name
    );
    assert_eq!(
        vector.arguments_digest.as_deref(),
        Some(hex(binding.arguments().as_bytes()).as_str()),
        "{}: arguments digest",
        vector.name
    );
    let nonce: Option<[u8; NONCE_LEN]> = vector
        .nonce
        .as_deref()
        .map(|n| unhex(n).try_into().unwrap());
    let minter = vector.codec(true);
    let token = minter
        .seal_claims(
            &binding,
            claims.meta(),
            &claims.clone().into_contents(),
            nonce,
        )
        .unwrap();
    assert_eq!(token, vector.token, "{}: minted token differs", vector.name);

    let bytes = layout::decode_token(&token).unwrap();
    let raw = layout::RawToken::split(&bytes).unwrap();
    let context = context::context(raw.mode, raw.header, &vector.audience, &binding);
    assert_eq!(
        vector.context.as_deref(),
        Some(hex(&context).as_str()),
        "{}: context",
        vector.name
    );

    let opened = vector
        .codec(false)
        .open_at::<Value>(&vector.token, &binding, vector.now());
    assert_eq!(opened.as_ref().err(), None, "{}", vector.name);
    assert_eq!(opened.unwrap(), claims, "{}", vector.name);
}

fn check_negative(vector: &Vector) {
    let binding = vector.binding.binding();
    let codec = vector.codec(false);
    if vector.replay_guard {
        let first = codec.open_at::<Value>(&vector.token, &binding, vector.now());
        assert!(
            first.is_ok(),
            "{}: first open must succeed: {first:?}",
            vector.name
        );
    }
    let result = codec.open_at::<Value>(&vector.token, &binding, vector.now());
    let reason = result.as_ref().err().map(StateError::reason);
    assert_eq!(
        reason,
        vector.reason.as_deref(),
        "{}: {}",
        vector.name,
        vector.description
    );
}

#[test]
fn every_vector_holds() {
    let all = load_all();
    let (mut positive, mut negative) = (0, 0);
    for (_, vector) in &all {
        match vector.expect.as_str() {
            "valid" => {
                check_positive(vector);
                positive += 1;
            }
            "fail" => {
                check_negative(vector);
                negative += 1;
            }
            other => panic!("{}: unknown expectation {other}", vector.name),
        }
    }
    println!("known-answer vectors: {positive} positive, {negative} negative, all hold");
    assert!(positive >= 28, "{positive}");
    assert!(negative >= 100, "{negative}");
}

#[test]
fn vector_names_are_unique_and_every_reason_is_covered() {
    let all = load_all();
    let mut names: Vec<_> = all.iter().map(|(_, v)| v.name.as_str()).collect();
    names.sort_unstable();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count, "duplicate vector names");
    let reasons: Vec<_> = all
        .iter()
        .filter_map(|(_, v)| v.reason.as_deref())
        .collect();
    for reason in [
        "bad_claims",
        "too_large",
        "malformed",
        "unsupported_version",
        "unknown_key",
        "forged",
        "expired",
        "not_yet_valid",
        "flow_expired",
        "too_many_rounds",
        "replayed",
        "missing_principal",
    ] {
        assert!(reasons.contains(&reason), "no negative vector for {reason}");
    }
}

/// `tests/vectors/arguments.json`: argument texts grouped by the binding they
/// share (FORMAT.md §4.1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArgumentsFile {
    description: String,
    cases: Vec<ArgumentsCase>,
}

/// Argument texts that share one canonical form and digest.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArgumentsCase {
    name: String,
    description: String,
    /// JSON texts of `params.arguments`, as a client may send them.
    texts: Vec<String>,
    /// Their canonical form.
    canonical: String,
    /// SHA-256 of the canonical form, hex.
    digest: String,
}

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

/// The canonical form and the digest of the arguments `text`.
fn canonical_and_digest(text: &str) -> (String, String) {
    let value: Value = serde_json::from_str(text).unwrap();
    let canonical = String::from_utf8(crate::json::canonical::canonical(&value)).unwrap();
    (canonical, hex(JsonDigest::of(&value).as_bytes()))
}

/// Every text of a case has the case's canonical form and digest, and no two
/// cases share either.
#[test]
fn arguments_cases_hold() {
    let text = std::fs::read_to_string(vectors_dir().join(ARGUMENTS_FILE)).unwrap();
    let file: ArgumentsFile = serde_json::from_str(&text).unwrap();
    let mut digests = std::collections::BTreeSet::new();
    for case in &file.cases {
        for text in &case.texts {
            let (canonical, digest) = canonical_and_digest(text);
            assert_eq!(canonical, case.canonical, "{}: {text}", case.name);
            assert_eq!(digest, case.digest, "{}: {text}", case.name);
        }
        assert!(digests.insert(case.digest.clone()), "{}", case.name);
    }
    assert!(file.cases.len() >= 20, "{}", file.cases.len());
}

fn arguments_cases() -> Vec<ArgumentsCase> {
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

fn positive_drafts() -> Vec<Draft> {
    let ship_ask = json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Where to?",
        "requestedSchema": {"type": "object", "properties": {"trackingNumber": {"type": "string"}},
        "required": ["trackingNumber"]}}});
    let user =
        |principal: &str, method: &str, target: &str, arguments: Option<Value>| BindingSpec {
            principal: Some(principal.to_owned()),
            method: method.to_owned(),
            target: target.to_owned(),
            arguments,
        };
    let one_key = || KeysSpec {
        active: KEY_1.to_owned(),
        verify_only: vec![],
    };
    let mut drafts = Vec::new();
    for mode in ["sealed", "signed"] {
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
    }
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
    };
    let claims_bytes = serde_json::to_vec(&draft.claims).unwrap();
    let claims = claims::decode::<Value>(&claims_bytes).unwrap();
    let canonical_claims = claims::encode(claims.meta(), &claims.clone().into_contents()).unwrap();
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
    // Non-canonical base64: stray low bits in the last character of a token
    // whose length is not a multiple of 3.
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
    out.push(negative(
        odd,
        "non-canonical-base64",
        "stray low bits in the last character",
        "malformed",
        |v| {
            v.name = format!("{mode}-non-canonical-base64");
            v.token = stray;
        },
    ));
    out
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
/// tokens whose claims break exactly one rule.
fn claims_rule_negatives(base: &Vector) -> Vec<Vector> {
    let good = good_claims_text();
    let ship =
        digest_text(&json!({"method": "elicitation/create", "params": {"message": "Ship?"}}));
    let email =
        digest_text(&json!({"method": "elicitation/create", "params": {"message": "Email?"}}));
    let (ship, email) = (ship.as_str().unwrap(), email.as_str().unwrap());
    let id = |n: usize| layout::encode_id(&vec![7; n]);
    let control = seal_raw(base, good.as_bytes(), 99);
    let opened = base
        .codec(false)
        .open_at::<Value>(&control, &base.binding.binding(), base.now());
    assert!(opened.is_ok(), "the claims the negatives edit must open");
    // `inv` and `once` are absent from the good claims: these add them.
    let tail = r#","app":{}}"#;
    let inv = |name, description, value: String| {
        (
            name,
            description,
            tail.to_owned(),
            format!(r#","inv":{value}{tail}"#),
        )
    };
    let once = |name, description, value: &str| {
        (
            name,
            description,
            tail.to_owned(),
            format!(r#","once":{value}{tail}"#),
        )
    };
    let with_both = good.replacen(
        tail,
        &format!(r#","inv":{{"ship":{{"q":"{ship}","n":2}}}},"once":["mail"]{tail}"#),
        1,
    );
    let control = seal_raw(base, with_both.as_bytes(), 98);
    let opened = base
        .codec(false)
        .open_at::<Value>(&control, &base.binding.binding(), base.now());
    assert!(opened.is_ok(), "the claims with inv and once open");
    let edits: Vec<(&str, &str, String, String)> = vec![
        (
            "duplicate-member",
            "a top-level member twice",
            r#""rnd":1,"#.into(),
            r#""rnd":1,"rnd":1,"#.into(),
        ),
        (
            "not-an-object",
            "the claims are a JSON array",
            good.clone(),
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
        inv("inv-empty", "inv present but empty", "{}".into()),
        inv(
            "inv-not-object",
            "inv an array",
            format!(r#"[{{"q":"{ship}","n":1}}]"#),
        ),
        inv(
            "inv-key-not-asked",
            "a re-ask under a key that is not in q",
            format!(r#"{{"email":{{"q":"{email}","n":1}}}}"#),
        ),
        inv(
            "inv-key-twice",
            "a re-ask key twice",
            format!(r#"{{"ship":{{"q":"{ship}","n":1}},"ship":{{"q":"{ship}","n":2}}}}"#),
        ),
        inv(
            "inv-count-zero",
            "a re-ask after 0 invalid answers",
            format!(r#"{{"ship":{{"q":"{ship}","n":0}}}}"#),
        ),
        inv(
            "inv-count-above-u32",
            "a re-ask count of 2^32",
            format!(r#"{{"ship":{{"q":"{ship}","n":4294967296}}}}"#),
        ),
        inv(
            "inv-count-fraction",
            "a re-ask count written as a fraction",
            format!(r#"{{"ship":{{"q":"{ship}","n":1.0}}}}"#),
        ),
        inv(
            "inv-missing-count",
            "a re-ask without n",
            format!(r#"{{"ship":{{"q":"{ship}"}}}}"#),
        ),
        inv(
            "inv-extra-member",
            "a re-ask with a third member",
            format!(r#"{{"ship":{{"q":"{ship}","n":1,"x":1}}}}"#),
        ),
        inv(
            "inv-digest-31-bytes",
            "a re-ask's question digest of 31 bytes",
            format!(r#"{{"ship":{{"q":"{}","n":1}}}}"#, id(31)),
        ),
        once("once-empty", "once present but empty", "[]"),
        once(
            "once-name-twice",
            "an effect name twice",
            r#"["mail","mail"]"#,
        ),
        once("once-not-strings", "an effect name that is a number", "[1]"),
        once("once-not-array", "once a string", r#""mail""#),
    ];
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

#[test]
#[ignore = "writes tests/vectors; run with MRTR_GUARD_WRITE_VECTORS=1"]
fn regenerate() {
    if std::env::var_os("MRTR_GUARD_WRITE_VECTORS").is_none() {
        return;
    }
    let drafts = positive_drafts();
    let mut positives: Vec<Vector> = drafts
        .iter()
        .enumerate()
        .map(|(i, d)| build_positive(d, i))
        .collect();
    // A token exactly as long as the verifier's cap opens.
    for mode in ["sealed", "signed"] {
        let name = format!("{mode}-app-data-512");
        let mut at_cap = positives.iter().find(|v| v.name == name).unwrap().clone();
        at_cap.name = format!("{mode}-length-cap-exact");
        at_cap.description = "the verifier's max_token_len equals the token's length".to_owned();
        at_cap.policy.max_token_len = at_cap.token.len();
        positives.push(at_cap);
    }
    let by_name = |name: &str| positives.iter().find(|v| v.name == name).unwrap();
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
        negatives.extend(edge_negatives(mode, &positives));
    }

    let write = |file: &str, description: &str, vectors: Vec<Vector>| {
        let file_value = VectorFile {
            description: description.to_owned(),
            vectors,
        };
        let mut text = serde_json::to_string_pretty(&file_value).unwrap();
        text.push('\n');
        std::fs::write(vectors_dir().join(file), text).unwrap();
    };
    std::fs::create_dir_all(vectors_dir()).unwrap();
    write(
        "sealed.json",
        "Positive known-answer vectors, sealed mode (XChaCha20-Poly1305). See docs/FORMAT.md.",
        positives
            .iter()
            .filter(|v| v.mode == "sealed")
            .cloned()
            .collect(),
    );
    write(
        "signed.json",
        "Positive known-answer vectors, signed mode (HMAC-SHA256). See docs/FORMAT.md.",
        positives
            .iter()
            .filter(|v| v.mode == "signed")
            .cloned()
            .collect(),
    );
    write(
        "negative.json",
        "Negative vectors: each must fail to open, for the reason it names. See docs/FORMAT.md.",
        negatives,
    );
    let cases = ArgumentsFile {
        description: "The arguments digest (docs/FORMAT.md §4.1): the texts of a case share one \
            canonical form and digest; no two cases share a digest."
            .to_owned(),
        cases: arguments_cases(),
    };
    let mut text = serde_json::to_string_pretty(&cases).unwrap();
    text.push('\n');
    std::fs::write(vectors_dir().join(ARGUMENTS_FILE), text).unwrap();
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
