//! The JSON-RPC errors the crate puts on the wire.

use std::borrow::Cow;
use std::fmt;

use serde_json::{Value, json};

use crate::state::StateError;
use crate::wire::{ClientCapabilities, Misuse};

/// A JSON-RPC error object: `{"code": ..., "message": ..., "data": ...}`.
///
/// The crate builds these for the client; their messages are fixed text and
/// never echo token bytes, claims, principals or submitted values.
///
/// An error made from a [`StateError`] (as [`Flow::round`](crate::runtime::Flow::round)
/// makes it) keeps that error for the server: [`state_error`](Self::state_error)
/// and [`source`](std::error::Error::source) return it. So does an internal
/// error made from a handler's [`Misuse`] ([`misuse`](Self::misuse)). Neither
/// reaches the wire: [`to_json`](Self::to_json) is the same for every reason,
/// and two errors are equal when they put the same object on the wire with
/// the same HTTP status, whatever their cause.
#[derive(Debug, Clone)]
pub struct RpcError {
    code: i64,
    message: Cow<'static, str>,
    data: Option<Value>,
    status: u16,
    /// Why, for the server only.
    cause: Option<Cause>,
}

/// What an error keeps for the server.
#[derive(Debug, Clone)]
enum Cause {
    /// Why a `requestState` was refused.
    State(StateError),
    /// The handler's mistake.
    Misuse(Misuse),
}

impl RpcError {
    /// JSON-RPC "Parse error".
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON-RPC "Invalid Request".
    pub const INVALID_REQUEST: i64 = -32600;
    /// JSON-RPC "Invalid params".
    pub const INVALID_PARAMS: i64 = -32602;
    /// JSON-RPC "Internal error".
    pub const INTERNAL_ERROR: i64 = -32603;
    /// MCP `HEADER_MISMATCH`: an HTTP header disagrees with the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// MCP `MISSING_REQUIRED_CLIENT_CAPABILITY`.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// MCP `UNSUPPORTED_PROTOCOL_VERSION`.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

    fn new(
        code: i64,
        message: impl Into<Cow<'static, str>>,
        data: Option<Value>,
        status: u16,
    ) -> Self {
        Self {
            code,
            message: message.into(),
            data,
            status,
            cause: None,
        }
    }

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
        Self::new(
            Self::INVALID_PARAMS,
            "Invalid or expired requestState",
            Some(json!({"reason": "invalid_request_state"})),
            200,
        )
    }

    /// `inputResponses` is not an object, or one of its values is not an
    /// object: `-32602` with `data.reason` `"invalid_input_responses"`.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    /// use serde_json::json;
    ///
    /// assert_eq!(
    ///     RpcError::invalid_input_responses().to_json(),
    ///     json!({"code": -32602, "message": "Invalid inputResponses",
    ///            "data": {"reason": "invalid_input_responses"}})
    /// );
    /// ```
    pub fn invalid_input_responses() -> Self {
        Self::new(
            Self::INVALID_PARAMS,
            "Invalid inputResponses",
            Some(json!({"reason": "invalid_input_responses"})),
            200,
        )
    }

    /// Any other invalid params (`-32602`), with a fixed message.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    ///
    /// let error = RpcError::invalid_params("params.name must be a string");
    /// assert_eq!((error.code(), error.http_status()), (-32602, 200));
    /// ```
    pub fn invalid_params(message: &'static str) -> Self {
        Self::new(Self::INVALID_PARAMS, message, None, 200)
    }

    /// A required `_meta` field is missing: `-32602` with
    /// `data.missing` naming it, HTTP 400.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    /// use serde_json::json;
    ///
    /// let error = RpcError::missing_meta("_meta");
    /// assert_eq!(error.data(), Some(&json!({"missing": "_meta"})));
    /// assert_eq!(error.http_status(), 400);
    /// ```
    pub fn missing_meta(field: &str) -> Self {
        Self::new(
            Self::INVALID_PARAMS,
            "Missing required _meta field",
            Some(json!({"missing": field})),
            400,
        )
    }

    /// `-32020` header mismatch, HTTP 400. `message` is fixed text: never
    /// put a header's or the body's value in it.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    ///
    /// let error = RpcError::header_mismatch("missing required Mcp-Method header");
    /// assert_eq!((error.code(), error.http_status()), (-32020, 400));
    /// ```
    pub fn header_mismatch(message: &'static str) -> Self {
        Self::new(Self::HEADER_MISMATCH, message, None, 400)
    }

    /// `-32021`: the request cannot be served without capabilities the client
    /// did not declare; `data.requiredCapabilities` names them. HTTP 400.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    /// use mrtr_guard::wire::ClientCapabilities;
    /// use serde_json::json;
    ///
    /// let error = RpcError::missing_capability(&ClientCapabilities::none().with_sampling());
    /// assert_eq!(error.to_json(), json!({"code": -32021,
    ///     "message": "Missing required client capability",
    ///     "data": {"requiredCapabilities": {"sampling": {}}}}));
    /// ```
    pub fn missing_capability(required: &ClientCapabilities) -> Self {
        Self::new(
            Self::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability",
            Some(json!({"requiredCapabilities": required.to_json()})),
            400,
        )
    }

    /// `-32022`: the requested protocol version is not supported; `data`
    /// holds `supported` and `requested`. HTTP 400.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    /// use serde_json::json;
    ///
    /// let error = RpcError::unsupported_protocol_version("2099-01-01", &["2026-07-28"]);
    /// assert_eq!(error.data(), Some(&json!({"supported": ["2026-07-28"], "requested": "2099-01-01"})));
    /// ```
    pub fn unsupported_protocol_version<S: AsRef<str>>(requested: &str, supported: &[S]) -> Self {
        let supported: Vec<&str> = supported.iter().map(AsRef::as_ref).collect();
        Self::new(
            Self::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            Some(json!({"supported": supported, "requested": requested})),
            400,
        )
    }

    /// `-32600`: the message is not a valid request.
    pub fn invalid_request(message: &'static str) -> Self {
        Self::new(Self::INVALID_REQUEST, message, None, 400)
    }

    /// `-32700`: the body is not acceptable JSON (`detail` is the strict
    /// parser's message, which holds positions, never input). HTTP 400.
    pub fn parse_error(detail: &str) -> Self {
        Self::new(
            Self::PARSE_ERROR,
            "Parse error",
            Some(json!({"detail": detail})),
            400,
        )
    }

    /// `-32600`: the request body is longer than the server reads
    /// (`max_bytes`); sent with HTTP 413 (Content Too Large) before any of it
    /// is parsed.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    /// use serde_json::json;
    ///
    /// let error = RpcError::body_too_large(1024);
    /// assert_eq!((error.code(), error.http_status()), (-32600, 413));
    /// assert_eq!(error.data(), Some(&json!({"maxBytes": 1024})));
    /// ```
    pub fn body_too_large(max_bytes: usize) -> Self {
        Self::new(
            Self::INVALID_REQUEST,
            "Request body too large",
            Some(json!({"maxBytes": max_bytes})),
            413,
        )
    }

    /// `-32603`: the server failed; nothing about why is sent.
    pub fn internal_error() -> Self {
        Self::new(Self::INTERNAL_ERROR, "Internal error", None, 200)
    }

    /// The HTTP status to send this error with on Streamable HTTP: 400 for
    /// header, capability, version and `_meta` errors (the spec's MUSTs) and
    /// for a body that is not acceptable JSON or not a request, 413 for a
    /// body over the size cap, 200 otherwise.
    pub fn http_status(&self) -> u16 {
        self.status
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

    /// Why the call's `requestState` was refused, when that is what this
    /// error reports: for the server's logs and metrics
    /// ([`StateError::reason`]), never for the client.
    ///
    /// ```
    /// use mrtr_guard::{RpcError, StateError};
    ///
    /// let error = RpcError::from(StateError::Expired);
    /// assert_eq!(error.state_error().map(StateError::reason), Some("expired"));
    /// // The client sees what every bad state gets.
    /// assert_eq!(error.to_json(), RpcError::invalid_request_state().to_json());
    /// assert_eq!(RpcError::invalid_request_state().state_error(), None);
    /// ```
    pub fn state_error(&self) -> Option<&StateError> {
        match &self.cause {
            Some(Cause::State(error)) => Some(error),
            _ => None,
        }
    }

    /// The handler's mistake, when this internal error reports one: for the
    /// server's logs, never for the client.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    /// use mrtr_guard::wire::Misuse;
    ///
    /// let error = RpcError::from(Misuse::NothingAsked);
    /// assert_eq!(error.misuse(), Some(&Misuse::NothingAsked));
    /// assert_eq!(error.to_json(), RpcError::internal_error().to_json());
    /// ```
    pub fn misuse(&self) -> Option<&Misuse> {
        match &self.cause {
            Some(Cause::Misuse(misuse)) => Some(misuse),
            _ => None,
        }
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

impl PartialEq for RpcError {
    /// The same wire object and HTTP status; the cause is not compared.
    fn eq(&self, other: &Self) -> bool {
        (self.code, &self.message, &self.data, self.status)
            == (other.code, &other.message, &other.data, other.status)
    }
}

impl std::error::Error for RpcError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.cause.as_ref()? {
            Cause::State(error) => Some(error),
            Cause::Misuse(misuse) => Some(misuse),
        }
    }
}

impl From<&StateError> for RpcError {
    /// Every reason maps to the same wire error: the client learns nothing
    /// about why its token failed. The server keeps the reason
    /// ([`state_error`](Self::state_error)).
    fn from(error: &StateError) -> Self {
        Self {
            cause: Some(Cause::State(error.clone())),
            ..Self::invalid_request_state()
        }
    }
}

impl From<Misuse> for RpcError {
    /// The plain internal error (`-32603`); the mistake stays for the server
    /// ([`misuse`](Self::misuse)).
    fn from(misuse: Misuse) -> Self {
        Self {
            cause: Some(Cause::Misuse(misuse)),
            ..Self::internal_error()
        }
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
            let wire = RpcError::from(&error);
            assert_eq!(wire.to_json(), expected);
            assert_eq!(wire, RpcError::invalid_request_state());
            assert_eq!(wire.state_error(), Some(&error));
            let source = std::error::Error::source(&wire).map(ToString::to_string);
            assert_eq!(source, Some(error.to_string()));
        }
        assert_eq!(RpcError::invalid_request_state().state_error(), None);
        assert_eq!(
            RpcError::invalid_request_state().to_string(),
            "Invalid or expired requestState (-32602)"
        );
    }
}
