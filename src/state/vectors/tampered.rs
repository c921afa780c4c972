//! Negative vectors of tampering: edited bytes, a token of the other mode,
//! another binding or audience, and arguments whose numbers changed value.

use serde_json::{Value, json};

use super::file::Vector;
use super::negative::{edit_bytes, negative};
use crate::state::layout;

/// Edited bytes, another mode, another binding or audience: `unsupported_version`, `unknown_key`, `forged`, `missing_principal`.
pub(super) fn tampered_negatives(base: &Vector, other_mode: &Vector) -> Vec<Vector> {
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

/// Tokens bound to exact numbers, presented with numbers of another value
/// (§4.1).
pub(super) fn number_negatives(big: &Vector, forms: &Vector) -> Vec<Vector> {
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
