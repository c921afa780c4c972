//! Round opening: [`RmcpFlow`], a [`Flow`] and the way to find who is
//! calling, turns an `rmcp` request into a [`Round`].

use std::fmt;
use std::sync::Arc;

use ::rmcp::ErrorData;
use ::rmcp::model::{
    CallToolRequestParams, GetPromptRequestParams, InputResponses, ReadResourceRequestParams,
};
use ::rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

use super::error::error_data;
use super::extract::{BoundArgs, Context, ToolCall};
#[cfg(feature = "server")]
use super::task::TaskInbox;
#[cfg(feature = "server")]
use super::task::host::TaskHost;
use crate::handoff::{Principal, PrincipalFn, RawArguments, ReplayNoted, TaskOffer, authenticate};
use crate::runtime::{Call, Flow, Misuse, Opened, Opening, Round};
use crate::state::StateError;
use crate::wire::Method;
use crate::wire::{CallParams, RpcError};

/// A [`Flow`] and the way to find who is calling: what an `rmcp` server
/// handler keeps (cheap to clone; `rmcp` builds a handler per request in
/// stateless mode).
#[derive(Clone)]
pub struct RmcpFlow {
    flow: Arc<Flow>,
    principal: Arc<PrincipalFn>,
    /// The server's tasks, when `McpServerBuilder::build` made the flow.
    #[cfg(feature = "server")]
    tasks: Option<Arc<TaskHost>>,
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
            #[cfg(feature = "server")]
            tasks: None,
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
            #[cfg(feature = "server")]
            tasks: None,
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

    /// The flow, shared (the task host seals its records with its keys).
    #[cfg(feature = "server")]
    pub(super) fn shared_flow(&self) -> Arc<Flow> {
        Arc::clone(&self.flow)
    }

    /// The flow of a server whose tasks `host` serves.
    #[cfg(feature = "server")]
    pub(super) fn with_task_host(mut self, host: Arc<TaskHost>) -> Self {
        self.tasks = Some(host);
        self
    }

    /// The server's [`TaskInbox`], to ask a task's user from outside the
    /// handler (a job the handler started: give it the inbox and
    /// [`Round::task_id`]); `None` for a flow that
    /// [`McpServerBuilder::build`](crate::rmcp::McpServerBuilder::build) did
    /// not make (built by hand with [`new`](Self::new)).
    #[cfg(feature = "server")]
    #[must_use]
    pub fn task_inbox(&self) -> Option<TaskInbox> {
        self.tasks.clone().map(TaskInbox::of)
    }

    /// The round of a `tools/call`.
    ///
    /// A call with a `requestState` awaits the replay guard's async face
    /// (the memory and Redis guards have one); under a guard without one it
    /// opens on tokio's blocking pool (`spawn_blocking`), since that guard
    /// may block on its store up to its timeout ([`Flow::open_async`]).
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
        self.params_round(params, cx).await
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
        self.params_round(params, cx).await
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
        self.params_round(params, cx).await
    }

    /// The round of a request whose params `rmcp` parsed: what
    /// [`tool_round`](Self::tool_round) and its twins share.
    async fn params_round<P: RoundParams>(
        &self,
        params: &P,
        cx: &RequestContext<RoleServer>,
    ) -> Result<Round<'_>, ErrorData> {
        let (responses, state) = params.retry();
        let retry = state.is_some() || responses.is_some();
        self.open_round(Request {
            method: P::METHOD,
            target: params.target(),
            arguments: params.arguments(),
            responses: responses.cloned(),
            state: state.cloned(),
            context: Context::of(cx, retry),
            source: Arguments::Given,
        })
        .await
    }

    /// The round of a `#[tool]` function, from its [`ToolCall`] extractor,
    /// whatever other extractors it takes (plain `Parameters<T>`,
    /// `JsonObject`), in any order. Behind
    /// [`McpServer`](crate::rmcp::McpServer) (or `ScreenLayer`) the state
    /// is bound to the raw arguments the client sent, which the layer kept
    /// for the round. Over HTTP without the layer, a `ToolCall` after
    /// `Parameters<T>` sees no arguments (`rmcp` took them out of the call)
    /// and the round is refused as a programming error (`-32603`,
    /// [`Misuse::ArgumentsUnbound`](crate::runtime::Misuse::ArgumentsUnbound)):
    /// there take `Parameters<BoundArgs<T>>` and open with
    /// [`round_with`](Self::round_with). Without HTTP (stdio) the state is
    /// bound to the arguments `ToolCall` copied.
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
    /// the function's parameters. For tools mounted over HTTP without
    /// [`McpServer`](crate::rmcp::McpServer) or `ScreenLayer`; behind them,
    /// [`round`](Self::round) with plain `Parameters<T>` binds the same.
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
        self.open_round(Request {
            method: Method::ToolsCall,
            target: &name,
            arguments,
            responses: input_responses,
            state: request_state,
            context: Context {
                parts: parts.as_ref(),
                meta,
            },
            source: Arguments::Copied,
        })
        .await
    }

    /// The one path every round takes: the call's params from rmcp's
    /// parsed request, then the flow's round.
    async fn open_round(&self, request: Request<'_, '_>) -> Result<Round<'_>, ErrorData> {
        let Request {
            method,
            target,
            arguments,
            responses,
            state,
            context,
            source,
        } = request;
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
        let call = match self.principal(context.parts)?.as_deref() {
            Some(principal) => Call::new(params).with_principal(principal),
            None => Call::new(params),
        };
        let call = TaskOffer::apply(call, context.parts);
        let opened = self.open(call).await.map_err(|error| {
            if error.state_error() == Some(&StateError::Replayed) {
                ReplayNoted::note(context.parts);
            }
            error_data(error)
        })?;
        Ok(opened.round(&self.flow))
    }

    /// Who is calling: the principal the mount derived for the request
    /// (behind [`McpServer`](crate::rmcp::McpServer)), else found once
    /// through the principal function.
    fn principal(&self, parts: Option<&http::request::Parts>) -> Result<Principal, ErrorData> {
        if let Some(derived) = parts.and_then(Principal::of) {
            return Ok(derived.clone());
        }
        let required = !self.flow.codec().allows_anonymous();
        authenticate(&*self.principal, parts, required).map_err(error_data)
    }

    /// Opens the call's state: awaiting the replay guard's async face (the
    /// memory and Redis guards), or, for a guard that can only block, off
    /// the runtime's workers on tokio's blocking pool.
    async fn open(&self, call: Call) -> Result<Opened, RpcError> {
        match self.flow.open_async(call).await? {
            Opening::Opened(opened) => Ok(opened),
            Opening::Blocking(call) => match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    let flow = Arc::clone(&self.flow);
                    runtime
                        .spawn_blocking(move || flow.open(call))
                        .await
                        .unwrap_or_else(|_| Err(RpcError::internal_error()))
                }
                Err(_) => self.flow.open(call),
            },
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

/// What a round is opened from, whichever way the handler came to it.
struct Request<'r, 'a> {
    method: Method,
    target: &'r str,
    arguments: Option<&'r Map<String, Value>>,
    responses: Option<InputResponses>,
    state: Option<String>,
    context: Context<'a>,
    source: Arguments,
}

/// The params of the requests a round answers, as `rmcp` parsed them: the
/// method, its target, its arguments and its retry fields.
trait RoundParams {
    const METHOD: Method;

    fn target(&self) -> &str;

    fn arguments(&self) -> Option<&Map<String, Value>> {
        None
    }

    /// The `inputResponses` and the `requestState`.
    fn retry(&self) -> (Option<&InputResponses>, Option<&String>);
}

impl RoundParams for CallToolRequestParams {
    const METHOD: Method = Method::ToolsCall;

    fn target(&self) -> &str {
        &self.name
    }

    fn arguments(&self) -> Option<&Map<String, Value>> {
        self.arguments.as_ref()
    }

    fn retry(&self) -> (Option<&InputResponses>, Option<&String>) {
        (self.input_responses.as_ref(), self.request_state.as_ref())
    }
}

impl RoundParams for GetPromptRequestParams {
    const METHOD: Method = Method::PromptsGet;

    fn target(&self) -> &str {
        &self.name
    }

    fn arguments(&self) -> Option<&Map<String, Value>> {
        self.arguments.as_ref()
    }

    fn retry(&self) -> (Option<&InputResponses>, Option<&String>) {
        (self.input_responses.as_ref(), self.request_state.as_ref())
    }
}

impl RoundParams for ReadResourceRequestParams {
    const METHOD: Method = Method::ResourcesRead;

    fn target(&self) -> &str {
        &self.uri
    }

    fn retry(&self) -> (Option<&InputResponses>, Option<&String>) {
        (self.input_responses.as_ref(), self.request_state.as_ref())
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
    match RawArguments::of(parts, method, target) {
        Some(raw) => Ok(raw),
        None if source == Arguments::Given && !RawArguments::kept(parts) => Ok(arguments),
        None => Err(error_data(Misuse::ArgumentsUnbound.into_error())),
    }
}

/// `rmcp`'s `inputResponses` as ours (moved, not copied), checked as the
/// wire types check them.
fn input_responses(responses: InputResponses) -> Result<crate::wire::InputResponses, ErrorData> {
    crate::wire::InputResponses::from_map(responses.into_iter().collect()).map_err(error_data)
}
