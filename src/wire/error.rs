//! The JSON-RPC errors the crate puts on the wire.

use std::borrow::Cow;
use std::error::Error;
use std::fmt;
use std::sync::Arc;

use serde_json::{Value, json};

/// A JSON-RPC error object: `{"code": ..., "message": ..., "data": ...}`.
///
/// The crate builds these for the client; their messages are fixed text and
/// never echo token bytes, claims, principals or submitted values.
///
/// An error made from a refused `requestState` (as [`Flow::round`](crate::runtime::Flow::round)
/// makes it) keeps why for the server: [`state_error`](Self::state_error)
/// and [`source`](std::error::Error::source) return it. So does an internal
/// error made from a handler's mistake ([`misuse`](Self::misuse)). Neither
/// reaches the wire: [`to_json`](Self::to_json) is the same for every reason,
/// and two errors are equal when they put the same object on the wire with
/// the same HTTP status, whatever their cause.
#[derive(Debug, Clone)]
pub struct RpcError {
    code: i64,
    message: Cow<'static, str>,
    data: Option<Value>,
    status: u16,
    /// Why, for the server only. The layer that made the error reads it
    /// back with a typed accessor (`state_error` in `state`, `misuse` in
    /// `runtime`), so this module names none of their types.
    cause: Option<Arc<dyn Error + Send + Sync>>,
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
    /// "Unauthorized": the call carries no credential the server accepts
    /// (the code MCP servers use in JSON-RPC's server-error range; the
    /// HTTP status, 401, is what the MCP authorization spec names).
    pub const UNAUTHENTICATED: i64 = -32001;
    /// A cap on open sessions is reached (server-defined range; HTTP 429).
    pub const CAPACITY_REACHED: i64 = -32000;

    pub(crate) fn new(
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

    /// `-32001`, HTTP 401: the server found no authenticated principal for
    /// a call whose state must be bound to one. Send credentials
    /// (`Authorization`) and call again.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    ///
    /// let error = RpcError::unauthenticated();
    /// assert_eq!((error.code(), error.http_status()), (-32001, 401));
    /// ```
    pub fn unauthenticated() -> Self {
        Self::new(
            Self::UNAUTHENTICATED,
            "Unauthorized: authentication is missing; send credentials and call again",
            None,
            401,
        )
    }

    /// `-32000`, HTTP 429: a cap on what the server holds open (sessions of
    /// one principal, or of everyone) is reached. `what` names it, and the
    /// HTTP response says when to try again (`Retry-After`).
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    ///
    /// let error = RpcError::capacity_reached("sessions for this principal");
    /// assert_eq!((error.code(), error.http_status()), (-32000, 429));
    /// ```
    pub fn capacity_reached(what: &'static str) -> Self {
        Self::new(
            Self::CAPACITY_REACHED,
            "Too many open: close one (a session: DELETE it) or retry later",
            Some(json!({"limit": what})),
            429,
        )
    }

    /// `-32000`, HTTP 429: a task could not be created, at the cap `what`
    /// (`data.limit`, e.g. `"tasks for this principal"`). What frees room
    /// is a task of the caller's ending (completed, failed, or cancelled
    /// with `tasks/cancel`); the server answers with `Retry-After`.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    ///
    /// let error = RpcError::tasks_at_capacity("tasks for this principal");
    /// assert_eq!((error.code(), error.http_status()), (-32000, 429));
    /// ```
    pub fn tasks_at_capacity(what: &'static str) -> Self {
        Self::new(
            Self::CAPACITY_REACHED,
            "Too many tasks: one must end first (cancel one with tasks/cancel, or wait for one \
             to finish), then retry",
            Some(json!({"limit": what})),
            429,
        )
    }

    /// `-32000`, HTTP 429: a task could not be created, or answered, past
    /// the byte budget `what` (`data.limit`, e.g. `"task bytes for this
    /// principal"`). What frees room is a task's bytes expiring (an ended
    /// task's result is kept until its TTL) or a task that has not ended
    /// being cancelled (`tasks/cancel` drops its call and answers); the
    /// server answers with `Retry-After`.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    ///
    /// let error = RpcError::tasks_over_budget("task bytes for this principal");
    /// assert_eq!((error.code(), error.http_status()), (-32000, 429));
    /// ```
    pub fn tasks_over_budget(what: &'static str) -> Self {
        Self::new(
            Self::CAPACITY_REACHED,
            "The tasks hold as many bytes as they may: cancel a task that has not ended (with \
             tasks/cancel), or wait for ended tasks to expire, then retry",
            Some(json!({"limit": what})),
            429,
        )
    }

    /// `-32600`, HTTP 408: the request body did not arrive in time.
    pub fn body_timeout() -> Self {
        Self::new(Self::INVALID_REQUEST, "Request body timed out", None, 408)
    }

    /// `-32603`, HTTP 200: a response too long for the layer to buffer.
    pub fn response_too_large() -> Self {
        Self::new(Self::INTERNAL_ERROR, "Internal error", None, 200)
    }

    /// `-32603`: the server failed; nothing about why is sent. To keep why
    /// for the logs, use [`internal_error_because`](Self::internal_error_because).
    pub fn internal_error() -> Self {
        Self::new(Self::INTERNAL_ERROR, "Internal error", None, 200)
    }

    /// `-32603` with why the server failed, for the server only: `reason`
    /// (an error, or text) is in [`Display`](fmt::Display) and
    /// [`source`](Error::source), for the logs, and never on the wire
    /// ([`to_json`](Self::to_json) is [`internal_error`](Self::internal_error)'s).
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    ///
    /// let error = RpcError::internal_error_because("the orders database timed out");
    /// assert_eq!(error.to_string(), "Internal error (-32603): the orders database timed out");
    /// assert_eq!(error.to_json(), RpcError::internal_error().to_json());
    /// assert!(!error.to_json().to_string().contains("orders"));
    ///
    /// let io = std::io::Error::other("disk full");
    /// let error = RpcError::internal_error_because(io);
    /// assert_eq!(std::error::Error::source(&error).map(ToString::to_string), Some("disk full".into()));
    /// ```
    pub fn internal_error_because(reason: impl Into<Box<dyn Error + Send + Sync>>) -> Self {
        Self {
            cause: Some(Arc::from(reason.into())),
            ..Self::internal_error()
        }
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

    /// The same error, keeping `cause` for the server (never for the wire).
    pub(crate) fn with_cause(self, cause: impl Error + Send + Sync + 'static) -> Self {
        let cause: Arc<dyn Error + Send + Sync> = Arc::new(cause);
        Self {
            cause: Some(cause),
            ..self
        }
    }

    /// The cause kept by [`with_cause`](Self::with_cause), if it is a `T`.
    pub(crate) fn cause<T: Error + 'static>(&self) -> Option<&T> {
        self.cause.as_deref()?.downcast_ref()
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
    /// `message (code)`; an internal error adds its cause, for the logs
    /// (`Internal error (-32603): ...`). The wire takes [`to_json`](Self::to_json).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)?;
        match &self.cause {
            Some(cause) if self.code == Self::INTERNAL_ERROR => write!(f, ": {cause}"),
            _ => Ok(()),
        }
    }
}

impl PartialEq for RpcError {
    /// The same wire object and HTTP status; the cause is not compared.
    fn eq(&self, other: &Self) -> bool {
        (self.code, &self.message, &self.data, self.status)
            == (other.code, &other.message, &other.data, other.status)
    }
}

impl Error for RpcError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        let cause: &(dyn Error + 'static) = self.cause.as_deref()?;
        Some(cause)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_stays_off_the_wire_and_is_read_back_by_type() {
        let plain = RpcError::invalid_request_state();
        let caused = RpcError::invalid_request_state().with_cause(fmt::Error);
        assert_eq!(caused.to_json(), plain.to_json());
        assert_eq!(caused, plain);
        assert_eq!(caused.cause::<fmt::Error>(), Some(&fmt::Error));
        assert_eq!(caused.cause::<std::str::Utf8Error>(), None);
        assert_eq!(plain.cause::<fmt::Error>(), None);
        assert!(Error::source(&plain).is_none());
        let source = Error::source(&caused).map(ToString::to_string);
        assert_eq!(source, Some(fmt::Error.to_string()));
        assert_eq!(
            plain.to_string(),
            "Invalid or expired requestState (-32602)"
        );
    }

    #[test]
    fn an_internal_reason_is_logged_and_never_sent() {
        let error = RpcError::internal_error_because(format!("order {} not saved", 42));
        let wire = error.to_json().to_string();
        assert!(!wire.contains("order"), "{wire}");
        assert_eq!(error.to_json(), RpcError::internal_error().to_json());
        assert_eq!(error, RpcError::internal_error());
        assert_eq!(
            error.to_string(),
            "Internal error (-32603): order 42 not saved"
        );
        let source = Error::source(&error).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("order 42 not saved"));
        assert_eq!(
            RpcError::internal_error().to_string(),
            "Internal error (-32603)"
        );
    }
}
