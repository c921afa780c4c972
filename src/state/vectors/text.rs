//! Negative vectors of the token's text: malformed base64, lengths over the
//! cap, non-canonical base64.

use super::file::Vector;
use super::negative::{edit_bytes, negative};
use crate::state::layout;

/// Text and length edge cases: `malformed`, `too_large`, `forged`.
pub(super) fn text_negatives(base: &Vector) -> Vec<Vector> {
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

/// Non-canonical base64: stray low bits in the last character of a token of
/// `mode` whose length is not a multiple of 3.
pub(super) fn non_canonical_base64(mode: &str, positives: &[Vector]) -> Vector {
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
