//! The errors a legacy call ends with when the session cannot go on
//! (the table in [`Legacy`](super::Legacy)'s docs).

use std::time::Duration;

use ::rmcp::ErrorData;
use ::rmcp::model::ErrorCode;
use ::rmcp::service::ServiceError;
use serde_json::{Value, json};

use crate::wire::RpcError;

/// `-32603` with `message` and `data.reason`.
pub(super) fn failure(message: &str, reason: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        message.to_owned(),
        Some(json!({ "reason": reason })),
    )
}

/// What went wrong with one server-initiated request. Never echoes what
/// the client sent (an error's message stays out; its code goes in `data`).
pub(super) fn service_failure(method: &str, error: &ServiceError, timeout: Duration) -> ErrorData {
    match error {
        ServiceError::Timeout { .. } => {
            let mut error = failure(
                &format!(
                    "the client did not answer the server's {method} within {} s; the call ends",
                    timeout.as_secs()
                ),
                "input_timeout",
            );
            if let Some(Value::Object(data)) = error.data.as_mut() {
                data.insert("method".into(), Value::from(method));
            }
            error
        }
        ServiceError::McpError(client) => {
            let mut error = failure(
                &format!("the client answered the server's {method} with an error; the call ends"),
                "input_failed",
            );
            if let Some(Value::Object(data)) = error.data.as_mut() {
                data.insert("method".into(), Value::from(method));
                data.insert("code".into(), Value::from(client.code.0));
            }
            error
        }
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => failure(
            "the session closed before the client answered; the call ends",
            "session_closed",
        ),
        _ => failure(
            &format!(
                "the client's answer to the server's {method} could not be read; the call ends"
            ),
            "input_failed",
        ),
    }
}

/// A re-run's error, for a client that never saw a `requestState`: the
/// opaque state refusal means the round's state ran out of time while the
/// client answered.
pub(super) fn reworded(error: ErrorData) -> ErrorData {
    let refused = RpcError::invalid_request_state();
    if i64::from(error.code.0) == refused.code() && error.message == refused.message() {
        return ErrorData::new(
            error.code,
            "The answers came after the round's time ran out (or the server's key changed); \
             call the tool again",
            error.data,
        );
    }
    error
}
