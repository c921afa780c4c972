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

use super::format::{self, NONCE_LEN};
use super::*;

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

fn load_all() -> Vec<(String, Vector)> {
    let mut all = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(vectors_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let file: VectorFile = serde_json::from_str(&text).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        all.extend(file.vectors.into_iter().map(|v| (name.clone(), v)));
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

    let bytes = format::decode_token(&token).unwrap();
    let raw = format::RawToken::split(&bytes).unwrap();
    let context = format::context(raw.mode, raw.header, &vector.audience, &binding);
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
    assert!(positive + negative >= 40, "{positive} + {negative}");
    assert!(negative >= 25, "{negative}");
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

fn claims_value(
    round: u32,
    fid: u8,
    questions: &[(&str, Value)],
    answers: Value,
    app: Value,
) -> Value {
    let q: serde_json::Map<String, Value> = questions
        .iter()
        .map(|(key, ask)| {
            (
                (*key).to_owned(),
                Value::from(format::encode_id(JsonDigest::of(ask).as_bytes())),
            )
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
        "fid": format::encode_id(&[fid; 16]),
        "q": q,
        "ans": answers,
        "app": app,
    })
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
                json!({}),
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
            binding: user("ユーザー-ø", "tools/call", "résumé ✓", Some(json!({"b": [1.0, "x"], "a": null}))),
            claims: claims_value(
                3,
                2,
                &[("confirm", json!({"method": "elicitation/create", "params": {"message": "Sure?",
                    "requestedSchema": {"type": "object", "properties": {}}}}))],
                json!({"email": "ada@example.com", "plan": "team", "roles": ["admin", "member"], "teamSize": 12}),
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
            claims: claims_value(1, 3, &[], json!({}), Value::Null),
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
            claims: claims_value(2, 4, &[], json!({}), json!([1, 2, 3])),
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
            claims: claims_value(1, 5, &[], json!({}), json!("x")),
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
            claims: claims_value(1, 6, &[], json!({}), json!({"cart": 17})),
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
            claims: claims_value(1, 7, &[], json!({}), json!({"blob": "a".repeat(500)})),
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
            claims: claims_value(1, 8, &[], json!({}), json!({})),
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
            claims: claims_value(1, 9, &[], json!({}), json!({})),
            mint_key: None,
            keys: one_key(),
            now: T0,
        });
    }
    drafts
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
    let bytes = format::decode_token(&token).unwrap();
    let raw = format::RawToken::split(&bytes).unwrap();
    vector.context = Some(hex(&format::context(
        raw.mode, raw.header, AUDIENCE, &binding,
    )));
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
    let mut bytes = format::decode_token(token).unwrap();
    edit(&mut bytes);
    format::encode_token(&bytes)
}

fn negatives_for(base: &Vector, other_mode: &Vector) -> Vec<Vector> {
    let len = format::decode_token(&base.token).unwrap().len();
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
            "fid": format::encode_id(&[11; 16]), "q": {}, "ans": {}, "app": {}}),
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
                v.token = format::encode_token(&bytes);
            },
        ),
    ];
    // Non-canonical base64: stray low bits in the last character of a token
    // whose length is not a multiple of 3.
    let odd = positives
        .iter()
        .find(|v| {
            v.mode == mode
                && !format::decode_token(&v.token)
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
}
