//! Clients of the previous revision (`2025-11-25`) on the same tools:
//! [`Legacy`].
//!
//! The server handler [`Legacy`] documents the whole path.

#![allow(
    deprecated,
    reason = "sampling and roots are deprecated by SEP-2577 but still served to old clients"
)]

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ::rmcp::ErrorData;
use ::rmcp::ServerHandler;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelledNotificationParam,
    ClientResult, CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest,
    CustomResult, DiscoverResult, ElicitRequestParams, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, GetSkillRequestParams, GetSkillResult, GetTaskParams, GetTaskResult,
    InitializeRequestParams, InitializeResult, InputRequest, InputRequiredResult, InputResponses,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ServerConfig, ServerRequest, SetLevelRequestParams,
    SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams, UpdateTaskParams,
};
use ::rmcp::service::{
    MaybeSendFuture, NotificationContext, PeerRequestOptions, RequestContext, RoleServer,
    ServiceError, SubscriptionContext,
};
use serde_json::{Value, json};

use super::error::error_data;
use crate::wire::{ClientCapabilities, RpcError};

/// How long a server-initiated request waits for the client's answer by
/// default: 5 minutes, half the default round `ttl` of
/// [`Policy`](crate::state::Policy), so an answer that arrives in time
/// finds its round's state still open. A person fills the form in that
/// time; set it with [`Legacy::with_answer_timeout`], below your codec's
/// round `ttl`.
pub const DEFAULT_ANSWER_TIMEOUT: Duration = Duration::from_secs(300);

/// The most rounds one legacy call runs. The state's round cap
/// ([`Policy::max_rounds`](crate::state::Policy::max_rounds)) ends a flow
/// of this crate first; this bounds a handler that keeps answering
/// `input_required` some other way.
pub const LEGACY_MAX_ROUNDS: usize = 32;

/// A server handler that also serves `2025-11-25` session clients from the
/// same multi-round tools.
///
/// Every method of [`ServerHandler`] goes to the wrapped handler; `tools/call`,
/// `prompts/get` and `resources/read` from a legacy session run the rounds
/// in process.
///
/// A `2025-11-25` client initializes a session and expects the server to
/// *send* it `elicitation/create`, `sampling/createMessage` and `roots/list`
/// while its `tools/call` waits; it knows no `input_required`. [`Legacy`]
/// wraps a server handler so that the same write-once tools serve it: when
/// a call from such a session comes back `input_required`, each of its input
/// requests goes out over the session as a server-initiated request, and the
/// handler is called again, in process, with the answers and the round's
/// sealed `requestState`, until it completes.
///
/// **One code path for every check.** The re-run is the `2026-07-28` retry:
/// the state the round minted is opened again at once, so the answers are
/// checked by the same form and validator, against the same binding
/// (method, target, arguments, principal), within the same round cap, flow
/// deadline, answer budget and three-strikes rule, and `Round::once` effects
/// run once. The state never leaves the process; a `requestState` or
/// `inputResponses` the old client puts in its own `tools/call` is dropped,
/// so its flow always starts at round 1.
///
/// What an old client cannot do ends the call with an error, never a hang:
///
/// | Case | Error |
/// |---|---|
/// | the session did not declare the capability a request needs | `-32021`, `data.requiredCapabilities` (as on the `2026-07-28` path) |
/// | no answer within [`Legacy::with_answer_timeout`] (default [`DEFAULT_ANSWER_TIMEOUT`]) | `-32603`, `data.reason` `"input_timeout"`; the request is cancelled (`notifications/cancelled`) |
/// | the client answers the request with a JSON-RPC error | `-32603`, `data.reason` `"input_failed"` |
/// | the client cancels its `tools/call` while a request is out | `-32603`, `data.reason` `"cancelled"`; the request is cancelled |
/// | the session closes | `-32603`, `data.reason` `"session_closed"` |
/// | the round's state expired while the client answered | `-32602`, `data.reason` `"invalid_request_state"`, saying to call again |
/// | more than [`LEGACY_MAX_ROUNDS`] rounds | `-32603`, `data.reason` `"too_many_rounds"` |
///
/// A decline or a cancel the *user* chooses is an answer like any other: it
/// reaches the handler as [`Reply::Declined`](crate::runtime::Reply) or
/// `Cancelled`, as it does today. An invalid answer is asked again with what
/// to correct (the runtime's re-ask), and after three the flow ends as a
/// tool error.
///
/// Requests go out one at a time, in key order: a client shows one dialog at
/// a time, and a failed one ends the call before the next is sent.
///
/// **Which calls.** A request that carries no per-request `_meta` protocol
/// version, from a session that negotiated a version before `2026-07-28`.
/// `rmcp` 3.11's `StreamableHttpService` routes both kinds on one endpoint
/// when `legacy_session_mode` is on (its default) with a session manager such
/// as `LocalSessionManager`: an `initialize`, or a request naming a version
/// before `2026-07-28`, gets a session (`Mcp-Session-Id`); a request naming
/// `2026-07-28` in its `_meta` is served statelessly whatever the setting
/// (`rmcp` 3.11, `src/transport/streamable_http_server/tower.rs`,
/// `is_legacy_request` and `handle_post`). Every other call, and every other
/// method, goes to the wrapped handler untouched.
///
/// ```no_run
/// use std::sync::Arc;
/// use std::time::Duration;
///
/// use mrtr_guard::rmcp::Legacy;
/// use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
/// use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
/// # #[derive(Clone)] struct MyServer;
/// # impl rmcp::ServerHandler for MyServer {}
///
/// let handler = Legacy::new(MyServer).with_answer_timeout(Duration::from_secs(120));
/// let service = StreamableHttpService::new(
///     move || Ok(handler.clone()),
///     Arc::new(LocalSessionManager::default()),
///     StreamableHttpServerConfig::default(), // legacy_session_mode: true
/// );
/// # let _ = service;
/// ```
#[derive(Clone)]
pub struct Legacy<H> {
    inner: H,
    answer_timeout: Duration,
}

impl<H> Legacy<H> {
    /// `inner`, with legacy sessions served, answers awaited for
    /// [`DEFAULT_ANSWER_TIMEOUT`].
    pub fn new(inner: H) -> Self {
        Self {
            inner,
            answer_timeout: DEFAULT_ANSWER_TIMEOUT,
        }
    }

    /// How long each server-initiated request waits for its answer. Keep it
    /// below the codec's round `ttl`: the round's state must still open when
    /// the answer comes.
    #[must_use]
    pub fn with_answer_timeout(mut self, timeout: Duration) -> Self {
        self.answer_timeout = timeout;
        self
    }

    /// The wrapped handler.
    pub fn inner(&self) -> &H {
        &self.inner
    }

    /// How long each server-initiated request waits for its answer.
    pub fn answer_timeout(&self) -> Duration {
        self.answer_timeout
    }
}

impl<H> fmt::Debug for Legacy<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Legacy")
            .field("answer_timeout", &self.answer_timeout)
            .finish_non_exhaustive()
    }
}

/// Marks a run whose retry fields [`Legacy`] made from the answers it
/// collected over the session.
#[derive(Debug, Clone, Copy)]
pub(super) struct LegacyRetry;

/// Whether a request comes from a session that negotiated a revision before
/// `2026-07-28` and names no version of its own.
fn from_legacy_session(cx: &RequestContext<RoleServer>) -> bool {
    cx.meta.protocol_version().is_none()
        && cx
            .peer
            .peer_info()
            .is_some_and(|info| info.protocol_version < ProtocolVersion::V_2026_07_28)
}

/// One run of the wrapped handler: done, or a round that asks.
enum Step<T> {
    Done(T),
    Ask(InputRequiredResult),
}

/// The retry fields of the next run.
type Retry = Option<(InputResponses, Option<String>)>;

impl<H: ServerHandler> Legacy<H> {
    /// Runs `run` until it is done: each `input_required` is fulfilled over
    /// the session and fed back as the next run's retry fields.
    async fn drive<T, F, Fut>(
        &self,
        cx: &RequestContext<RoleServer>,
        mut run: F,
    ) -> Result<T, ErrorData>
    where
        F: FnMut(Retry) -> Fut,
        Fut: Future<Output = Result<Step<T>, ErrorData>>,
    {
        let mut retry: Retry = None;
        for round in 0..LEGACY_MAX_ROUNDS {
            let again = retry.is_some();
            let asked = match run(retry.take()).await {
                Ok(Step::Done(done)) => return Ok(done),
                Ok(Step::Ask(asked)) => asked,
                Err(error) if again => return Err(reworded(error)),
                Err(error) => return Err(error),
            };
            let responses = self.fulfil(&asked, cx, round).await?;
            retry = Some((responses, asked.request_state));
        }
        Err(failure(
            "the call needed more rounds of input than a legacy session may run; it was stopped",
            "too_many_rounds",
        ))
    }

    /// Sends each input request of `asked` to the client, in key order, and
    /// collects the answers as `inputResponses`.
    async fn fulfil(
        &self,
        asked: &InputRequiredResult,
        cx: &RequestContext<RoleServer>,
        round: usize,
    ) -> Result<InputResponses, ErrorData> {
        let capabilities = session_capabilities(cx);
        let mut responses = InputResponses::new();
        let Some(requests) = asked.input_requests.as_ref() else {
            return Ok(responses);
        };
        for (key, request) in requests {
            let (method, request) = server_request(request, round)?;
            if let Some(required) = missing_capabilities(&request, &capabilities) {
                return Err(error_data(RpcError::missing_capability(&required)));
            }
            let answer = self.ask(cx, method, request).await?;
            let answer =
                serde_json::to_value(answer).map_err(|_| error_data(RpcError::internal_error()))?;
            responses.insert(key.clone(), answer);
        }
        Ok(responses)
    }

    /// One server-initiated request, awaited until the answer, the timeout
    /// or the cancellation of the client's call.
    async fn ask(
        &self,
        cx: &RequestContext<RoleServer>,
        method: &'static str,
        request: ServerRequest,
    ) -> Result<ClientResult, ErrorData> {
        let handle = cx
            .peer
            .send_request_with_option(
                request,
                PeerRequestOptions::with_timeout(self.answer_timeout),
            )
            .await
            .map_err(|error| service_failure(method, &error, self.answer_timeout))?;
        let id = handle.id.clone();
        tokio::select! {
            biased;
            () = cx.ct.cancelled() => {
                let cancel = CancelledNotificationParam::new(
                    Some(id),
                    Some("the tool call was cancelled".to_owned()),
                );
                // The call ends whether or not the client hears of it.
                let _ = cx.peer.notify_cancelled(cancel).await;
                Err(failure(
                    "the tool call was cancelled while the server waited for input",
                    "cancelled",
                ))
            }
            answer = handle.await_response() => {
                answer.map_err(|error| service_failure(method, &error, self.answer_timeout))
            }
        }
    }
}

/// The session's capabilities, from its `initialize`.
fn session_capabilities(cx: &RequestContext<RoleServer>) -> ClientCapabilities {
    cx.client_capabilities()
        .and_then(|caps| serde_json::to_value(caps).ok())
        .and_then(|caps| ClientCapabilities::from_json(&caps).ok())
        .unwrap_or_default()
}

/// Process-wide counter for URL-mode `elicitationId`s, which `2025-11-25`
/// requires and `2026-07-28` removed: unique within every session of this
/// instance, and carrying nothing.
static ELICITATION_IDS: AtomicU64 = AtomicU64::new(1);

/// An input request as the server-initiated request that carries it.
fn server_request(
    request: &InputRequest,
    round: usize,
) -> Result<(&'static str, ServerRequest), ErrorData> {
    Ok(match request {
        InputRequest::Elicitation(elicit) => {
            let mut elicit = elicit.clone();
            if let ElicitRequestParams::UrlElicitationParams { elicitation_id, .. } =
                &mut elicit.params
                && elicitation_id.is_empty()
            {
                let n = ELICITATION_IDS.fetch_add(1, Ordering::Relaxed);
                *elicitation_id = format!("mrtr-{n}-{round}");
            }
            ("elicitation/create", ServerRequest::ElicitRequest(elicit))
        }
        InputRequest::CreateMessage(sampling) => (
            "sampling/createMessage",
            ServerRequest::CreateMessageRequest(sampling.clone()),
        ),
        InputRequest::ListRoots(roots) => {
            ("roots/list", ServerRequest::ListRootsRequest(roots.clone()))
        }
        _ => return Err(error_data(RpcError::internal_error())),
    })
}

/// What a client must have declared to receive `request`, as the
/// `2026-07-28` path words it, if `capabilities` lacks it (read as the
/// runtime reads them: `elicitation: {}` is form mode).
fn missing_capabilities(
    request: &ServerRequest,
    capabilities: &ClientCapabilities,
) -> Option<ClientCapabilities> {
    let none = ClientCapabilities::none();
    let (required, allowed) = match request {
        ServerRequest::ElicitRequest(elicit) => match elicit.params {
            ElicitRequestParams::UrlElicitationParams { .. } => {
                (none.with_elicitation_url(), capabilities.elicitation_url())
            }
            _ => (
                none.with_elicitation_form(),
                capabilities.elicitation_form(),
            ),
        },
        ServerRequest::CreateMessageRequest(sampling) => {
            let mut required = none.with_sampling();
            let mut allowed = capabilities.sampling();
            if sampling.params.tools.is_some() || sampling.params.tool_choice.is_some() {
                required = required.with_sampling_tools();
                allowed &= capabilities.sampling_tools();
            }
            if sampling
                .params
                .include_context
                .as_ref()
                .and_then(|context| serde_json::to_value(context).ok())
                .is_some_and(|context| context != "none")
            {
                required = required.with_sampling_context();
                allowed &= capabilities.sampling_context();
            }
            (required, allowed)
        }
        _ => (none.with_roots(), capabilities.roots()),
    };
    (!allowed).then_some(required)
}

/// `-32603` with `message` and `data.reason`.
fn failure(message: &str, reason: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        message.to_owned(),
        Some(json!({ "reason": reason })),
    )
}

/// What went wrong with one server-initiated request. Never echoes what
/// the client sent (an error's message stays out; its code goes in `data`).
fn service_failure(method: &str, error: &ServiceError, timeout: Duration) -> ErrorData {
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
fn reworded(error: ErrorData) -> ErrorData {
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

// ---- the three methods that run rounds ---------------------------------------------------

/// The params of a method that runs rounds: their retry fields.
trait RetryParams: Clone {
    fn set_retry(&mut self, responses: Option<InputResponses>, state: Option<String>);
}

/// The response of a method that runs rounds: complete, or a round that asks.
trait RoundResponse: Sized {
    fn step(self) -> Step<Self>;
}

macro_rules! runs_rounds {
    ($params:ty, $response:ident) => {
        impl RetryParams for $params {
            fn set_retry(&mut self, responses: Option<InputResponses>, state: Option<String>) {
                self.input_responses = responses;
                self.request_state = state;
            }
        }

        impl RoundResponse for $response {
            fn step(self) -> Step<Self> {
                match self {
                    $response::InputRequired(asked) => Step::Ask(asked),
                    done => Step::Done(done),
                }
            }
        }
    };
}

runs_rounds!(CallToolRequestParams, CallToolResponse);
runs_rounds!(GetPromptRequestParams, GetPromptResponse);
runs_rounds!(ReadResourceRequestParams, ReadResourceResponse);

impl<H: ServerHandler> Legacy<H> {
    /// A legacy session's call: `call` (the wrapped handler's method) run
    /// round after round. The client's own retry fields are dropped.
    async fn rounds<P, R, F, Fut>(
        &self,
        mut params: P,
        cx: RequestContext<RoleServer>,
        call: F,
    ) -> Result<R, ErrorData>
    where
        P: RetryParams,
        R: RoundResponse,
        F: Fn(P, RequestContext<RoleServer>) -> Fut,
        Fut: Future<Output = Result<R, ErrorData>>,
    {
        params.set_retry(None, None);
        self.drive(&cx, |retry| {
            let mut params = params.clone();
            let mut cx = cx.clone();
            if let Some((responses, state)) = retry {
                params.set_retry(Some(responses), state);
                // This run's retry fields are this server's, not the
                // client's (whose own are dropped): the round may open them
                // without a 2026-07-28 `_meta`.
                cx.extensions.insert(LegacyRetry);
            }
            let run = call(params, cx);
            async move { run.await.map(RoundResponse::step) }
        })
        .await
    }
}

// ---- everything else goes to the wrapped handler -----------------------------------------

impl<H: ServerHandler> ServerHandler for Legacy<H> {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if from_legacy_session(&context) {
            self.rounds(request, context, |params, cx| {
                self.inner.call_tool(params, cx)
            })
            .await
        } else {
            self.inner.call_tool(request, context).await
        }
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if from_legacy_session(&context) {
            self.rounds(request, context, |params, cx| {
                self.inner.get_prompt(params, cx)
            })
            .await
        } else {
            self.inner.get_prompt(request, context).await
        }
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if from_legacy_session(&context) {
            self.rounds(request, context, |params, cx| {
                self.inner.read_resource(params, cx)
            })
            .await
        } else {
            self.inner.read_resource(request, context).await
        }
    }

    fn ping(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.ping(context)
    }

    fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<InitializeResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.initialize(request, context)
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        self.inner.negotiate_initialize(request)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }

    fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<DiscoverResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.discover(context)
    }

    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CompleteResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.complete(request, context)
    }

    fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.set_level(request, context)
    }

    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListPromptsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.list_prompts(request, context)
    }

    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourcesResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.list_resources(request, context)
    }

    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourceTemplatesResult, ErrorData>> + MaybeSendFuture + '_
    {
        self.inner.list_resource_templates(request, context)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.inner.accepted_subscription_filter(requested)
    }

    fn listen(
        &self,
        context: SubscriptionContext,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.listen(context)
    }

    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.subscribe(request, context)
    }

    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.unsubscribe(request, context)
    }

    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.list_tools(request, context)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.get_tool(name)
    }

    fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CustomResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.on_custom_request(request, context)
    }

    fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_cancelled(notification, context)
    }

    fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_progress(notification, context)
    }

    fn on_initialized(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_initialized(context)
    }

    fn on_roots_list_changed(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_roots_list_changed(context)
    }

    fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner.on_custom_notification(notification, context)
    }

    fn get_info(&self) -> ServerConfig {
        self.inner.get_info()
    }

    fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetTaskResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.get_task(request, context)
    }

    fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.update_task(request, context)
    }

    fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner.cancel_task(request, context)
    }

    fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListSkillsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.list_skills(request, context)
    }

    fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetSkillResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner.get_skill(request, context)
    }

    fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceDirectoryResult, ErrorData>> + MaybeSendFuture + '_
    {
        self.inner.read_resource_directory(request, context)
    }
}
