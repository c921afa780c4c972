//! What a server's tasks run under: which tools may run as tasks, the store,
//! and the limits.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::task::{TaskLimits, TaskStore};

/// Whether a tool runs as a task (the Tasks extension, SEP-2663), as the
/// server declares it with
/// [`McpServerBuilder::task_tool`](crate::rmcp::McpServerBuilder::task_tool).
/// A tool not declared never runs as a task. The extension puts no such
/// flag on the wire: the server decides per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// A task when the request declares the extension; otherwise the
    /// handler runs to its end in the call, and its asks inside the task
    /// become ordinary rounds.
    Optional,
    /// Only as a task: a request that does not declare the extension is
    /// refused before the handler runs (`-32021`, naming the capability; a
    /// `2025-11-25` session gets `-32601`, as that revision says).
    Required,
}

/// How long a task lives from its creation by default (its `ttlMs`): an hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);
/// How often a client is told to poll by default (`pollIntervalMs`).
pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_secs(1);
/// How long a run holds its task without renewing its lease, by default:
/// a task whose instance died is resumed on another past this time.
pub const DEFAULT_TASK_LEASE: Duration = Duration::from_secs(15);
/// How long a question parked on a task may wait for its answer by
/// default: an hour. An ask inside a task waits under this and the task's
/// TTL, not under the round TTL or the flow deadline of its `Policy`.
pub const DEFAULT_TASK_QUESTION_TIMEOUT: Duration = Duration::from_secs(3600);
/// The tasks one principal may hold by default (a task that has ended no
/// longer counts).
pub const DEFAULT_TASKS_PER_PRINCIPAL: usize = 64;
/// The tasks a store may hold by default, all principals together.
pub const DEFAULT_TASKS_TOTAL: usize = 4096;
/// The bytes one principal's tasks and remembered answers may take in the
/// store by default (4 MiB): its records, questions, answers and results.
pub const DEFAULT_TASK_BYTES_PER_PRINCIPAL: usize = 4 * 1024 * 1024;
/// The bytes a store may hold by default, all principals together
/// (64 MiB): the bound on a process's task memory with the memory store.
pub const DEFAULT_TASK_BYTES_TOTAL: usize = 64 * 1024 * 1024;
/// The most bytes of a call a task keeps by default: its arguments and the
/// two members of its `_meta` the runs read (the protocol version and the
/// client's capabilities), as JSON. A call over it is not made a task.
pub const DEFAULT_TASK_CALL_BYTES: usize = 64 * 1024;

/// What the creation hook is told of a task just created: its tool, its
/// id, its principal (`McpServerBuilder::build` wraps the user's hook, which
/// gets a `TaskCreated` with the server's inbox).
pub(crate) struct Created {
    pub(crate) tool: String,
    pub(crate) task_id: String,
    pub(crate) principal: Option<String>,
}

/// The hook [`Created`] goes to.
#[derive(Clone)]
pub(crate) struct CreatedHook(pub(crate) Arc<dyn Fn(Created) + Send + Sync>);

impl std::fmt::Debug for CreatedHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CreatedHook")
    }
}

/// The settings of a server's tasks.
#[derive(Debug, Clone)]
pub(crate) struct TaskSettings {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) tools: BTreeMap<String, TaskSupport>,
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
    pub(crate) lease: Duration,
    pub(crate) question_timeout: Duration,
    pub(crate) limits: TaskLimits,
    /// The most bytes of its call a task keeps.
    pub(crate) max_call_bytes: usize,
    /// Told of each task created.
    pub(crate) on_created: Option<CreatedHook>,
}

impl TaskSettings {
    pub(crate) fn new(store: Arc<dyn TaskStore>) -> Self {
        Self {
            store,
            tools: BTreeMap::new(),
            ttl: DEFAULT_TASK_TTL,
            poll_interval: DEFAULT_TASK_POLL_INTERVAL,
            lease: DEFAULT_TASK_LEASE,
            question_timeout: DEFAULT_TASK_QUESTION_TIMEOUT,
            limits: TaskLimits {
                per_principal: DEFAULT_TASKS_PER_PRINCIPAL,
                total: DEFAULT_TASKS_TOTAL,
                bytes_per_principal: DEFAULT_TASK_BYTES_PER_PRINCIPAL,
                bytes_total: DEFAULT_TASK_BYTES_TOTAL,
            },
            max_call_bytes: DEFAULT_TASK_CALL_BYTES,
            on_created: None,
        }
    }
}
