//! Negative vectors of the clock and the key ring: expiry, a token from the
//! future, a key rotated out, and times that overflow.

use super::file::{KeysSpec, Vector};
use super::inputs::{KEY_2, T0, TIME_MAX};
use super::negative::{edit_bytes, negative};

/// The clock and the key ring: `expired`, `not_yet_valid`, `unknown_key` after a rotation.
pub(super) fn clock_negatives(base: &Vector) -> Vec<Vector> {
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

/// An overflow fails the step it is in (§8): `now + skew` at step 8,
/// `iat + ttl` at step 10.
pub(super) fn time_overflow_negatives(basic: &Vector, latest: &Vector) -> Vec<Vector> {
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
