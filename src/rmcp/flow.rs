//! Round opening: [`RmcpFlow`], a [`Flow`] and the way to find who is
//! calling, turns an `rmcp` request into a [`Round`].

use std::fmt;
use std::sync::Arc;

use ::rmcp::ErrorData;
use ::rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use ::rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

use super::error::error_data;
use super::extract::{BoundArgs, Context, ToolCall};
use crate::runtime::{Call, Flow, Misuse, Opened, Round};
#[cfg(feature = "tower")]
use crate::tower::service::RawArguments;
use crate::wire::Method;
use crate::wire::{CallParams, InputResponses, RpcError};

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

    /// A flow whose principal comes from a shared function.
    #[cfg_attr(
        not(feature = "server"),
        expect(dead_code, reason = "used by the server builder")
    )]
    pub(super) fn from_shared(flow: Flow, principal: Arc<PrincipalFn>) -> Self {
        Self {
            flow: Arc::new(flow),
            principal,
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
    /// `-32602` for malformed `inputResponses`, or a retry whose `_meta` is
    /// missing or incomplete; `-32022` for a retry whose `_meta` names
    /// another protocol version than 2026-07-28; `-32001` when no principal
    /// is found and the codec refuses anonymous states;
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
            params.input_responses.clone(),
            params.request_state.clone(),
            Context::of(
                cx,
                params.request_state.is_some() || params.input_responses.is_some(),
            ),
            Arguments::Given,
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
            params.input_responses.clone(),
            params.request_state.clone(),
            Context::of(
                cx,
                params.request_state.is_some() || params.input_responses.is_some(),
            ),
            Arguments::Given,
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
            params.input_responses.clone(),
            params.request_state.clone(),
            Context::of(
                cx,
                params.request_state.is_some() || params.input_responses.is_some(),
            ),
            Arguments::Given,
        )
        .await
    }

    /// The round of a `#[tool]` function, from its [`ToolCall`] extractor,
    /// whatever other extractors it takes, in any order. Over HTTP the
    /// state is bound to the raw arguments the client sent, which
    /// `ScreenLayer` kept for the round (`rmcp`'s `Parameters<T>` and
    /// `JsonObject` take the arguments out of the call, so a `ToolCall`
    /// after them sees none): served without the layer, the round is
    /// refused as a programming error (`-32603`,
    /// [`Misuse::ArgumentsUnbound`](crate::runtime::Misuse::ArgumentsUnbound)).
    /// Without HTTP (stdio) it is bound to the arguments `ToolCall` copied.
    ///
    /// # Errors
    ///
    /// As [`tool_round`](Self::tool_round).
    pub async fn round(&self, mut call: ToolCall) -> Result<Round<'_>, ErrorData> {
        let arguments = call.arguments.take();
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
        let ToolCall {
            name,
            input_responses,
            request_state,
            parts,
            meta,
            ..
        } = call;
        let context = Context {
            parts: parts.as_ref(),
            meta,
        };
        self.open_round(
            Method::ToolsCall,
            &name,
            arguments,
            input_responses,
            request_state,
            context,
            Arguments::Copied,
        )
        .await
    }

    /// The one path every round takes: the call's params from rmcp's
    /// parsed request, then the flow's round.
    #[expect(
        clippy::too_many_arguments,
        reason = "one private path for every round"
    )]
    async fn open_round(
        &self,
        method: Method,
        target: &str,
        arguments: Option<&Map<String, Value>>,
        responses: Option<::rmcp::model::InputResponses>,
        state: Option<String>,
        context: Context<'_>,
        source: Arguments,
    ) -> Result<Round<'_>, ErrorData> {
        let arguments = bound_arguments(method, target, arguments, context.parts, source)?;
        let mut params = CallParams::new(method, target, context.meta?);
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments.clone());
        }
        if let Some(responses) = responses {
            params = params.with_input_responses(input_responses(responses)?);
        }
        if let Some(state) = state {
            params = params.with_request_state(state);
        }
        let call = match self.principal(context.parts) {
            Some(principal) => Call::new(params).with_principal(principal),
            None if !self.flow.codec().allows_anonymous() => {
                log_unauthenticated();
                return Err(error_data(RpcError::unauthenticated()));
            }
            None => Call::new(params),
        };
        let opened = self.open(call).await.map_err(error_data)?;
        Ok(Round::from_opened(&self.flow, opened))
    }

    /// Who is calling, from the request's HTTP parts through the
    /// principal function; `None` without HTTP parts.
    fn principal(&self, parts: Option<&http::request::Parts>) -> Option<String> {
        parts.and_then(|parts| (self.principal)(parts))
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

/// Where a round's arguments come from: the request's params, as the
/// caller passed them (`tool_round`), or a `ToolCall`'s copy, which
/// extractors before it may have emptied.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arguments {
    Given,
    Copied,
}

/// The arguments to bind the state to: the raw object `ScreenLayer` kept
/// from the body when it is there (and for this call), else the given ones;
/// a `ToolCall`'s copy over HTTP without the layer's is refused.
fn bound_arguments<'a>(
    method: Method,
    target: &str,
    arguments: Option<&'a Map<String, Value>>,
    parts: Option<&'a http::request::Parts>,
    source: Arguments,
) -> Result<Option<&'a Map<String, Value>>, ErrorData> {
    let Some(parts) = parts else {
        return Ok(arguments);
    };
    match raw_arguments(parts) {
        Some(raw) if raw.0 == method && raw.1 == target => Ok(raw.2),
        None if source == Arguments::Given => Ok(arguments),
        _ => Err(error_data(Misuse::ArgumentsUnbound.into_error())),
    }
}

/// What `ScreenLayer` kept of a call's body: method, target, raw arguments.
type Kept<'a> = (Method, &'a str, Option<&'a Map<String, Value>>);

/// What `ScreenLayer` kept of the body, if it screened it.
#[cfg(feature = "tower")]
fn raw_arguments(parts: &http::request::Parts) -> Option<Kept<'_>> {
    let raw = parts.extensions.get::<RawArguments>()?;
    Some((raw.method, raw.target.as_str(), raw.arguments.as_deref()))
}

#[cfg(not(feature = "tower"))]
fn raw_arguments(_parts: &http::request::Parts) -> Option<Kept<'_>> {
    None
}

#[cfg(feature = "tracing")]
fn log_unauthenticated() {
    tracing::warn!(
        name: "unauthenticated_call", target: "mrtr_guard::rmcp",
        "a round was opened without a principal on a codec that refuses anonymous states: \
         refused as unauthenticated (check the principal function)"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_unauthenticated() {}

/// `rmcp`'s `inputResponses` as ours (moved, not copied), checked as the
/// wire types check them.
fn input_responses(responses: ::rmcp::model::InputResponses) -> Result<InputResponses, ErrorData> {
    InputResponses::from_map(responses.into_iter().collect()).map_err(error_data)
}
