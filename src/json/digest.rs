//! The digest a token binds JSON with: SHA-256 over the canonical form
//! ([`canonical`](super::canonical)), and the rule for a call's arguments.

use std::fmt;

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::json::canonical::canonical;

/// SHA-256 over the canonical form of a JSON value: RFC 8785 (JCS), except
/// that integers keep their exact value (`docs/FORMAT.md` §4.1).
///
/// Key order, white space and number spelling do not change it: `{"a":1,"b":2.0}`
/// and `{"b":2,"a":1}` have the same digest. A number's value does:
/// `9007199254740993` and `9007199254740992` have different digests, although
/// they are the same double. Two values share a digest exactly when they are
/// equal with numbers compared by value (`1` and `1.0` are, `0` and `-0` are).
/// The codec uses it for the call's arguments and for each question a round
/// asked.
///
/// It serializes (with `serde`) as the claims spell it: unpadded base64url of
/// its 32 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct JsonDigest([u8; 32]);

impl JsonDigest {
    /// The digest of `value`.
    ///
    /// ```
    /// use mrtr_guard::json::JsonDigest;
    /// use serde_json::json;
    ///
    /// assert_eq!(
    ///     JsonDigest::of(&json!({"b": 2.0, "a": [1, "x"]})),
    ///     JsonDigest::of(&json!({"a": [1.0, "x"], "b": 2})),
    /// );
    /// ```
    pub fn of(value: &Value) -> Self {
        Self(Sha256::digest(canonical(value)).into())
    }

    /// The digest a binding uses for a call's `arguments`: absent and `null`
    /// both count as `{}`.
    pub(crate) fn of_arguments(arguments: Option<&Value>) -> Self {
        match arguments {
            Some(value) if !value.is_null() => Self::of(value),
            _ => Self::of(&Value::Object(serde_json::Map::new())),
        }
    }

    /// The digest's 32 bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub(crate) fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }
}

impl fmt::Debug for JsonDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JsonDigest(")?;
        for byte in &self.0 {
            write!(f, "{byte:02x}")?;
        }
        f.write_str(")")
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn absent_or_null_arguments_digest_like_an_empty_object() {
        let empty = JsonDigest::of(&json!({}));
        assert_eq!(JsonDigest::of_arguments(None), empty);
        assert_eq!(JsonDigest::of_arguments(Some(&Value::Null)), empty);
        assert_eq!(JsonDigest::of_arguments(Some(&json!({}))), empty);
        assert_ne!(JsonDigest::of_arguments(Some(&json!([]))), empty);
    }

    #[test]
    fn argument_digest_ignores_spelling_but_not_meaning() {
        let a = JsonDigest::of(&json!({"x": 1, "y": "z"}));
        assert_eq!(a, JsonDigest::of(&json!({"y": "z", "x": 1.0})));
        assert_ne!(a, JsonDigest::of(&json!({"x": 2, "y": "z"})));
        assert_ne!(a, JsonDigest::of(&json!({"x": "1", "y": "z"})));
        assert_ne!(a, JsonDigest::of(&json!({"x": 1, "y": "z", "w": null})));
        let exact = JsonDigest::of(&json!({"x": 9_007_199_254_740_993_u64}));
        assert_ne!(
            exact,
            JsonDigest::of(&json!({"x": 9_007_199_254_740_992_u64}))
        );
        assert_ne!(
            exact,
            JsonDigest::of(&json!({"x": 9_007_199_254_740_993_u64 as f64}))
        );
    }
}
