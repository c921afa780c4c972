//! Errors as `rmcp`'s: [`error_data`] for every [`RpcError`], and
//! [`custom_request_error`] for the calls `rmcp` could not parse.

use ::rmcp::ErrorData;
use ::rmcp::model::{CustomRequest, ErrorCode};
use serde_json::Value;

use crate::wire::Method;
use crate::wire::{RpcError, retry_fields};

/// An [`RpcError`] as `rmcp`'s [`ErrorData`]: same code, message and data.
pub fn error_data(error: RpcError) -> ErrorData {
    let code = i32::try_from(error.code()).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
    ErrorData::new(
        ErrorCode(code),
        error.message().to_owned(),
        error.data().cloned(),
    )
}

/// What `on_custom_request` should answer. `rmcp` routes a `tools/call`,
/// `prompts/get` or `resources/read` whose params do not fit its types there
/// (an `inputResponses` of `"x"`, a `requestState` of `123`); this answers
/// those with `-32602` (the state error for a bad `requestState`, the
/// `inputResponses` error for bad responses) and every other method with
/// `-32601`, as `rmcp` would, but never echoing the method's name.
/// [`McpHandler`](super::McpHandler) (and so [`McpServer`](super::McpServer))
/// answers with it whenever the handler's `on_custom_request` answers
/// `-32601`: a handler behind them need not call it.
///
/// ```
/// use mrtr_guard::rmcp::custom_request_error;
/// use rmcp::model::CustomRequest;
/// use serde_json::json;
///
/// let bad = CustomRequest::new("tools/call", Some(json!({"name": "t", "requestState": 123})));
/// assert_eq!(custom_request_error(&bad).code.0, -32602);
/// let unknown = CustomRequest::new("tools/frobnicate", None);
/// assert_eq!(custom_request_error(&unknown).code.0, -32601);
/// ```
pub fn custom_request_error(request: &CustomRequest) -> ErrorData {
    // Fixed text: the client's method name is never echoed.
    let Some(method) = Method::from_name(&request.method) else {
        return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "Method not found", None);
    };
    let params = request.params.clone().unwrap_or(Value::Null);
    let Some(object) = params.as_object() else {
        return error_data(RpcError::invalid_params("params must be an object"));
    };
    if let Err(error) = retry_fields(object) {
        return error_data(error);
    }
    if let Err(error) = method.target_in(&params) {
        return error_data(error);
    }
    if object
        .get("arguments")
        .is_some_and(|value| !value.is_object())
    {
        return error_data(RpcError::invalid_params(
            "params.arguments must be an object",
        ));
    }
    // "Missing required _meta field" only when `_meta` is missing.
    if !object.contains_key("_meta") {
        return error_data(RpcError::missing_meta("_meta"));
    }
    error_data(RpcError::invalid_params("invalid params"))
}
