//! [`Legacy`], the wrapper, and its settings.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "server")]
use crate::rmcp::task::host::TaskHost;

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

/// A server handler that also serves `2025-11-25` and `2025-06-18` session
/// clients from the same multi-round tools.
///
/// Every method of [`ServerHandler`](::rmcp::ServerHandler) goes to the wrapped handler; `tools/call`,
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
/// What an old client cannot do (a capability it did not declare, no answer
/// within [`Legacy::with_answer_timeout`], an error for an answer, a cancel, a
/// closed session, an expired state, more than [`LEGACY_MAX_ROUNDS`] rounds)
/// ends the call with an error, never a hang; which error for each case:
/// [docs/LEGACY.md](https://docs.rs/crate/mrtr-guard/latest/source/docs/LEGACY.md),
/// "What an old client cannot do".
///
/// A decline or a cancel the *user* chooses is an answer like any other: it
/// reaches the handler as [`Reply::Declined`](crate::runtime::Reply) or
/// `Cancelled`, as it does today. An invalid answer is asked again with what
/// to correct (the runtime's re-ask), and after three the flow ends as a
/// tool error.
///
/// Requests go out one at a time, in key order: a client shows one dialog at
/// a time, and a failed one ends the call before the next is sent. Every
/// request of a round is checked before the first goes out, so a round the
/// session cannot take asks nothing.
///
/// **Which revision's forms.** A form goes out in the shape the session's
/// negotiated revision defines. A `2025-06-18` session gets titled options
/// as `enum` + `enumNames` and no `default` but on booleans; a form with a
/// multi-select, which that revision cannot express, ends the call before
/// anything is asked, with `-32603`, `data.reason`
/// `"form_needs_newer_revision"` and `data.field` naming the field. A
/// `2025-11-25` session gets the form as written.
///
/// **Which calls.** A request that carries no per-request `_meta` protocol
/// version, from a session that negotiated a version before `2026-07-28`.
/// `rmcp` 3.11's `StreamableHttpService` routes both kinds on one endpoint
/// when `legacy_session_mode` is on (its default) with a session manager such
/// as `LocalSessionManager`: an `initialize`, or a request naming a version
/// before `2026-07-28`, gets a session (`Mcp-Session-Id`); a request naming
/// `2026-07-28` in its `_meta` is served statelessly whatever the setting
/// (`rmcp` 3.11's `transport/streamable_http_server/tower.rs`,
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
pub struct Legacy<H> {
    inner: Arc<H>,
    answer_timeout: Duration,
    /// The task host, where `McpServer` mounts one: then tool calls of
    /// `2026-07-28` requests and `tasks/*` go through it.
    #[cfg(feature = "server")]
    tasks: Option<Arc<TaskHost>>,
}

impl<H> Clone for Legacy<H> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            answer_timeout: self.answer_timeout,
            #[cfg(feature = "server")]
            tasks: self.tasks.clone(),
        }
    }
}

impl<H> Legacy<H> {
    /// `inner`, with legacy sessions served, answers awaited for
    /// [`DEFAULT_ANSWER_TIMEOUT`].
    pub fn new(inner: H) -> Self {
        Self {
            inner: Arc::new(inner),
            answer_timeout: DEFAULT_ANSWER_TIMEOUT,
            #[cfg(feature = "server")]
            tasks: None,
        }
    }

    /// With `host` serving tasks and final rounds' remembered answers.
    #[cfg(feature = "server")]
    pub(crate) fn with_tasks(mut self, host: Arc<TaskHost>) -> Self {
        self.tasks = Some(host);
        self
    }

    /// The task host, if `McpServer` mounted one.
    #[cfg(feature = "server")]
    pub(crate) fn tasks(&self) -> Option<&Arc<TaskHost>> {
        self.tasks.as_ref()
    }

    /// The wrapped handler, shared (a task's run owns it).
    #[cfg(feature = "server")]
    pub(crate) fn shared_inner(&self) -> &Arc<H> {
        &self.inner
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
