//! What one layer of the mount derives from a request and hands down to the
//! layers after it, each value derived once and read as its type.
//!
//! `rmcp` hands a handler the HTTP request's parts
//! ([`http::request::Parts`]) and nothing else of the request, so the
//! mount's layers hand each other these values in the parts' extensions;
//! each is defined here, once, with the one function that reads it:
//!
//! - [`Principal`]: who is calling, derived by the screen (`tower`) through
//!   the server's [`PrincipalFn`] ([`authenticate`] is the one place that
//!   calls it and the one place a missing principal is refused and logged),
//!   read by the sessions layer, the round and the task host;
//! - [`RawArguments`]: the call's `arguments` as the client sent them, which
//!   a round's state is bound to: kept by the screen from the body, or by
//!   the task host from the task's stored call;
//! - [`CallId`]: the JSON-RPC id of a call that may wait for its client,
//!   kept by the screen for the sessions layer, which counts and cancels
//!   such calls;
//! - [`TaskOffer`] and [`ReplayNoted`]: what the task host tells a tool's
//!   round (may it become a task?) and what the round tells it back (was
//!   its state a replay?);
//! - [`AtCapacity`]: a call the adapter refused at a cap (a task it could
//!   not create), which the screen answers with HTTP 429 and `Retry-After`
//!   around the adapter's JSON-RPC error;
//! - [`TaskStart`]: a round that ends as a task, as the tool's response
//!   hands it to the task host;
//! - [`LegacyRetry`]: a run whose retry fields the legacy rounds made from
//!   answers collected over a `2025-11-25` session.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::runtime::{Call, TaskPhase, TaskRun};
use crate::wire::{Method, RpcError};

/// Derives the principal from a request's HTTP parts (headers, and
/// extensions an authentication layer inserted). `None` means anonymous.
#[cfg_attr(
    not(feature = "rmcp"),
    expect(unreachable_pub, reason = "re-exported by the rmcp adapter")
)]
pub type PrincipalFn = dyn Fn(&http::request::Parts) -> Option<String> + Send + Sync;

/// Who is calling, as the mount derived it once for the request: `None`
/// for anonymous.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Principal(Option<Arc<str>>);

impl Principal {
    /// The principal the mount derived for the request, if it derived one.
    pub(crate) fn of(parts: &http::request::Parts) -> Option<&Self> {
        parts.extensions.get::<Self>()
    }

    /// The principal `name` (`None`: anonymous), as a task's record keeps
    /// its owner: for a run no request carries (the sweep's).
    #[cfg(feature = "server")]
    pub(crate) fn named(name: Option<&str>) -> Self {
        Self(name.map(Arc::from))
    }

    /// The principal's text; `None` for anonymous.
    pub(crate) fn as_deref(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// Finds who is calling through `find`, once: an empty principal is none,
/// and so is a request without HTTP parts (stdio). A request without one
/// is refused (logged here, the one place) when `required`.
///
/// # Errors
///
/// [`RpcError::unauthenticated`] (HTTP 401) when `required` and `find`
/// finds no principal.
pub(crate) fn authenticate(
    find: &PrincipalFn,
    parts: Option<&http::request::Parts>,
    required: bool,
) -> Result<Principal, RpcError> {
    match parts
        .and_then(find)
        .filter(|principal| !principal.is_empty())
    {
        Some(principal) => Ok(Principal(Some(Arc::from(principal)))),
        None if required => {
            log_unauthenticated(parts.map(|parts| &parts.method));
            Err(RpcError::unauthenticated())
        }
        None => Ok(Principal(None)),
    }
}

/// The raw `arguments` object of a `tools/call` or `prompts/get`, as the
/// client sent it, with the method and name it came with: what the round
/// binds its state to whatever the tool's extractors took. The screen keeps
/// it from the body; the task host from the task's stored call.
#[derive(Debug, Clone)]
pub(crate) struct RawArguments {
    method: Method,
    target: String,
    /// Shared: `rmcp` copies the request's extensions into each handler's
    /// context, and the `ToolCall` extractor copies the context.
    arguments: Option<Arc<Map<String, Value>>>,
}

impl RawArguments {
    /// The arguments of a call of `method` on `target`.
    pub(crate) fn new(
        method: Method,
        target: String,
        arguments: Option<Map<String, Value>>,
    ) -> Self {
        Self {
            method,
            target,
            arguments: arguments.map(Arc::new),
        }
    }

    /// The raw arguments kept for the request's call of `method` on
    /// `target`: `Some(None)` for a call that carried none, `None` when none
    /// were kept for that call.
    pub(crate) fn of<'p>(
        parts: &'p http::request::Parts,
        method: Method,
        target: &str,
    ) -> Option<Option<&'p Map<String, Value>>> {
        let kept = parts.extensions.get::<Self>()?;
        (kept.method == method && kept.target == target).then_some(kept.arguments.as_deref())
    }

    /// Whether raw arguments were kept for the request, for whichever call.
    #[cfg(feature = "rmcp")]
    pub(crate) fn kept(parts: &http::request::Parts) -> bool {
        parts.extensions.get::<Self>().is_some()
    }
}

/// The JSON-RPC id of a screened `tools/call`, `prompts/get` or
/// `resources/read` (the requests that may wait for their client).
#[derive(Debug, Clone)]
pub(crate) struct CallId(Value);

impl CallId {
    /// The id `id`.
    pub(crate) fn new(id: Value) -> Self {
        Self(id)
    }

    /// The id.
    pub(crate) fn id(&self) -> &Value {
        &self.0
    }
}

/// The call's [`TaskPhase`], as the task host decided it, and inside a
/// task the [`TaskRun`].
#[derive(Debug, Clone)]
pub(crate) enum TaskOffer {
    /// Not inside a task: the phase.
    Phase(TaskPhase),
    /// A run inside this task.
    Inside(TaskRun),
}

impl TaskOffer {
    /// `call` with the phase (and the run) the host set on `parts`, if any
    /// (none: the call runs to its end in the call).
    pub(crate) fn apply(call: Call, parts: Option<&http::request::Parts>) -> Call {
        match parts.and_then(|parts| parts.extensions.get::<Self>()) {
            None => call,
            Some(Self::Phase(phase)) => call.with_task_phase(*phase),
            Some(Self::Inside(run)) => call.with_task_run(run.clone()),
        }
    }
}

/// Set when the call's state opened for its caller and call but was refused
/// as already used: the host may then answer with what the first use
/// answered.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReplayNoted(Arc<AtomicBool>);

impl ReplayNoted {
    /// Tells the host, if it listens on `parts`, that the call's state was a
    /// replay.
    pub(crate) fn note(parts: Option<&http::request::Parts>) {
        if let Some(noted) = parts.and_then(|parts| parts.extensions.get::<Self>()) {
            noted.0.store(true, Ordering::Release);
        }
    }

    /// Whether the round noted a replay.
    pub(crate) fn is_noted(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// A round that ends as a task ([`RoundEnd::Task`](crate::runtime::RoundEnd)),
/// as the tool's response hands it to the task host (which offered the task,
/// and alone reads it): the state the task's first run opens.
///
/// `rmcp` lets a tool return only its own response type, so a task start
/// travels as the one response the runtime never makes otherwise: an
/// input-required result that asks nothing. [`into_response`](Self::into_response)
/// and [`from_response`](Self::from_response) are that encoding, the only
/// two places that know it.
#[cfg(feature = "rmcp")]
#[derive(Debug)]
pub(crate) struct TaskStart(pub(crate) String);

#[cfg(feature = "rmcp")]
impl TaskStart {
    /// The task start as the tool's response.
    pub(crate) fn into_response(self) -> ::rmcp::model::CallToolResponse {
        ::rmcp::model::CallToolResponse::InputRequired(::rmcp::model::InputRequiredResult::new(
            None,
            Some(self.0),
        ))
    }

    /// The task start a tool's response carries, if it is one.
    pub(crate) fn from_response(response: &::rmcp::model::CallToolResponse) -> Option<Self> {
        match response {
            ::rmcp::model::CallToolResponse::InputRequired(asked)
                if asked
                    .input_requests
                    .as_ref()
                    .is_none_or(|asks| asks.is_empty()) =>
            {
                asked.request_state.clone().map(Self)
            }
            _ => None,
        }
    }
}

/// A call refused at a cap by the layers behind the screen: `rmcp` answers
/// an error from a handler with HTTP 200, so the screen, which put this
/// slot in the call's parts, answers 429 with `Retry-After` (seconds) when
/// the slot is set. Nothing the client or a tool's output can write sets it.
#[derive(Debug, Clone, Default)]
pub(crate) struct AtCapacity(Arc<OnceLock<u64>>);

impl AtCapacity {
    /// Tells the screen, if it listens on `parts`, to answer 429 and
    /// `Retry-After: retry_after_secs`.
    pub(crate) fn note(parts: Option<&http::request::Parts>, retry_after_secs: u64) {
        if let Some(slot) = parts.and_then(|parts| parts.extensions.get::<Self>()) {
            let _ = slot.0.set(retry_after_secs);
        }
    }

    /// The `Retry-After` to answer with, if a layer behind noted a cap.
    pub(crate) fn retry_after(&self) -> Option<u64> {
        self.0.get().copied()
    }
}

/// Marks a run whose retry fields the legacy rounds made from the answers
/// they collected over a session: the round may open them without a
/// `2026-07-28` `_meta`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LegacyRetry;

#[cfg(feature = "tracing")]
fn log_unauthenticated(method: Option<&http::Method>) {
    tracing::warn!(
        name: "unauthenticated_request", target: "mrtr_guard::rmcp",
        http_method = ?method,
        "a request without a principal reached a server that authenticates: refused as \
         unauthenticated (HTTP 401; check the principal function)"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_unauthenticated(_: Option<&http::Method>) {}
