//! Errors as `rmcp`'s: [`error_data`] for every [`RpcError`], and
//! [`custom_request_error`] for the calls `rmcp` could not parse.

use ::rmcp::ErrorData;
use ::rmcp::model::{CustomRequest, ErrorCode};
use serde_json::Value;

use crate::wire::Method;
use crate::wire::{CallParams, RpcError, retry_fields};

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
/// `-32601`, as `rmcp` would.
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
    let Some(method) = Method::from_name(&request.method) else {
        return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method.clone(), None);
    };
    let params = request.params.clone().unwrap_or(Value::Null);
    if let Some(Err(error)) = params.as_object().map(retry_fields) {
        return error_data(error);
    }
    match CallParams::from_json(method, &params) {
        Err(error) => error_data(error),
        Ok(_) => error_data(RpcError::invalid_params("invalid params")),
    }
}
