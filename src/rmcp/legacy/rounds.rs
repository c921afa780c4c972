//! A legacy session's call, run round after round: each `input_required`
//! fulfilled over the session and fed back to the wrapped handler as the
//! next run's retry fields.

use std::future::Future;
use std::time::Duration;

use ::rmcp::ErrorData;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelledNotificationParam, ClientResult,
    GetPromptRequestParams, GetPromptResponse, InputRequiredResult, InputResponses,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerRequest,
};
use ::rmcp::service::{PeerRequestOptions, RequestContext, RoleServer};

use super::error::{failure, reworded, service_failure};
use super::request::{missing_capabilities, server_request, session_capabilities};
use super::revision::{for_revision, session_revision};
use crate::handoff::LegacyRetry;
use crate::rmcp::error::error_data;
use crate::wire::RpcError;

/// How long a server-initiated request waits for the client's answer by
/// default: 5 minutes, half the default round `ttl` of
/// [`Policy`](crate::state::Policy), so an answer that arrives in time
/// finds its round's state still open. A person fills the form in that
/// time; set it with
/// [`McpHandler::with_answer_timeout`](crate::rmcp::McpHandler::with_answer_timeout)
/// (or `McpServerBuilder::legacy_answer_timeout`), below your codec's round
/// `ttl`.
pub const DEFAULT_ANSWER_TIMEOUT: Duration = Duration::from_secs(300);

/// The most rounds one legacy call runs. The state's round cap
/// ([`Policy::max_rounds`](crate::state::Policy::max_rounds)) ends a flow
/// of this crate first; this bounds a handler that keeps answering
/// `input_required` some other way.
pub const LEGACY_MAX_ROUNDS: usize = 32;

/// How a legacy session's calls run their rounds: each server-initiated
/// request waits up to the answer timeout.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LegacyRounds {
    answer_timeout: Duration,
}

/// Whether a request comes from a session that negotiated a revision before
/// `2026-07-28` and names no version of its own.
pub(crate) fn from_legacy_session(cx: &RequestContext<RoleServer>) -> bool {
    cx.meta.protocol_version().is_none()
        && cx
            .peer
            .peer_info()
            .is_some_and(|info| info.protocol_version < ProtocolVersion::V_2026_07_28)
}

/// One run of the wrapped handler: done, or a round that asks.
pub(crate) enum Step<T> {
    Done(T),
    Ask(InputRequiredResult),
}

/// The retry fields of the next run.
type Retry = Option<(InputResponses, Option<String>)>;

impl LegacyRounds {
    /// Rounds whose requests wait `answer_timeout` for their answers.
    pub(crate) fn new(answer_timeout: Duration) -> Self {
        Self { answer_timeout }
    }

    /// How long each server-initiated request waits for its answer.
    pub(crate) fn answer_timeout(&self) -> Duration {
        self.answer_timeout
    }

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
    /// collects the answers as `inputResponses`. Every request of the round
    /// is checked first (the session's capabilities, its revision's forms):
    /// a round the session cannot take ends the call before anything is
    /// asked.
    async fn fulfil(
        &self,
        asked: &InputRequiredResult,
        cx: &RequestContext<RoleServer>,
        round: usize,
    ) -> Result<InputResponses, ErrorData> {
        let capabilities = session_capabilities(cx);
        let revision = session_revision(cx);
        let mut responses = InputResponses::new();
        let Some(requests) = asked.input_requests.as_ref() else {
            return Ok(responses);
        };
        let mut checked = Vec::with_capacity(requests.len());
        for (key, request) in requests {
            let (method, request) = server_request(request, round)?;
            if let Some(required) = missing_capabilities(&request, &capabilities) {
                return Err(error_data(RpcError::missing_capability(&required)));
            }
            checked.push((key, method, for_revision(request, revision.as_ref())?));
        }
        for (key, method, request) in checked {
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
                PeerRequestOptions::with_timeout(self.answer_timeout()),
            )
            .await
            .map_err(|error| service_failure(method, &error, self.answer_timeout()))?;
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
                answer.map_err(|error| service_failure(method, &error, self.answer_timeout()))
            }
        }
    }
}

/// The params of a method that runs rounds: their retry fields.
pub(crate) trait RetryParams: Clone {
    fn set_retry(&mut self, responses: Option<InputResponses>, state: Option<String>);
}

/// The response of a method that runs rounds: complete, or a round that asks.
pub(crate) trait RoundResponse: Sized {
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

impl LegacyRounds {
    /// A legacy session's call: `call` (the wrapped handler's method) run
    /// round after round. The client's own retry fields are dropped.
    pub(crate) async fn rounds<P, R, F, Fut>(
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
