//! The checks of the known-answer vectors, `tests/vectors/*.json`.
//!
//! Every positive vector is minted again from its inputs (key, nonce, binding,
//! claims) and must give the same token byte for byte, then open at `now`.
//! Every negative vector must fail to open with the reason it names. And the
//! checked-in files must be exactly what the generator makes: a test fails,
//! saying what to do, when they differ, and writes them only when
//! `MRTR_GUARD_WRITE_VECTORS=1`.

use serde_json::Value;

use super::file::{
    ARGUMENTS_FILE, ArgumentsFile, TOKEN_FILES, Vector, VectorFile, canonical_and_digest, hex,
    unhex, vectors_dir,
};
use super::generate;
use crate::state::error::StateError;
use crate::state::layout::{self, NONCE_LEN};
use crate::state::{claims_json, context};

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
        .mint_claims(
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
    // A replay is the second open: the first, of the same token, succeeds.
    if vector.replay_guard && vector.reason.as_deref() == Some("replayed") {
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
    assert!(positive >= 30, "{positive}");
    assert!(negative >= 190, "{negative}");
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
        "generation_changed",
        "no_generation",
    ] {
        assert!(reasons.contains(&reason), "no negative vector for {reason}");
    }
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
        "tests/vectors/{{{}}} differ from what src/state/vectors/ generates. If the \
         generator's change is intended (a new vector, a format revision), write the files with \
         `MRTR_GUARD_WRITE_VECTORS=1 cargo test -p mrtr-guard --all-features --lib state::vectors`, \
         review `git diff tests/vectors`, run scripts/vectors-crosscheck and update the counts in \
         README.md and docs/FORMAT.md; if not, the change altered the token format: undo it",
        stale.join(",")
    );
}
