//! The JSON-RPC errors the crate puts on the wire.

use std::borrow::Cow;
use std::fmt;

use serde_json::{Value, json};

use crate::state::StateError;

/// A JSON-RPC error object: `{"code": ..., "message": ..., "data": ...}`.
///
/// The crate builds these for the client; their messages are fixed text and
/// never echo token bytes, claims, principals or submitted values.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    code: i64,
    message: Cow<'static, str>,
    data: Option<Value>,
}

impl RpcError {
    /// JSON-RPC "Invalid params".
    pub const INVALID_PARAMS: i64 = -32602;

    /// The one error every bad `requestState` gets, whatever the reason:
    /// `{"code":-32602,"message":"Invalid or expired requestState","data":{"reason":"invalid_request_state"}}`,
    /// as the TypeScript, Python and Ruby SDKs send it.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    /// use serde_json::json;
    ///
    /// assert_eq!(
    ///     RpcError::invalid_request_state().to_json(),
    ///     json!({"code": -32602, "message": "Invalid or expired requestState",
    ///            "data": {"reason": "invalid_request_state"}})
    /// );
    /// ```
    pub fn invalid_request_state() -> Self {
        Self {
            code: Self::INVALID_PARAMS,
            message: Cow::Borrowed("Invalid or expired requestState"),
            data: Some(json!({"reason": "invalid_request_state"})),
        }
    }

    /// The error code.
    pub fn code(&self) -> i64 {
        self.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `data` member, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    /// The error object as JSON, to put under a response's `error` key.
    pub fn to_json(&self) -> Value {
        let mut object = serde_json::Map::new();
        object.insert("code".into(), Value::from(self.code));
        object.insert("message".into(), Value::from(self.message.as_ref()));
        if let Some(data) = &self.data {
            object.insert("data".into(), data.clone());
        }
        Value::Object(object)
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}

impl From<&StateError> for RpcError {
    /// Every reason maps to the same error: the client learns nothing about
    /// why its token failed.
    fn from(_: &StateError) -> Self {
        Self::invalid_request_state()
    }
}

impl From<StateError> for RpcError {
    fn from(error: StateError) -> Self {
        Self::from(&error)
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use super::*;

    #[test]
    fn every_state_error_is_the_same_wire_error() {
        let expected = json!({"code": -32602, "message": "Invalid or expired requestState",
                              "data": {"reason": "invalid_request_state"}});
        for error in [
            StateError::Forged,
            StateError::Expired,
            StateError::TooLarge,
            StateError::Replayed,
        ] {
            assert_eq!(RpcError::from(&error).to_json(), expected);
        }
        assert_eq!(
            RpcError::invalid_request_state().to_string(),
            "Invalid or expired requestState (-32602)"
        );
    }
}
