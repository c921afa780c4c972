//! What a token is bound to: supplied by the verifier on every call, and
//! authenticated, but never stored in the token.

use std::fmt;

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::state::canonical;

/// The request methods that may return `input_required`, and so the only ones
/// a `requestState` can be minted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `tools/call`; the target is the tool's name.
    ToolsCall,
    /// `prompts/get`; the target is the prompt's name.
    PromptsGet,
    /// `resources/read`; the target is the resource's URI.
    ResourcesRead,
}

impl Method {
    /// The JSON-RPC method name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ToolsCall => "tools/call",
            Self::PromptsGet => "prompts/get",
            Self::ResourcesRead => "resources/read",
        }
    }

    /// The method for a JSON-RPC method name, or `None` for every method
    /// that must never return `input_required`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "tools/call" => Some(Self::ToolsCall),
            "prompts/get" => Some(Self::PromptsGet),
            "resources/read" => Some(Self::ResourcesRead),
            _ => None,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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
    /// use mrtr_guard::state::JsonDigest;
    /// use serde_json::json;
    ///
    /// assert_eq!(
    ///     JsonDigest::of(&json!({"b": 2.0, "a": [1, "x"]})),
    ///     JsonDigest::of(&json!({"a": [1.0, "x"], "b": 2})),
    /// );
    /// ```
    pub fn of(value: &Value) -> Self {
        Self(Sha256::digest(canonical::canonical(value)).into())
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

/// The request a token belongs to: who asks, which method, which tool, prompt
/// or resource, and with which arguments.
///
/// The verifier builds the same binding from the retry that it built from the
/// first call; a token minted under one binding never opens under another.
/// Absent (or `null`) `arguments` bind like `{}`: MCP treats them all as
/// "no arguments".
///
/// ```
/// use mrtr_guard::{Binding, Method};
/// use serde_json::json;
///
/// let args = json!({"orderId": 42});
/// let binding = Binding::new("user-7", Method::ToolsCall, "ShipOrder", Some(&args));
/// assert_eq!(binding.principal(), Some("user-7"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding<'a> {
    principal: Option<&'a str>,
    method: Method,
    target: &'a str,
    arguments: JsonDigest,
}

impl<'a> Binding<'a> {
    /// A binding for an authenticated principal: the stable user id your
    /// authentication established (an OAuth `sub`, say), never a value the
    /// client sends about itself.
    pub fn new(
        principal: &'a str,
        method: Method,
        target: &'a str,
        arguments: Option<&Value>,
    ) -> Self {
        Self::build(Some(principal), method, target, arguments)
    }

    /// A binding with no principal. A codec opens and mints these only when
    /// it was built with [`allow_anonymous`](crate::state::CodecBuilder::allow_anonymous);
    /// anyone who holds such a token can use it.
    pub fn anonymous(method: Method, target: &'a str, arguments: Option<&Value>) -> Self {
        Self::build(None, method, target, arguments)
    }

    fn build(
        principal: Option<&'a str>,
        method: Method,
        target: &'a str,
        arguments: Option<&Value>,
    ) -> Self {
        Self::from_digest(
            principal,
            method,
            target,
            JsonDigest::of_arguments(arguments),
        )
    }

    /// A binding from the call's arguments digest, made once with
    /// [`JsonDigest::of_arguments`].
    pub(crate) fn from_digest(
        principal: Option<&'a str>,
        method: Method,
        target: &'a str,
        arguments: JsonDigest,
    ) -> Self {
        Self {
            principal,
            method,
            target,
            arguments,
        }
    }

    /// The principal, or `None` when anonymous.
    pub fn principal(&self) -> Option<&'a str> {
        self.principal
    }

    /// The request method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The tool or prompt name, or the resource URI.
    pub fn target(&self) -> &'a str {
        self.target
    }

    /// The digest of the call's arguments.
    pub fn arguments(&self) -> &JsonDigest {
        &self.arguments
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
    fn method_names_round_trip_and_nothing_else_maps() {
        for method in [Method::ToolsCall, Method::PromptsGet, Method::ResourcesRead] {
            assert_eq!(Method::from_name(method.as_str()), Some(method));
            assert_eq!(method.to_string(), method.as_str());
        }
        for name in [
            "tools/list",
            "prompts/list",
            "resources/list",
            "completion/complete",
            "Tools/Call",
            "",
        ] {
            assert_eq!(Method::from_name(name), None, "{name}");
        }
    }

    #[test]
    fn absent_or_null_arguments_bind_like_an_empty_object() {
        let none = Binding::new("u", Method::ToolsCall, "t", None);
        let empty = Binding::new("u", Method::ToolsCall, "t", Some(&json!({})));
        let null = Binding::new("u", Method::ToolsCall, "t", Some(&Value::Null));
        let empty_array = Binding::new("u", Method::ToolsCall, "t", Some(&json!([])));
        assert_eq!(none, empty);
        assert_eq!(none, null);
        assert_ne!(none, empty_array);
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
