//! Feature `rmcp`: the runtime inside a server handler of `rmcp`, the official Rust MCP SDK.
//!
//! `rmcp` 3.11 speaks MCP 2026-07-28 natively: it checks the standard HTTP
//! headers and `_meta`, serves stateless Streamable HTTP, and lets a handler
//! return `input_required`. This module supplies the rest:
//!
//! - [`RmcpFlow::tool_round`] (and the prompt and resource twins) turns a
//!   request and its [`RequestContext`] into a [`Round`]: it reads the
//!   per-request capabilities from `_meta`, the retry fields, and the
//!   principal from the request's HTTP parts through your function. It is
//!   `async`: the replay guard's round trip is awaited (the Redis guard's
//!   multiplexed connection holds no thread while Redis answers); a guard
//!   with no async face ([`ReplayGuard::as_async`](crate::state::ReplayGuard::as_async))
//!   runs on tokio's blocking pool, so a slow store holds up only the calls
//!   that carry a state, never a runtime worker;
//! - for `#[tool]` functions of a `#[tool_router]`: [`ToolCall`], an `rmcp`
//!   extractor, opened into a [`Round`] by [`RmcpFlow::round`], and
//!   [`Args`], for `Parameters<Args<T>>`: `T` and the raw arguments, which
//!   [`RmcpFlow::round_with`] binds the state to;
//! - [`tool_response`] (and twins) turns the handler's result into `rmcp`'s
//!   complete or input-required response, a form's fields in their declared
//!   order ([`input_required`] says how that survives `rmcp`);
//! - [`error_data`] maps an [`RpcError`] onto [`ErrorData`], code, message
//!   and data unchanged;
//! - [`custom_request_error`] fixes an `rmcp` gap: a `tools/call` whose
//!   `inputResponses` or `requestState` does not fit `rmcp`'s types falls
//!   through to `on_custom_request`, whose default answers `-32601` (HTTP
//!   404). Return this from your `on_custom_request` to answer `-32602`;
//! - what `rmcp`'s parse cannot see: `serde_json` keeps the last of two
//!   equal keys, and `rmcp`'s `Option` fields read `"requestState": null`
//!   or `"inputResponses": null` as absent, which would start the flow over.
//!   Put `mrtr_guard::tower::ScreenLayer` (feature `tower`) in front of
//!   `rmcp`'s `StreamableHttpService`: it refuses such bodies before `rmcp`
//!   parses them (the examples do).
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use mrtr_guard::rmcp::{RmcpFlow, tool_response};
//! use mrtr_guard::{Field, Flow, Form, KeyRing, MasterKey, StateCodec};
//! use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock};
//! use rmcp::service::{RequestContext, RoleServer};
//! use rmcp::ErrorData;
//!
//! async fn ship(
//!     flow: &RmcpFlow,
//!     form: &Form,
//!     params: CallToolRequestParams,
//!     cx: RequestContext<RoleServer>,
//! ) -> Result<CallToolResponse, ErrorData> {
//!     let mut round = flow.tool_round(&params, &cx).await?;
//!     let result = round.require("ship", form).and_then(|answers| {
//!         let number = answers.str("trackingNumber")?;
//!         Ok(CallToolResult::success(vec![ContentBlock::text(format!("Shipped as {number}."))]))
//!     });
//!     tool_response(round, result)
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let key = MasterKey::from_bytes(&[7; 32])?;
//! let codec = StateCodec::builder("http://127.0.0.1:8080/mcp", KeyRing::new(key)).build()?;
//! let flow = RmcpFlow::new(Flow::new(codec), |parts| {
//!     // Your authentication: here, whatever an auth layer put into the request.
//!     parts.extensions.get::<String>().cloned()
//! });
//! # let _ = (flow, ship);
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::sync::Arc;

use ::rmcp::ErrorData;
use ::rmcp::handler::server::common::FromContextPart;
use ::rmcp::handler::server::tool::{IntoCallToolResult, ToolCallContext};
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    ErrorCode, GetPromptRequestParams, GetPromptResponse, GetPromptResult, MetaObject,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Role,
};
use ::rmcp::schemars::{JsonSchema, Schema, SchemaGenerator};
use ::rmcp::service::{RequestContext, RoleServer};
use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde_json::{Map, Value};

use crate::runtime::{Call, Flow, Opened, Response, Round, Stop};
use crate::state::Method;
use crate::wire::RpcError;
use crate::wire::{
    CallParams, ClientCapabilities, ElicitRequest, InputRequest, InputRequiredResult,
    InputResponses, PROPERTY_ORDER_META, RequestMeta, retry_fields,
};

/// Derives the principal from a request's HTTP parts (headers, and
/// extensions an authentication layer inserted). `None` means anonymous.
pub type PrincipalFn = dyn Fn(&http::request::Parts) -> Option<String> + Send + Sync;

/// A [`Flow`] and the way to find who is calling: what an `rmcp` server
/// handler keeps (cheap to clone; `rmcp` builds a handler per request in
/// stateless mode).
#[derive(Clone)]
pub struct RmcpFlow {
    flow: Arc<Flow>,
    principal: Arc<PrincipalFn>,
}

impl RmcpFlow {
    /// A flow whose principal comes from `principal`, applied to the HTTP
    /// request's parts.
    ///
    /// <div class="warning">The principal must come from real
    /// authentication (a verified OAuth token's subject, a session). A value
    /// the client states about itself binds the state to nothing.</div>
    pub fn new(
        flow: Flow,
        principal: impl Fn(&http::request::Parts) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            flow: Arc::new(flow),
            principal: Arc::new(principal),
        }
    }

    /// A flow for anonymous tools: every call has no principal. Its codec
    /// must be built with
    /// [`allow_anonymous`](crate::state::CodecBuilder::allow_anonymous).
    pub fn anonymous(flow: Flow) -> Self {
        Self::new(flow, |_| None)
    }

    /// The flow.
    pub fn flow(&self) -> &Flow {
        &self.flow
    }

    /// The round of a `tools/call`.
    ///
    /// A call with a `requestState` awaits the replay guard's async face
    /// (the memory and Redis guards have one); under a guard without one it
    /// opens on tokio's blocking pool (`spawn_blocking`), since that guard
    /// may block on its store up to its timeout.
    ///
    /// # Errors
    ///
    /// `-32602` for malformed `inputResponses` or `_meta`;
    /// `-32602` [`RpcError::invalid_request_state`] for a state that does
    /// not open.
    pub async fn tool_round(
        &self,
        params: &CallToolRequestParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<Round<'_>, ErrorData> {
        self.open_round(
            Method::ToolsCall,
            params.name.as_ref(),
            params.arguments.as_ref(),
            params.input_responses.as_ref(),
            params.request_state.as_deref(),
            cx,
        )
        .await
    }

    /// The round of a `prompts/get`.
    ///
    /// # Errors
    ///
    /// As [`tool_round`](Self::tool_round).
    pub async fn prompt_round(
        &self,
        params: &GetPromptRequestParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<Round<'_>, ErrorData> {
        self.open_round(
            Method::PromptsGet,
            params.name.as_str(),
            params.arguments.as_ref(),
            params.input_responses.as_ref(),
            params.request_state.as_deref(),
            cx,
        )
        .await
    }

    /// The round of a `resources/read`.
    ///
    /// # Errors
    ///
    /// As [`tool_round`](Self::tool_round).
    pub async fn resource_round(
        &self,
        params: &ReadResourceRequestParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<Round<'_>, ErrorData> {
        self.open_round(
            Method::ResourcesRead,
            params.uri.as_str(),
            None,
            params.input_responses.as_ref(),
            params.request_state.as_deref(),
            cx,
        )
        .await
    }

    /// The round of a `#[tool]` function that reads no arguments, from its
    /// [`ToolCall`] extractor. The state is bound to the arguments the call
    /// carried when `ToolCall` read them.
    ///
    /// A tool with `Parameters` must use [`round_with`](Self::round_with):
    /// `rmcp`'s `Parameters<T>` takes the arguments out of the call, and a
    /// `ToolCall` listed after it sees none.
    ///
    /// # Errors
    ///
    /// As [`tool_round`](Self::tool_round).
    pub async fn round(&self, call: ToolCall) -> Result<Round<'_>, ErrorData> {
        let arguments = call.arguments.clone();
        self.call_round(call, arguments.as_ref()).await
    }

    /// The round of a `#[tool]` function that takes
    /// `Parameters<Args<T>>`: bound to the raw arguments `arguments` was
    /// parsed from (never to `T` serialized again), whatever the order of
    /// the function's parameters.
    ///
    /// # Errors
    ///
    /// As [`tool_round`](Self::tool_round).
    pub async fn round_with<T>(
        &self,
        call: ToolCall,
        arguments: &Args<T>,
    ) -> Result<Round<'_>, ErrorData> {
        self.call_round(call, Some(&arguments.raw)).await
    }

    async fn call_round(
        &self,
        call: ToolCall,
        arguments: Option<&Map<String, Value>>,
    ) -> Result<Round<'_>, ErrorData> {
        self.open_round(
            Method::ToolsCall,
            &call.name,
            arguments,
            call.input_responses.as_ref(),
            call.request_state.as_deref(),
            &call.context,
        )
        .await
    }

    /// The one path every round takes: the call's params from rmcp's
    /// parsed request, then the flow's round.
    async fn open_round(
        &self,
        method: Method,
        target: &str,
        arguments: Option<&Map<String, Value>>,
        responses: Option<&::rmcp::model::InputResponses>,
        state: Option<&str>,
        cx: &RequestContext<RoleServer>,
    ) -> Result<Round<'_>, ErrorData> {
        let call = CallParams::new(method, target, meta(cx)?);
        let call = match arguments {
            Some(arguments) => call.with_arguments(arguments.clone()),
            None => call,
        };
        let call = match responses {
            Some(responses) => {
                let raw: Map<String, Value> = responses
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                call.with_input_responses(
                    InputResponses::from_json(&Value::Object(raw)).map_err(error_data)?,
                )
            }
            None => call,
        };
        let call = match state {
            Some(state) => call.with_request_state(state),
            None => call,
        };
        let principal = cx
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| (self.principal)(parts));
        let call = match principal {
            Some(principal) => Call::new(call).with_principal(principal),
            None => Call::new(call),
        };
        let opened = self.open(call).await.map_err(error_data)?;
        Ok(Round::from_opened(&self.flow, opened))
    }

    /// Opens the call's state: awaiting the replay guard's async face (the
    /// memory and Redis guards), or, for a guard that may block, off the
    /// runtime's workers on tokio's blocking pool.
    async fn open(&self, call: Call) -> Result<Opened, RpcError> {
        let may_block =
            call.params().request_state().is_some() && self.flow.codec().replay_guard_blocks();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) if may_block => {
                let flow = Arc::clone(&self.flow);
                runtime
                    .spawn_blocking(move || Opened::new(&flow, call))
                    .await
                    .unwrap_or_else(|_| Err(RpcError::internal_error()))
            }
            _ => Opened::new_async(&self.flow, call).await,
        }
    }
}

/// What a `#[tool]` function's round needs from its `tools/call`: an `rmcp`
/// extractor (`FromContextPart`). It keeps the tool name, the
/// `inputResponses`, the `requestState`, the request's context (its `_meta`
/// and HTTP parts, for the principal) and a copy of the arguments;
/// [`RmcpFlow::round`] or [`RmcpFlow::round_with`] turns it into a [`Round`].
///
/// ```ignore
/// #[tool(name = "ShipOrder", description = "Ship an order.")]
/// async fn ship_order(&self, call: ToolCall) -> ToolResponse {
///     let mut round = self.flow.round(call).await?;
///     // ...
/// }
/// ```
///
/// It copies what it reads: `rmcp`'s own extractors (`Parameters`,
/// `RequestState`, `InputResponses`) still find their parts, in any order.
pub struct ToolCall {
    name: String,
    arguments: Option<Map<String, Value>>,
    input_responses: Option<::rmcp::model::InputResponses>,
    request_state: Option<String>,
    context: RequestContext<RoleServer>,
}

impl<S> FromContextPart<ToolCallContext<'_, S>> for ToolCall {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        Ok(Self {
            name: context.name().to_owned(),
            arguments: context.arguments.clone(),
            input_responses: context.input_responses.clone(),
            request_state: context.request_state.clone(),
            context: context.request_context().clone(),
        })
    }
}

impl fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCall")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A `#[tool]` function's arguments: `T`, and the raw JSON object it was
/// parsed from, which the state is bound to. Take it as
/// `Parameters<Args<T>>`; its JSON Schema is `T`'s, so `rmcp`'s `#[tool]`
/// lists the tool's input schema as `T`'s.
///
/// ```ignore
/// #[derive(Deserialize, JsonSchema)]
/// struct Order { order_id: String }
///
/// #[tool(name = "ShipOrder", description = "Ship an order.")]
/// async fn ship_order(&self, call: ToolCall, Parameters(order): Parameters<Args<Order>>) -> ToolResponse {
///     let mut round = self.flow.round_with(call, &order).await?;
///     let id = &order.order_id; // `Args<Order>` derefs to `Order`
///     // ...
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Args<T> {
    value: T,
    raw: Map<String, Value>,
}

impl<T> Args<T> {
    /// The parsed arguments.
    pub fn into_inner(self) -> T {
        self.value
    }

    /// The arguments as the client sent them (as `rmcp` parsed them).
    #[must_use]
    pub fn raw(&self) -> &Map<String, Value> {
        &self.raw
    }
}

impl<T> std::ops::Deref for Args<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Args<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Map::<String, Value>::deserialize(deserializer)?;
        let value = T::deserialize(&Value::Object(raw.clone())).map_err(D::Error::custom)?;
        Ok(Self { value, raw })
    }
}

impl<T: JsonSchema> JsonSchema for Args<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }

    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

/// What a `#[tool]` function built on a [`Round`] returns:
/// [`tool_response`]'s result.
pub type ToolResponse = Result<CallToolResponse, ErrorData>;

impl fmt::Debug for RmcpFlow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RmcpFlow")
            .field("flow", &self.flow)
            .finish_non_exhaustive()
    }
}

/// Ends a tool round: the handler's result (a `CallToolResult`, a `String`,
/// anything `rmcp` turns into a tool result), or the input-required result
/// with this round's asks. A declined or cancelled [`Round::require`] ends
/// with a plain, non-error text result saying so; a failed flow
/// ([`Response::Failed`]) with a tool error (`isError: true`) saying why.
///
/// # Errors
///
/// As [`Round::complete`], as [`ErrorData`].
pub fn tool_response<T: IntoCallToolResult>(
    round: Round<'_>,
    result: Result<T, Stop>,
) -> ToolResponse {
    Ok(match round.complete(result).map_err(error_data)? {
        Response::Complete(result) => return result.into_call_tool_result(),
        Response::InputRequired(asked) => CallToolResponse::InputRequired(input_required(&asked)?),
        Response::Declined { .. } => text_result("The request was declined."),
        Response::Cancelled { .. } => text_result("The request was cancelled."),
        Response::Failed(failure) => {
            CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(
                failure.to_string(),
            )]))
        }
    })
}

/// Ends a prompt round (see [`tool_response`]); a decline, a cancel or a
/// failed flow becomes a one-message prompt saying so.
///
/// # Errors
///
/// As [`Round::complete`], as [`ErrorData`].
pub fn prompt_response(
    round: Round<'_>,
    result: Result<GetPromptResult, Stop>,
) -> Result<GetPromptResponse, ErrorData> {
    let said = |text: &str| {
        GetPromptResponse::Complete(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            text,
        )]))
    };
    Ok(match round.complete(result).map_err(error_data)? {
        Response::Complete(result) => GetPromptResponse::Complete(result),
        Response::InputRequired(asked) => GetPromptResponse::InputRequired(input_required(&asked)?),
        Response::Declined { .. } => said("The request was declined."),
        Response::Cancelled { .. } => said("The request was cancelled."),
        Response::Failed(failure) => said(&failure.to_string()),
    })
}

/// Ends a resource round (see [`tool_response`]); a decline, a cancel or a
/// failed flow reads as an empty resource.
///
/// # Errors
///
/// As [`Round::complete`], as [`ErrorData`].
pub fn resource_response(
    round: Round<'_>,
    result: Result<ReadResourceResult, Stop>,
) -> Result<ReadResourceResponse, ErrorData> {
    Ok(match round.complete(result).map_err(error_data)? {
        Response::Complete(result) => ReadResourceResponse::Complete(result),
        Response::InputRequired(asked) => {
            ReadResourceResponse::InputRequired(input_required(&asked)?)
        }
        Response::Declined { .. } | Response::Cancelled { .. } | Response::Failed(_) => {
            ReadResourceResponse::Complete(ReadResourceResult::new(Vec::new()))
        }
    })
}

/// Our [`InputRequiredResult`] as `rmcp`'s, a form's fields in the order
/// they were declared.
///
/// The conversion goes through JSON text, never a `serde_json::Value`: a
/// `Value` sorts object keys (this crate leaves serde_json's
/// `preserve_order` off, since that feature would change every map in the
/// program, and the canonical JSON the state binding digests). `rmcp`'s
/// `ElicitationSchema` keeps its properties in a `BTreeMap`, but records the
/// order its JSON text listed them in (`property_order`) and writes them
/// back in that order.
///
/// `rmcp` 3.11's type serializes a URL-mode ask with `"elicitationId": ""`,
/// a field MCP 2026-07-28 removed (its schema still admits extra members);
/// this crate never sets one.
///
/// # Errors
///
/// An internal error if `rmcp` cannot represent it (it represents every
/// request this crate builds).
pub fn input_required(
    result: &InputRequiredResult,
) -> Result<::rmcp::model::InputRequiredResult, ErrorData> {
    let converted: ::rmcp::model::InputRequiredResult = serde_json::to_string(result)
        .and_then(|text| serde_json::from_str(&text))
        .map_err(|_| error_data(RpcError::internal_error()))?;
    Ok(match property_orders(result) {
        Some(orders) => converted.with_meta(MetaObject(orders)),
        None => converted,
    })
}

/// `{PROPERTY_ORDER_META: {askKey: [names]}}` for the forms whose declared
/// order is not alphabetical, if any: `rmcp` writes the asks through a
/// `serde_json::Value`, and `mrtr_guard::tower::ScreenLayer` puts the
/// properties back in this order and removes the hint.
fn property_orders(result: &InputRequiredResult) -> Option<Map<String, Value>> {
    let orders: Map<String, Value> = result
        .input_requests()?
        .iter()
        .filter_map(|(key, ask)| match ask {
            InputRequest::Elicitation(ElicitRequest::Form { property_order, .. })
                if !property_order.is_sorted() =>
            {
                Some((key.clone(), Value::from(property_order.clone())))
            }
            _ => None,
        })
        .collect();
    if orders.is_empty() {
        return None;
    }
    let mut meta = Map::new();
    meta.insert(PROPERTY_ORDER_META.to_owned(), Value::Object(orders));
    Some(meta)
}

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

fn meta(cx: &RequestContext<RoleServer>) -> Result<RequestMeta, ErrorData> {
    let raw = Value::Object(cx.meta.0.0.clone());
    let mut params = Map::new();
    params.insert("_meta".into(), raw);
    match RequestMeta::from_params(&Value::Object(params)) {
        Ok(meta) => Ok(meta),
        // A legacy session (no per-request _meta): rmcp knows its capabilities.
        Err(_) => {
            let capabilities = cx
                .client_capabilities()
                .and_then(|caps| serde_json::to_value(caps).ok())
                .and_then(|caps| ClientCapabilities::from_json(&caps).ok())
                .unwrap_or_default();
            Ok(RequestMeta::new("", capabilities))
        }
    }
}

fn text_result(text: &str) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(text)]))
}
