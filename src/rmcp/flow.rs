//! Round opening: [`RmcpFlow`], a [`Flow`] and the way to find who is
//! calling, turns an `rmcp` request into a [`Round`].

use std::fmt;
use std::sync::Arc;

use ::rmcp::ErrorData;
use ::rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use ::rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

use super::error::error_data;
use super::extract::{BoundArgs, ToolCall};
use crate::runtime::{Call, Flow, Opened, Round};
use crate::wire::Method;
use crate::wire::{CallParams, ClientCapabilities, InputResponses, RequestMeta, RpcError};

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
    /// `Parameters<BoundArgs<T>>`: bound to the raw arguments `arguments` was
    /// parsed from (never to `T` serialized again), whatever the order of
    /// the function's parameters.
    ///
    /// # Errors
    ///
    /// As [`tool_round`](Self::tool_round).
    pub async fn round_with<T>(
        &self,
        call: ToolCall,
        arguments: &BoundArgs<T>,
    ) -> Result<Round<'_>, ErrorData> {
        self.call_round(call, Some(arguments.raw())).await
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
        let mut params = CallParams::new(method, target, meta(cx)?);
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments.clone());
        }
        if let Some(responses) = responses {
            params = params.with_input_responses(input_responses(responses)?);
        }
        if let Some(state) = state {
            params = params.with_request_state(state);
        }
        let call = match self.principal(cx) {
            Some(principal) => Call::new(params).with_principal(principal),
            None => Call::new(params),
        };
        let opened = self.open(call).await.map_err(error_data)?;
        Ok(Round::from_opened(&self.flow, opened))
    }

    /// Who is calling, from the request's HTTP parts through the
    /// principal function; `None` without HTTP parts.
    fn principal(&self, cx: &RequestContext<RoleServer>) -> Option<String> {
        cx.extensions
            .get::<http::request::Parts>()
            .and_then(|parts| (self.principal)(parts))
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

impl fmt::Debug for RmcpFlow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RmcpFlow")
            .field("flow", &self.flow)
            .finish_non_exhaustive()
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

/// `rmcp`'s `inputResponses` as ours, checked as the wire types check them.
fn input_responses(responses: &::rmcp::model::InputResponses) -> Result<InputResponses, ErrorData> {
    let raw: Map<String, Value> = responses
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    InputResponses::from_json(&Value::Object(raw)).map_err(error_data)
}
