//! Negative vectors a tampered token cannot reach: authentic tokens with odd
//! claims or at the layout's length limits, a replay, a token of another
//! replay-guard generation or of none, text-level edge cases.

use serde_json::json;

use super::claims_rules::{claims_rule_negatives, good_claims_text};
use super::file::Vector;
use super::inputs::T0;
use super::negative::{edit_bytes, mint_raw, negative};
use super::positive::{GENERATION, by_name};
use super::text::non_canonical_base64;
use crate::state::generation::Generation;
use crate::state::layout;

/// Negative vectors for the rules a tampered token cannot reach: authentic
/// tokens with odd claims, and text-level edge cases.
pub(super) fn edge_negatives(mode: &str, positives: &[Vector]) -> Vec<Vector> {
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
                v.token = mint_raw(v, &claims(4, T0 + 1500, T0 + 1800), 41);
                v.now = T0 + 1800;
            },
        ),
        negative(
            base,
            "round-zero",
            "an authentic token claiming round 0",
            "too_many_rounds",
            |v| {
                v.token = mint_raw(v, &claims(0, T0 + 60, T0 + 1800), 42);
            },
        ),
        negative(
            base,
            "bad-claims-missing-member",
            "authentic, but the claims lack `app`",
            "bad_claims",
            |v| {
                let plain = br#"{"iat":1800000060,"exp":1800000660,"dl":1800001800,"rnd":1,"fid":"CwsLCwsLCwsLCwsLCwsLCw","q":{},"ans":{}}"#;
                v.token = mint_raw(v, plain, 43);
            },
        ),
        negative(
            base,
            "bad-claims-extra-member",
            "authentic, but the claims have an unknown member",
            "bad_claims",
            |v| {
                let plain = br#"{"iat":1800000060,"exp":1800000660,"dl":1800001800,"rnd":1,"fid":"CwsLCwsLCwsLCwsLCwsLCw","q":{},"ans":{},"app":{},"admin":true}"#;
                v.token = mint_raw(v, plain, 44);
            },
        ),
        negative(
            base,
            "bad-claims-not-json",
            "authentic, but the claims are not JSON",
            "bad_claims",
            |v| {
                v.token = mint_raw(v, b"not json", 45);
            },
        ),
        negative(
            by_name(positives, &format!("{mode}-generation")),
            "replayed",
            "opened twice with a replay guard; the second open fails",
            "replayed",
            |_| {},
        ),
        negative(
            by_name(positives, &format!("{mode}-generation")),
            "generation-changed",
            "minted under one replay-guard generation, opened by a guard of another (its \
             memory was lost since)",
            "generation_changed",
            |v| {
                v.generation = Some("67656e2d0001feef".to_owned());
            },
        ),
        negative(
            base,
            "generation-missing",
            "a token without gen (minted without a guard, or by revision 2), opened by a guard",
            "no_generation",
            |v| {
                v.replay_guard = true;
                v.generation = Some(Generation::from_bytes(GENERATION).to_string());
            },
        ),
        negative(
            base,
            "generation-short",
            "authentic, but gen is 7 bytes, not 8",
            "bad_claims",
            |v| {
                let plain = br#"{"iat":1800000060,"exp":1800000660,"dl":1800001800,"rnd":1,"fid":"CwsLCwsLCwsLCwsLCwsLCw","gen":"Z2VuLQAB_g","q":{},"ans":{},"app":{}}"#;
                v.token = mint_raw(v, plain, 46);
            },
        ),
        negative(
            base,
            "generation-null",
            "authentic, but gen is null (an absent generation is left out)",
            "bad_claims",
            |v| {
                let plain = br#"{"iat":1800000060,"exp":1800000660,"dl":1800001800,"rnd":1,"fid":"CwsLCwsLCwsLCwsLCwsLCw","gen":null,"q":{},"ans":{},"app":{}}"#;
                v.token = mint_raw(v, plain, 47);
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

/// Authentic tokens at the length limits of the layout (§2), and an `app`
/// the verifier's application type does not accept (§5.2).
pub(super) fn limit_negatives(base: &Vector) -> Vec<Vector> {
    let shortest = mint_raw(base, b"", 60);
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
                v.token = mint_raw(v, plain.as_bytes(), 61);
                v.app_type = Some("object".to_owned());
            },
        ),
    ]
}
