//! Known-answer vectors: `tests/vectors/*.json`, checked here, made by
//! `generate`.
//!
//! Every positive vector is minted again from its inputs (key, nonce, binding,
//! claims) and must give the same token byte for byte, then open at `now`.
//! Every negative vector must fail to open with the reason it names. And the
//! checked-in files must be exactly what the generator makes: a test fails,
//! saying what to do, when they differ, and writes them only when
//! `MRTR_GUARD_WRITE_VECTORS=1`.

#![allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]

mod generate;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::{Duration, OffsetDateTime};

use super::claims_json;
use super::layout::{self, NONCE_LEN};
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
    /// The verifier's application type: absent for any JSON value,
    /// `"object"` for a type that accepts only an object (§10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    app_type: Option<String>,
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
        String::from_utf8(super::canonical::canonical(arguments.unwrap_or(&empty))).unwrap()
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
    let claims = claims_json::decode::<Value>(claims_json.as_bytes()).unwrap();
    assert_eq!(
        claims_json::encode(claims.meta(), &claims.clone().into_contents()).unwrap(),
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
    let reason = match vector.app_type.as_deref() {
        None => codec
            .open_at::<Value>(&vector.token, &binding, vector.now())
            .err(),
        Some("object") => codec
            .open_at::<serde_json::Map<String, Value>>(&vector.token, &binding, vector.now())
            .err(),
        Some(other) => panic!("{}: unknown app_type {other}", vector.name),
    }
    .as_ref()
    .map(StateError::reason);
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

/// The canonical form and the digest of the arguments `text`.
fn canonical_and_digest(text: &str) -> (String, String) {
    let value: Value = serde_json::from_str(text).unwrap();
    let canonical = String::from_utf8(super::canonical::canonical(&value)).unwrap();
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

/// The checked-in files are what the generator makes. Always runs: with
/// `MRTR_GUARD_WRITE_VECTORS=1` it writes the files instead of failing.
#[test]
fn checked_in_vectors_are_what_the_generator_makes() {
    let write = std::env::var_os("MRTR_GUARD_WRITE_VECTORS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (name, text) in generate::files() {
        let path = vectors_dir().join(name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        if write {
            std::fs::write(&path, text).unwrap();
        } else {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "tests/vectors/{{{}}} differ from what src/state/vectors/generate.rs makes. If the \
         generator's change is intended (a new vector, a format revision), write the files with \
         `MRTR_GUARD_WRITE_VECTORS=1 cargo test -p mrtr-guard --all-features --lib state::vectors`, \
         review `git diff tests/vectors`, run scripts/vectors-crosscheck and update the counts in \
         README.md and docs/FORMAT.md; if not, the change altered the token format: undo it",
        stale.join(",")
    );
}
