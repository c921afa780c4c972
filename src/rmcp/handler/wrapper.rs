//! [`McpHandler`], the wrapper, and its settings.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::rmcp::legacy::{DEFAULT_ANSWER_TIMEOUT, LegacyRounds};
#[cfg(feature = "server")]
use crate::rmcp::task::host::TaskHost;

/// The handler every request of an [`McpServer`](crate::rmcp::McpServer)
/// goes through, around your `rmcp` server handler: it routes each request
/// to the path that serves it, so that one write-once handler serves them
/// all.
///
/// - A `tools/call`, `prompts/get` or `resources/read` from a `2025-11-25`
///   or `2025-06-18` session runs its rounds in process (the legacy rounds,
///   below).
/// - Where `McpServer` mounts a task host, a `2026-07-28` `tools/call` goes
///   through it (a tool declared with
///   [`task_tool`](crate::rmcp::McpServerBuilder::task_tool) may become a
///   task; a final round's answer is remembered for its retry), as do
///   `tasks/get`, `tasks/update` and `tasks/cancel`, and the Tasks extension
///   is advertised.
/// - A method the handler does not serve, or a call whose params `rmcp`
///   cannot parse, is answered with
///   [`custom_request_error`](crate::rmcp::custom_request_error).
/// - Every other request goes to your handler untouched.
///
/// **Clients of the session revisions.** A `2025-11-25` client initializes
/// a session and expects the server to *send* it `elicitation/create`,
/// `sampling/createMessage` and `roots/list` while its `tools/call` waits;
/// it knows no `input_required`. When a call from such a session comes back
/// `input_required`, each of its input requests goes out over the session as
/// a server-initiated request, and the handler is called again, in process,
/// with the answers and the round's sealed `requestState`, until it
/// completes.
///
/// *One code path for every check.* The re-run is the `2026-07-28` retry:
/// the state the round minted is opened again at once, so the answers are
/// checked by the same form and validator, against the same binding
/// (method, target, arguments, principal), within the same round cap, flow
/// deadline, answer budget and three-strikes rule, and `Round::once` effects
/// run once. The state never leaves the process; a `requestState` or
/// `inputResponses` the old client puts in its own `tools/call` is dropped,
/// so its flow always starts at round 1.
///
/// What an old client cannot do (a capability it did not declare, no answer
/// within [`McpHandler::with_answer_timeout`], an error for an answer, a
/// cancel, a closed session, an expired state, more than
/// [`LEGACY_MAX_ROUNDS`](crate::rmcp::LEGACY_MAX_ROUNDS) rounds) ends the call with an error, never a hang;
/// which error for each case:
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
/// *Which revision's forms.* A form goes out in the shape the session's
/// negotiated revision defines. A `2025-06-18` session gets titled options
/// as `enum` + `enumNames` and no `default` but on booleans; a form with a
/// multi-select, which that revision cannot express, ends the call before
/// anything is asked, with `-32603`, `data.reason`
/// `"form_needs_newer_revision"` and `data.field` naming the field. A
/// `2025-11-25` session gets the form as written.
///
/// *Which calls.* A request that carries no per-request `_meta` protocol
/// version, from a session that negotiated a version before `2026-07-28`.
/// `rmcp` 3.11's `StreamableHttpService` routes both kinds on one endpoint
/// when `legacy_session_mode` is on (its default) with a session manager such
/// as `LocalSessionManager`: an `initialize`, or a request naming a version
/// before `2026-07-28`, gets a session (`Mcp-Session-Id`); a request naming
/// `2026-07-28` in its `_meta` is served statelessly whatever the setting
/// (`rmcp` 3.11's `transport/streamable_http_server/tower.rs`,
/// `is_legacy_request` and `handle_post`).
///
/// `McpServer` builds it. Mounted on its own (no task host, no screen in
/// front), it serves the legacy rounds and the fixed custom-request error:
///
/// ```no_run
/// use std::sync::Arc;
/// use std::time::Duration;
///
/// use mrtr_guard::rmcp::McpHandler;
/// use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
/// use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
/// # #[derive(Clone)] struct MyServer;
/// # impl rmcp::ServerHandler for MyServer {}
///
/// let handler = McpHandler::new(MyServer).with_answer_timeout(Duration::from_secs(120));
/// let service = StreamableHttpService::new(
///     move || Ok(handler.clone()),
///     Arc::new(LocalSessionManager::default()),
///     StreamableHttpServerConfig::default(), // legacy_session_mode: true
/// );
/// # let _ = service;
/// ```
pub struct McpHandler<H> {
    inner: Arc<H>,
    /// How calls from `2025-11-25` sessions run their rounds.
    legacy: LegacyRounds,
    /// The task host, where `McpServer` mounts one: then tool calls of
    /// `2026-07-28` requests and `tasks/*` go through it.
    #[cfg(feature = "server")]
    tasks: Option<Arc<TaskHost>>,
}

impl<H> Clone for McpHandler<H> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            legacy: self.legacy,
            #[cfg(feature = "server")]
            tasks: self.tasks.clone(),
        }
    }
}

impl<H> McpHandler<H> {
    /// `inner`, with legacy sessions served, answers awaited for
    /// [`DEFAULT_ANSWER_TIMEOUT`].
    pub fn new(inner: H) -> Self {
        Self {
            inner: Arc::new(inner),
            legacy: LegacyRounds::new(DEFAULT_ANSWER_TIMEOUT),
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

    /// How long each server-initiated request of a legacy session waits for
    /// its answer. Keep it below the codec's round `ttl`: the round's state
    /// must still open when the answer comes.
    #[must_use]
    pub fn with_answer_timeout(mut self, timeout: Duration) -> Self {
        self.legacy = LegacyRounds::new(timeout);
        self
    }

    /// How calls from legacy sessions run their rounds.
    pub(super) fn legacy(&self) -> &LegacyRounds {
        &self.legacy
    }

    /// The wrapped handler.
    pub fn inner(&self) -> &H {
        &self.inner
    }

    /// How long each server-initiated request of a legacy session waits for
    /// its answer.
    pub fn answer_timeout(&self) -> Duration {
        self.legacy.answer_timeout()
    }
}

impl<H> fmt::Debug for McpHandler<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpHandler")
            .field("answer_timeout", &self.answer_timeout())
            .finish_non_exhaustive()
    }
}
