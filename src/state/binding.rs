//! What a token is bound to: supplied by the verifier on every call, and
//! authenticated, but never stored in the token.

use serde_json::Value;

use crate::json::JsonDigest;
use crate::wire::Method;

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

    /// The call's target ([`Method::target_key`]).
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
    fn absent_or_null_arguments_bind_like_an_empty_object() {
        let none = Binding::new("u", Method::ToolsCall, "t", None);
        let empty = Binding::new("u", Method::ToolsCall, "t", Some(&json!({})));
        let null = Binding::new("u", Method::ToolsCall, "t", Some(&Value::Null));
        let empty_array = Binding::new("u", Method::ToolsCall, "t", Some(&json!([])));
        assert_eq!(none, empty);
        assert_eq!(none, null);
        assert_ne!(none, empty_array);
    }
}
