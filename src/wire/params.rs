//! The params of a call that may return `input_required`, retry fields and
//! `_meta` included.

use serde_json::{Map, Value};

use crate::wire::capabilities::ClientCapabilities;
use crate::wire::error::RpcError;
use crate::wire::method::Method;
use crate::wire::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use crate::wire::response::InputResponses;

/// The per-request protocol fields of `params._meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta {
    protocol_version: String,
    capabilities: ClientCapabilities,
}

impl RequestMeta {
    /// A `_meta` with this version and these capabilities.
    #[must_use]
    pub fn new(protocol_version: impl Into<String>, capabilities: ClientCapabilities) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            capabilities,
        }
    }

    /// Reads `params._meta` of a 2026-07-28 request.
    ///
    /// ```
    /// use mrtr_guard::wire::RequestMeta;
    /// use serde_json::json;
    ///
    /// let meta = RequestMeta::from_params(&json!({"_meta": {
    ///     "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    ///     "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}))?;
    /// assert!(meta.capabilities().elicitation_form());
    ///
    /// let missing = RequestMeta::from_params(&json!({})).unwrap_err();
    /// assert_eq!((missing.code(), missing.http_status()), (-32602, 400));
    /// # Ok::<(), mrtr_guard::RpcError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`RpcError::missing_meta`] (HTTP 400) when `_meta`, its protocol
    /// version (a string) or its client capabilities (an object) is missing.
    pub fn from_params(params: &Value) -> Result<Self, RpcError> {
        Self::from_meta(meta_of(params)?)
    }

    /// Reads the `_meta` object itself (what an SDK that parsed the
    /// request already holds).
    ///
    /// # Errors
    ///
    /// As [`from_params`](Self::from_params), but for `_meta` itself.
    pub fn from_meta(meta: &Map<String, Value>) -> Result<Self, RpcError> {
        let (protocol_version, capabilities) = read_meta(meta)?;
        Ok(Self {
            protocol_version: protocol_version.to_owned(),
            capabilities: ClientCapabilities::from_json(capabilities)?,
        })
    }

    /// The protocol version `params._meta` declares, checked as
    /// [`from_params`](Self::from_params) checks it, without a copy of the
    /// capabilities.
    pub(crate) fn declared_version(params: &Value) -> Result<&str, RpcError> {
        read_meta(meta_of(params)?).map(|(version, _)| version)
    }

    /// The protocol version the request declares.
    #[must_use]
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }

    /// The capabilities the request declares.
    #[must_use]
    pub fn capabilities(&self) -> &ClientCapabilities {
        &self.capabilities
    }
}

/// `params._meta`, an object.
fn meta_of(params: &Value) -> Result<&Map<String, Value>, RpcError> {
    params
        .get("_meta")
        .and_then(Value::as_object)
        .ok_or_else(|| RpcError::missing_meta("_meta"))
}

/// A `_meta`'s protocol version (a string) and client capabilities (an
/// object), read in place.
fn read_meta(meta: &Map<String, Value>) -> Result<(&str, &Value), RpcError> {
    let protocol_version = meta
        .get(META_PROTOCOL_VERSION)
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::missing_meta(META_PROTOCOL_VERSION))?;
    let capabilities = meta
        .get(META_CLIENT_CAPABILITIES)
        .filter(|c| c.is_object())
        .ok_or_else(|| RpcError::missing_meta(META_CLIENT_CAPABILITIES))?;
    Ok((protocol_version, capabilities))
}

/// The params of a `tools/call`, `prompts/get` or `resources/read`, read from
/// untrusted JSON: target, arguments, the retry fields and `_meta`.
///
/// ```
/// use mrtr_guard::{Method, RpcError};
/// use mrtr_guard::wire::CallParams;
/// use serde_json::json;
///
/// let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
///                   "io.modelcontextprotocol/clientCapabilities": {}});
/// let params = CallParams::from_json(Method::ToolsCall, &json!({
///     "name": "ShipOrder", "arguments": {}, "requestState": "abc", "_meta": meta}))?;
/// assert_eq!(params.target(), "ShipOrder");
/// assert_eq!(params.request_state(), Some("abc"));
///
/// // A requestState that is not a string is a bad state, like any other.
/// let bad = CallParams::from_json(Method::ToolsCall, &json!({
///     "name": "ShipOrder", "requestState": 123, "_meta": meta})).unwrap_err();
/// assert_eq!(bad, RpcError::invalid_request_state());
/// # Ok::<(), RpcError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CallParams {
    method: Method,
    target: String,
    arguments: Option<Value>,
    input_responses: Option<InputResponses>,
    request_state: Option<String>,
    meta: RequestMeta,
}

impl CallParams {
    /// Reads the params of a call to `method`.
    ///
    /// # Errors
    ///
    /// [`RpcError::missing_meta`] for a missing `_meta` field;
    /// [`RpcError::invalid_params`] when params is not an object, the name
    /// (`uri` for `resources/read`) is not a string, or `arguments` is not an
    /// object; [`RpcError::invalid_input_responses`] for a malformed
    /// `inputResponses` (`null` included);
    /// [`RpcError::invalid_request_state`] when `requestState` is not a string.
    pub fn from_json(method: Method, params: &Value) -> Result<Self, RpcError> {
        let read = Read::of(method, params)?;
        Ok(Self {
            method,
            target: read.target.to_owned(),
            arguments: read.arguments.cloned().map(Value::Object),
            input_responses: read
                .retry
                .input_responses
                .cloned()
                .map(InputResponses::from_checked),
            request_state: read.retry.request_state.map(str::to_owned),
            meta: read.meta,
        })
    }

    /// [`from_json`](Self::from_json) of params the host owns: the same
    /// checks, then the arguments, the answers and the state are moved out
    /// of `params` rather than copied.
    ///
    /// # Errors
    ///
    /// As [`from_json`](Self::from_json).
    pub fn from_json_owned(method: Method, mut params: Value) -> Result<Self, RpcError> {
        let read = Read::of(method, &params)?;
        let target = read.target.to_owned();
        let meta = read.meta;
        let Value::Object(object) = &mut params else {
            return Err(RpcError::invalid_params("params must be an object"));
        };
        // Read::of checked each: `arguments` and `inputResponses` objects,
        // `requestState` a string, where present.
        let arguments = object.remove("arguments");
        let input_responses = match object.remove("inputResponses") {
            Some(Value::Object(raw)) => Some(InputResponses::from_checked(raw)),
            _ => None,
        };
        let request_state = match object.remove("requestState") {
            Some(Value::String(state)) => Some(state),
            _ => None,
        };
        Ok(Self {
            method,
            target,
            arguments,
            input_responses,
            request_state,
            meta,
        })
    }

    /// Params assembled by a host that parsed the request itself (an SDK).
    #[must_use]
    pub fn new(method: Method, target: impl Into<String>, meta: RequestMeta) -> Self {
        Self {
            method,
            target: target.into(),
            arguments: None,
            input_responses: None,
            request_state: None,
            meta,
        }
    }

    /// Sets `arguments`.
    #[must_use]
    pub fn with_arguments(mut self, arguments: Map<String, Value>) -> Self {
        self.arguments = Some(Value::Object(arguments));
        self
    }

    /// Sets `inputResponses`.
    #[must_use]
    pub fn with_input_responses(mut self, responses: InputResponses) -> Self {
        self.input_responses = Some(responses);
        self
    }

    /// Sets `requestState`.
    #[must_use]
    pub fn with_request_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }

    /// The method.
    #[must_use]
    pub fn method(&self) -> Method {
        self.method
    }

    /// The call's target ([`Method::target_key`]).
    #[must_use]
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The arguments, if present.
    #[must_use]
    pub fn arguments(&self) -> Option<&Value> {
        self.arguments.as_ref()
    }

    /// The `inputResponses`, if present.
    #[must_use]
    pub fn input_responses(&self) -> Option<&InputResponses> {
        self.input_responses.as_ref()
    }

    /// The `requestState`, if present.
    #[must_use]
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// The `_meta` protocol fields.
    #[must_use]
    pub fn meta(&self) -> &RequestMeta {
        &self.meta
    }
}

/// The retry fields of a call's params, read strictly: `requestState` must be
/// a string and `inputResponses` a well-formed map wherever they appear.
/// `null` is neither: a client with nothing to send leaves the field out,
/// and a `null` must not start the flow over as absence would.
///
/// # Errors
///
/// [`RpcError::invalid_request_state`] for a `requestState` that is not a
/// string (checked first); [`RpcError::invalid_input_responses`] for a
/// malformed `inputResponses`.
pub(crate) fn retry_fields(params: &Map<String, Value>) -> Result<RetryFields<'_>, RpcError> {
    let request_state = match params.get("requestState") {
        None => None,
        Some(Value::String(state)) => Some(state.as_str()),
        Some(_) => return Err(RpcError::invalid_request_state()),
    };
    let input_responses = params
        .get("inputResponses")
        .map(InputResponses::checked)
        .transpose()?;
    Ok(RetryFields {
        input_responses,
        request_state,
    })
}

/// The params of a call, checked and read in place: what
/// [`CallParams::from_json`] and [`CallParams::from_json_owned`] keep.
struct Read<'a> {
    target: &'a str,
    arguments: Option<&'a Map<String, Value>>,
    retry: RetryFields<'a>,
    meta: RequestMeta,
}

impl<'a> Read<'a> {
    /// Every check of [`CallParams::from_json`], in its order.
    fn of(method: Method, params: &'a Value) -> Result<Self, RpcError> {
        let object = params
            .as_object()
            .ok_or_else(|| RpcError::invalid_params("params must be an object"))?;
        let meta = RequestMeta::from_params(params)?;
        let target = method.target_in(params)?;
        let arguments = match object.get("arguments") {
            None => None,
            Some(Value::Object(arguments)) => Some(arguments),
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "params.arguments must be an object",
                ));
            }
        };
        let retry = retry_fields(object)?;
        Ok(Self {
            target,
            arguments,
            retry,
            meta,
        })
    }
}

/// A call's retry fields, checked and read in place.
pub(crate) struct RetryFields<'a> {
    pub(crate) input_responses: Option<&'a Map<String, Value>>,
    pub(crate) request_state: Option<&'a str>,
}

impl RetryFields<'_> {
    /// Whether the call is a retry: it carries either field (what
    /// `ScreenLayer` header-checks).
    #[cfg_attr(
        not(feature = "tower"),
        expect(dead_code, reason = "only the screen asks")
    )]
    pub(crate) fn is_retry(&self) -> bool {
        self.input_responses.is_some() || self.request_state.is_some()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn meta() -> Value {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}})
    }

    #[test]
    fn missing_meta_fields_are_400() {
        for params in [
            json!({"name": "t"}),
            json!({"name": "t", "_meta": {}}),
            json!({"name": "t", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
            json!({"name": "t", "_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
            json!({"name": "t", "_meta": {"io.modelcontextprotocol/protocolVersion": 1,
                                          "io.modelcontextprotocol/clientCapabilities": {}}}),
        ] {
            let error = CallParams::from_json(Method::ToolsCall, &params).unwrap_err();
            assert_eq!(
                (error.code(), error.http_status()),
                (-32602, 400),
                "{params}"
            );
        }
    }

    #[test]
    fn shapes_are_checked() {
        let call = |p: Value| CallParams::from_json(Method::ResourcesRead, &p);
        let ok = call(json!({"uri": "file:///a", "_meta": meta()})).unwrap();
        assert_eq!((ok.target(), ok.arguments()), ("file:///a", None));
        assert_eq!(
            call(json!({"name": "a", "_meta": meta()}))
                .unwrap_err()
                .code(),
            -32602
        );
        let tool = |p: Value| CallParams::from_json(Method::ToolsCall, &p);
        assert_eq!(
            tool(json!({"name": "t", "arguments": [], "_meta": meta()}))
                .unwrap_err()
                .code(),
            -32602
        );
        assert_eq!(
            tool(json!({"name": "t", "inputResponses": null, "_meta": meta()})).unwrap_err(),
            RpcError::invalid_input_responses()
        );
        assert_eq!(
            tool(json!({"name": "t", "requestState": null, "_meta": meta()})).unwrap_err(),
            RpcError::invalid_request_state()
        );
        assert!(tool(json!([])).is_err());
    }

    /// Owned params read exactly as borrowed ones: the same params, or the
    /// same error, for every shape the checks look at.
    #[test]
    fn owned_params_read_as_borrowed_ones() {
        let cases = [
            json!({"name": "t", "_meta": meta()}),
            json!({"name": "t", "arguments": {"a": [1, {"b": null}]}, "_meta": meta()}),
            json!({"name": "t", "arguments": {}, "requestState": "abc",
                   "inputResponses": {"k": {"action": "accept", "content": {"x": 1}}},
                   "_meta": meta()}),
            json!({"name": "t", "arguments": [], "_meta": meta()}),
            json!({"name": "t", "arguments": null, "_meta": meta()}),
            json!({"name": "t", "inputResponses": null, "_meta": meta()}),
            json!({"name": "t", "inputResponses": {"k": 1}, "_meta": meta()}),
            json!({"name": "t", "requestState": 1, "_meta": meta()}),
            json!({"name": 1, "_meta": meta()}),
            json!({"name": "t"}),
            json!([]),
            json!("params"),
        ];
        for params in cases {
            for method in [Method::ToolsCall, Method::PromptsGet, Method::ResourcesRead] {
                assert_eq!(
                    CallParams::from_json_owned(method, params.clone()),
                    CallParams::from_json(method, &params),
                    "{method:?} {params}"
                );
            }
        }
        let read = CallParams::from_json_owned(
            Method::ToolsCall,
            json!({"name": "t", "arguments": {"a": 1}, "requestState": "abc",
                   "inputResponses": {"k": {"action": "decline"}}, "_meta": meta()}),
        )
        .unwrap();
        assert_eq!(read.arguments(), Some(&json!({"a": 1})));
        assert_eq!(read.request_state(), Some("abc"));
        assert!(read.input_responses().unwrap().raw("k").is_some());
    }
}
