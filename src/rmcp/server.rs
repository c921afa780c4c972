//! [`McpServer`]: the one way to mount the runtime on `rmcp` (feature
//! `server`): `rmcp`'s stateless Streamable HTTP service behind
//! [`ScreenLayer`], with every check in place, refusing configurations that
//! cannot work.

use std::error::Error;
use std::fmt;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use ::rmcp::ServerHandler;
use ::rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use ::rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tower_layer::Layer;

use super::flow::RmcpFlow;
use super::handler::McpHandler;
use super::legacy::DEFAULT_ANSWER_TIMEOUT;
use super::session::{SessionBook, SessionLimits, Sessions};
use super::task::fleet::{self, Disagreement};
use super::task::host::TaskHost;
use super::task::settings::{Created, CreatedHook, TaskSettings, TaskSupport};
use super::task::{TaskCreated, TaskInbox, TaskPolls};
use crate::handoff::PrincipalFn;
use crate::json::Limits;
use crate::runtime::Flow;
use crate::task::{MemoryTaskStore, TaskStore};
use crate::tower::layer::ScreenLayer;
use crate::tower::service::{Authentication, Screen};

/// The service [`McpServerBuilder::build`] returns: mount it at your MCP
/// path, e.g. `axum::Router::new().route_service("/mcp", service)`.
pub type McpService<H> =
    Screen<Sessions<TaskPolls<StreamableHttpService<McpHandler<H>, LocalSessionManager>>>>;

/// How a server finds who is calling.
enum Auth {
    Unset,
    Anonymous,
    Principal(Arc<PrincipalFn>),
}

/// The one way to mount mrtr-guard on `rmcp`. [`McpServer::builder`] takes
/// the [`Flow`]; [`authenticate`](McpServerBuilder::authenticate) (or
/// [`anonymous`](McpServerBuilder::anonymous)) says who is calling;
/// [`build`](McpServerBuilder::build) hands your handler factory the
/// [`RmcpFlow`] to keep and returns the tower service: `rmcp`'s Streamable
/// HTTP service (JSON responses) serving your handler through
/// [`McpHandler`], stateless for 2026-07-28 clients and in sessions for
/// 2025-11-25 clients (turn those off with
/// [`legacy`](McpServerBuilder::legacy)), behind [`ScreenLayer`], which
///
/// - refuses bodies `rmcp` would misread (duplicate keys, `null` retry
///   fields, the object keys `serde_json` reserves, over 1 MiB or 32 levels
///   deep) and bodies that take over 10 s to arrive;
/// - refuses a retry (`requestState` or `inputResponses`) unless its
///   `MCP-Protocol-Version` header and its `_meta` both say 2026-07-28 and
///   its `Mcp-Method` and `Mcp-Name` headers say what its body says;
/// - finds who is calling once per request, whatever its method or HTTP
///   verb, through the [`authenticate`](McpServerBuilder::authenticate)
///   function, and hands the principal down to the sessions, the rounds and
///   the tasks; refuses a request without one with HTTP 401 when the codec
///   refuses anonymous states;
/// - keeps the raw arguments of each call, which [`RmcpFlow::round`] binds
///   the state to whatever the tool's extractors took;
/// - writes forms' fields in their declared order;
/// - answers a method the handler does not serve, and a call whose params
///   `rmcp` cannot parse, with [`custom_request_error`](super::custom_request_error)
///   (never echoing what the client sent): the handler needs no
///   `on_custom_request` for that.
///
/// ```no_run
/// use mrtr_guard::rmcp::{McpServer, RmcpFlow};
/// use mrtr_guard::{Flow, KeyRing, MasterKey, StateCodec};
/// # use rmcp::ServerHandler;
/// # #[derive(Clone)] struct MyServer { flow: RmcpFlow }
/// # impl ServerHandler for MyServer {}
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let key = MasterKey::from_base64(&std::env::var("MRTR_GUARD_KEY")?)?;
/// let codec = StateCodec::builder("https://tools.example.com/mcp", KeyRing::new(key)).build()?;
/// let service = McpServer::builder(Flow::new(codec))
///     .authenticate(|parts| parts.extensions.get::<String>().cloned())
///     .build(|flow| MyServer { flow })?;
/// // axum::Router::new().route_service("/mcp", service)
/// # let _ = service;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct McpServer;

impl McpServer {
    /// A builder over `flow`.
    pub fn builder(flow: Flow) -> McpServerBuilder {
        McpServerBuilder {
            flow,
            auth: Auth::Unset,
            limits: Limits::default(),
            read_timeout: Duration::from_secs(10),
            max_response_bytes: 4 * 1024 * 1024,
            legacy: Some(DEFAULT_ANSWER_TIMEOUT),
            sessions: SessionLimits {
                per_principal: DEFAULT_SESSIONS_PER_PRINCIPAL,
                total: DEFAULT_SESSIONS_TOTAL,
                idle: DEFAULT_SESSION_IDLE,
                calls_per_principal: DEFAULT_CALLS_PER_PRINCIPAL,
                calls_total: DEFAULT_CALLS_TOTAL,
            },
            tasks: TaskSettings::new(Arc::new(MemoryTaskStore::new())),
            on_task_created: None,
        }
    }
}

/// The `2025-11-25` sessions one principal may hold open by default.
pub const DEFAULT_SESSIONS_PER_PRINCIPAL: usize = 16;
/// The `2025-11-25` sessions a server holds open by default, all principals
/// together (each about 50 KB of memory in `rmcp`).
pub const DEFAULT_SESSIONS_TOTAL: usize = 1024;
/// How long a `2025-11-25` session lives without a request, by default.
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(300);
/// The calls one principal may have in flight on its `2025-11-25` sessions
/// by default (each may be waiting for its client's answer).
pub const DEFAULT_CALLS_PER_PRINCIPAL: usize = 16;
/// The calls in flight on all `2025-11-25` sessions together, by default
/// (one waiting for an answer holds about 32 KB).
pub const DEFAULT_CALLS_TOTAL: usize = 512;

/// The settings of an [`McpServer`]; see there.
pub struct McpServerBuilder {
    flow: Flow,
    auth: Auth,
    limits: Limits,
    read_timeout: Duration,
    max_response_bytes: usize,
    legacy: Option<Duration>,
    sessions: SessionLimits,
    tasks: TaskSettings,
    on_task_created: Option<Arc<dyn Fn(TaskCreated) + Send + Sync>>,
}

impl McpServerBuilder {
    /// Declares that the tool `name` may run as a task (the Tasks extension,
    /// SEP-2663; [`TaskSupport`] says when): the extension is then
    /// advertised, and the tool's handler marks where its task begins with
    /// [`Round::task`](crate::Round::task). A tool not declared never runs
    /// as a task (a `Round::task` in its handler is an internal error naming
    /// the mistake).
    #[must_use]
    pub fn task_tool(mut self, name: impl Into<String>, support: TaskSupport) -> Self {
        self.tasks.tools.insert(name.into(), support);
        self
    }

    /// Tells `hook` of each task the server creates (the tool, the task's
    /// id, its principal, and the server's [`TaskInbox`](crate::rmcp::TaskInbox)), once the store
    /// has it and before its first run starts: code outside the handler (a
    /// worker) attaches to the right task there. The hook runs on the
    /// request's task: keep it short (spawn what waits).
    ///
    /// ```no_run
    /// # use mrtr_guard::rmcp::{McpServerBuilder, TaskCreated};
    /// # fn wire(builder: McpServerBuilder, approval: std::sync::Arc<mrtr_guard::Form>) -> McpServerBuilder {
    /// builder.on_task_created(move |task: TaskCreated| {
    ///     if task.tool() != "migrate_records" {
    ///         return;
    ///     }
    ///     let approval = approval.clone();
    ///     tokio::spawn(async move {
    ///         let reply = task.inbox().ask(task.task_id(), Some("approval"), &approval).await;
    ///         // ...
    /// #       let _ = reply;
    ///     });
    /// })
    /// # }
    /// ```
    #[must_use]
    pub fn on_task_created(mut self, hook: impl Fn(TaskCreated) + Send + Sync + 'static) -> Self {
        self.on_task_created = Some(Arc::new(hook));
        self
    }

    /// Checks this instance against the others sharing the task store:
    /// the store keeps a fleet record (the audience, the mode, the id of
    /// the key they seal with; no secret), and an instance whose audience
    /// or mode differs, or whose key ring lacks that key, is refused
    /// naming the setting; one that agrees records its own. Call it at
    /// start-up, before serving (the server also checks before its first
    /// task, and refuses tasks when it disagrees).
    ///
    /// # Errors
    ///
    /// [`ServerConfigError::FleetAudience`], [`FleetMode`](ServerConfigError::FleetMode),
    /// [`FleetKey`](ServerConfigError::FleetKey), [`FleetUnreadable`](ServerConfigError::FleetUnreadable)
    /// or [`FleetUnavailable`](ServerConfigError::FleetUnavailable).
    pub async fn check_fleet(&self) -> Result<(), ServerConfigError> {
        fleet::agree(&*self.tasks.store, self.flow.codec())
            .await
            .map_err(ServerConfigError::from)
    }

    /// Where tasks, and the answers of final rounds, are kept: every
    /// instance of a server needs the same store (feature `redis`:
    /// `mrtr_guard::redis::RedisTaskStore`). By default a
    /// [`MemoryTaskStore`], for one instance.
    #[must_use]
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks.store = store;
        self
    }

    /// The caps on tasks: at most `per_principal` for one principal and
    /// `total` in the store ([`DEFAULT_TASKS_PER_PRINCIPAL`](super::DEFAULT_TASKS_PER_PRINCIPAL),
    /// [`DEFAULT_TASKS_TOTAL`](super::DEFAULT_TASKS_TOTAL)); a task that has ended no longer counts. A call
    /// that would create one more is refused with HTTP 429, `Retry-After`
    /// (the poll interval) and `-32000`
    /// ([`RpcError::tasks_at_capacity`](crate::RpcError::tasks_at_capacity)).
    #[must_use]
    pub fn task_limits(mut self, per_principal: usize, total: usize) -> Self {
        self.tasks.limits.per_principal = per_principal;
        self.tasks.limits.total = total;
        self
    }

    /// The byte budgets of what the task store holds: at most
    /// `per_principal` bytes for one principal's tasks and remembered
    /// answers, `total` in the store
    /// ([`DEFAULT_TASK_BYTES_PER_PRINCIPAL`](super::DEFAULT_TASK_BYTES_PER_PRINCIPAL),
    /// [`DEFAULT_TASK_BYTES_TOTAL`](super::DEFAULT_TASK_BYTES_TOTAL)). A
    /// task is charged its sealed record (with its result once it ends, until its TTL) plus
    /// [`ENTRY_BYTES`](crate::task::ENTRY_BYTES). A call that would create
    /// a task past one, or an answer that would grow one past it, is
    /// refused with HTTP 429, `Retry-After` and `-32000`
    /// ([`RpcError::tasks_over_budget`](crate::RpcError::tasks_over_budget));
    /// a result or question past it fails its task, saying so. The budget
    /// of one principal must hold at least one call of
    /// [`task_call_bytes`](Self::task_call_bytes), or `build` refuses it.
    #[must_use]
    pub fn task_budget(mut self, per_principal: usize, total: usize) -> Self {
        self.tasks.limits.bytes_per_principal = per_principal;
        self.tasks.limits.bytes_total = total;
        self
    }

    /// The most bytes of its call a task keeps: the arguments and the two
    /// members of its `_meta` its runs read (the protocol version and the
    /// client's capabilities; nothing else of `_meta` is kept), as JSON
    /// ([`DEFAULT_TASK_CALL_BYTES`](super::DEFAULT_TASK_CALL_BYTES)). A
    /// call over it is refused when it would become a task (`-32602`), so a
    /// client cannot make each task it holds cost the whole body limit.
    #[must_use]
    pub fn task_call_bytes(mut self, max: usize) -> Self {
        self.tasks.max_call_bytes = max;
        self
    }

    /// How long a task lives from its creation, whatever its status
    /// ([`DEFAULT_TASK_TTL`](super::DEFAULT_TASK_TTL)): the task's `ttlMs`. A task still running when
    /// it ends is failed; the store forgets it then.
    #[must_use]
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.tasks.ttl = ttl;
        self
    }

    /// How long a run holds its task without renewing its lease
    /// ([`DEFAULT_TASK_LEASE`](super::DEFAULT_TASK_LEASE)): a task whose
    /// instance died is resumed past this time, from its journal, by the
    /// next `tasks/get` or `tasks/update` on any instance, or by an
    /// instance's sweep (which looks every third of the lease).
    #[must_use]
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.tasks.lease = lease;
        self
    }

    /// How long a question parked on a task waits for its answer
    /// ([`DEFAULT_TASK_QUESTION_TIMEOUT`](super::DEFAULT_TASK_QUESTION_TIMEOUT)):
    /// past it, the task fails saying so. Asks inside a task wait under this
    /// and the task's TTL only, not under the round TTL or flow deadline of
    /// the codec's `Policy`: hours, if the task's TTL allows them.
    #[must_use]
    pub fn task_question_timeout(mut self, timeout: Duration) -> Self {
        self.tasks.question_timeout = timeout;
        self
    }

    /// The polling interval clients are told (`pollIntervalMs`,
    /// [`DEFAULT_TASK_POLL_INTERVAL`](super::DEFAULT_TASK_POLL_INTERVAL)).
    #[must_use]
    pub fn task_poll_interval(mut self, interval: Duration) -> Self {
        self.tasks.poll_interval = interval;
        self
    }

    /// Whether `2025-11-25` session clients are served (on by default):
    /// `rmcp` gives them a session in this process's memory, and their
    /// rounds run by sending them the input requests ([`McpHandler`]). Off,
    /// only `2026-07-28` requests (stateless) are served.
    #[must_use]
    pub fn legacy(mut self, on: bool) -> Self {
        self.legacy = on.then_some(self.legacy.unwrap_or(DEFAULT_ANSWER_TIMEOUT));
        self
    }

    /// How long a legacy session client has to answer one input request
    /// ([`McpHandler::with_answer_timeout`]).
    #[must_use]
    pub fn legacy_answer_timeout(mut self, timeout: Duration) -> Self {
        if self.legacy.is_some() {
            self.legacy = Some(timeout);
        }
        self
    }

    /// The caps on `2025-11-25` sessions: at most `per_principal` open for
    /// one principal and `total` for the server
    /// ([`DEFAULT_SESSIONS_PER_PRINCIPAL`], [`DEFAULT_SESSIONS_TOTAL`]). An
    /// `initialize` past a cap is refused with HTTP 429 and `Retry-After`
    /// ([`RpcError::capacity_reached`](crate::RpcError::capacity_reached));
    /// the principal's other sessions, and everyone else's, are served on.
    #[must_use]
    pub fn max_sessions(mut self, per_principal: usize, total: usize) -> Self {
        self.sessions.per_principal = per_principal;
        self.sessions.total = total;
        self
    }

    /// The caps on calls in flight on `2025-11-25` sessions (each may wait
    /// for its client's answer up to the
    /// [answer timeout](Self::legacy_answer_timeout)): at most
    /// `per_principal` for one principal and `total` for the server
    /// ([`DEFAULT_CALLS_PER_PRINCIPAL`], [`DEFAULT_CALLS_TOTAL`]). A call past
    /// a cap is refused with HTTP 429 and `Retry-After`. A call whose client
    /// closes its stream is cancelled at once.
    #[must_use]
    pub fn max_calls_in_flight(mut self, per_principal: usize, total: usize) -> Self {
        self.sessions.calls_per_principal = per_principal;
        self.sessions.calls_total = total;
        self
    }

    /// How long a `2025-11-25` session lives without a request before it is
    /// closed ([`DEFAULT_SESSION_IDLE`]).
    #[must_use]
    pub fn session_idle_timeout(mut self, idle: Duration) -> Self {
        self.sessions.idle = idle;
        self
    }

    /// Who is calling: the principal from the request's HTTP parts (headers,
    /// and extensions an authentication layer inserted); `None` when the
    /// request carries none.
    ///
    /// <div class="warning">The principal must come from real
    /// authentication (a verified OAuth token's subject, a session). A value
    /// the client states about itself binds the state to nothing.</div>
    #[must_use]
    pub fn authenticate(
        mut self,
        principal: impl Fn(&http::request::Parts) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.auth = Auth::Principal(Arc::new(principal));
        self
    }

    /// No authentication: every call is anonymous. The codec must be built
    /// with [`allow_anonymous`](crate::state::CodecBuilder::allow_anonymous).
    #[must_use]
    pub fn anonymous(mut self) -> Self {
        self.auth = Auth::Anonymous;
        self
    }

    /// The request body caps (1 MiB, depth 32 by default).
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The longest a request body may take to arrive (10 s by default).
    #[must_use]
    pub fn read_timeout(mut self, limit: Duration) -> Self {
        self.read_timeout = limit;
        self
    }

    /// The most bytes of a JSON response buffered to write forms' fields in
    /// order (4 MiB by default).
    #[must_use]
    pub fn max_response_bytes(mut self, max: usize) -> Self {
        self.max_response_bytes = max;
        self
    }

    /// Checks the settings, hands `handler` the [`RmcpFlow`] its tools open
    /// rounds with, and returns the service to mount. `rmcp` clones the
    /// handler for each request.
    ///
    /// # Errors
    ///
    /// A [`ServerConfigError`] saying what to change.
    pub fn build<H, F>(self, handler: F) -> Result<McpService<H>, ServerConfigError>
    where
        H: ServerHandler + Clone + Send + Sync + 'static,
        F: FnOnce(RmcpFlow) -> H,
    {
        let codec = self.flow.codec();
        if codec.has_all_zero_key() {
            return Err(ServerConfigError::AllZeroKey);
        }
        if self.read_timeout.is_zero()
            || self.max_response_bytes == 0
            || self.legacy.is_some_and(|timeout| timeout.is_zero())
            || self.sessions.per_principal == 0
            || self.sessions.total == 0
            || self.sessions.idle.is_zero()
            || self.sessions.calls_per_principal == 0
            || self.sessions.calls_total == 0
            || self.tasks.limits.per_principal == 0
            || self.tasks.limits.total == 0
            || self.tasks.max_call_bytes == 0
            || self.tasks.ttl.is_zero()
            || self.tasks.question_timeout.is_zero()
            || self.tasks.lease < Duration::from_secs(1)
            || self.tasks.poll_interval.is_zero()
        {
            return Err(ServerConfigError::ZeroLimit);
        }
        let limits = self.tasks.limits;
        if limits.bytes_per_principal.min(limits.bytes_total) < self.tasks.max_call_bytes {
            return Err(ServerConfigError::TaskBudgetBelowCall);
        }
        let anonymous_codec = codec.allows_anonymous();
        let mut layer = ScreenLayer::new()
            .with_limits(self.limits)
            .with_read_timeout(self.read_timeout)
            .with_max_response_bytes(self.max_response_bytes);
        let flow = match self.auth {
            Auth::Unset if anonymous_codec => RmcpFlow::anonymous(self.flow),
            Auth::Unset => return Err(ServerConfigError::NoAuthentication),
            Auth::Anonymous if !anonymous_codec => {
                return Err(ServerConfigError::AnonymousCodecRequired);
            }
            Auth::Anonymous => RmcpFlow::anonymous(self.flow),
            Auth::Principal(find) => {
                // The screen finds every request's principal, once, and
                // hands it down. Where the codec needs one, a request
                // without one is refused; over an anonymous codec it is
                // served as the anonymous principal.
                layer = layer.with_authentication(Authentication {
                    find: Arc::clone(&find),
                    required: !anonymous_codec,
                });
                RmcpFlow::from_shared(self.flow, find)
            }
        };
        // Sessions belong to their principal where every request has one
        // (past the match, a codec that refuses anonymous states has an
        // authentication function).
        let bound_sessions = !anonymous_codec;
        // The user's hook gets the server's inbox: over the host, made
        // just below, which the hook reaches through this slot.
        let served: Arc<OnceLock<Weak<TaskHost>>> = Arc::default();
        let mut tasks = self.tasks;
        if let Some(hook) = self.on_task_created {
            let served = Arc::clone(&served);
            tasks.on_created = Some(CreatedHook(Arc::new(move |created: Created| {
                if let Some(host) = served.get().and_then(Weak::upgrade) {
                    hook(TaskCreated {
                        tool: created.tool,
                        task_id: created.task_id,
                        principal: created.principal,
                        inbox: TaskInbox::of(host),
                    });
                }
            })));
        }
        let host = Arc::new(TaskHost::new(tasks, flow.shared_flow()));
        let _ = served.set(Arc::downgrade(&host));
        let flow = flow.with_task_host(Arc::clone(&host));
        let handler = McpHandler::new(handler(flow))
            .with_answer_timeout(self.legacy.unwrap_or(DEFAULT_ANSWER_TIMEOUT))
            .with_tasks(Arc::clone(&host));
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(self.legacy.is_some())
            .with_json_response(true);
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(self.sessions.idle);
        let manager = Arc::new(manager);
        let book = Arc::new(SessionBook::new(Arc::clone(&manager), self.sessions));
        // A plain `tasks/get` is answered from the head in front of rmcp,
        // after the checks rmcp would make (its allowed Host values among them).
        let allowed_hosts = config.allowed_hosts.clone();
        let service = StreamableHttpService::new(move || Ok(handler.clone()), manager, config);
        let service = TaskPolls::new(service, host, allowed_hosts);
        Ok(layer.layer(Sessions::new(service, book, bound_sessions)))
    }
}

impl fmt::Debug for McpServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServerBuilder")
            .field("flow", &self.flow)
            .field("limits", &self.limits)
            .field("read_timeout", &self.read_timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("legacy", &self.legacy)
            .field("sessions", &self.sessions)
            .finish_non_exhaustive()
    }
}

/// Why [`McpServerBuilder::build`] refused a configuration that cannot work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerConfigError {
    /// No authentication, and the codec refuses anonymous states: every
    /// call would fail.
    NoAuthentication,
    /// [`anonymous`](McpServerBuilder::anonymous) over a codec that refuses
    /// anonymous states.
    AnonymousCodecRequired,
    /// A master key of the codec is all zero bytes: a placeholder.
    AllZeroKey,
    /// A zero read timeout, response cap, session cap, idle timeout, task
    /// cap, task call budget, task TTL or poll interval, or a task lease
    /// under a second:
    /// every request (or every session, or task) would fail.
    ZeroLimit,
    /// A task byte budget smaller than the call a task may keep
    /// ([`task_call_bytes`](McpServerBuilder::task_call_bytes)): the calls
    /// it allows could never become tasks.
    TaskBudgetBelowCall,
    /// The instances sharing the task store use another audience
    /// ([`check_fleet`](McpServerBuilder::check_fleet)): a task created on
    /// one would fail when answered on this one.
    FleetAudience,
    /// The instances sharing the task store use another `Mode` (sealed or
    /// signed).
    FleetMode,
    /// This codec's key ring lacks the key the instances sharing the task
    /// store seal with.
    FleetKey,
    /// The task store's fleet record is not one this crate writes.
    FleetUnreadable,
    /// The task store failed while its fleet record was read or written.
    FleetUnavailable,
}

impl fmt::Display for ServerConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NoAuthentication => {
                "no authentication: call .authenticate(|parts| ...) with the function that \
                 finds the caller's principal, or build the codec with allow_anonymous() \
                 for tools that need none"
            }
            Self::AnonymousCodecRequired => {
                "anonymous() needs a codec built with allow_anonymous(); or call \
                 .authenticate(|parts| ...) instead"
            }
            Self::AllZeroKey => {
                "a master key is all zero bytes: generate one (mrtr-guard keygen, or \
                 openssl rand -base64 32) and load it with MasterKey::from_base64"
            }
            Self::ZeroLimit => {
                "a limit is zero, so every request, session or task would fail; give \
                 read_timeout, max_response_bytes, legacy_answer_timeout, max_sessions, \
                 max_calls_in_flight, session_idle_timeout, task_limits, task_call_bytes, task_ttl and \
                 task_poll_interval values above zero and task_lease one of a second or more, \
                 or leave their defaults"
            }
            Self::TaskBudgetBelowCall => {
                "a task byte budget (task_budget) is smaller than the call a task may keep \
                 (task_call_bytes): raise the budget, or lower task_call_bytes"
            }
            Self::FleetAudience => Disagreement::Audience.message(),
            Self::FleetMode => Disagreement::Mode.message(),
            Self::FleetKey => Disagreement::Key.message(),
            Self::FleetUnreadable => Disagreement::Unreadable.message(),
            Self::FleetUnavailable => Disagreement::Unavailable.message(),
        })
    }
}

impl Error for ServerConfigError {}

impl From<Disagreement> for ServerConfigError {
    fn from(disagreement: Disagreement) -> Self {
        match disagreement {
            Disagreement::Audience => Self::FleetAudience,
            Disagreement::Mode => Self::FleetMode,
            Disagreement::Key => Self::FleetKey,
            Disagreement::Unreadable => Self::FleetUnreadable,
            Disagreement::Unavailable => Self::FleetUnavailable,
        }
    }
}
