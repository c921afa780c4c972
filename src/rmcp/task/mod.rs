//! The task host (the Tasks extension, SEP-2663): a tool call that runs on
//! after the call returns, written with the same handler as every other
//! path. A task runs the handler again, inside the task, with the state and
//! answers its record holds, on whichever instance took the step that
//! resumed it: the checks of every answer are the round's, as on the
//! stateless and the legacy paths.
//!
//! The files: `settings` (which tools run as tasks, the store, the limits,
//! the defaults), `host` (the host: who may see a task, the one way a task
//! changes), `call` (a `tools/call` through the host: the `-32021` gate, a
//! task created, a final round's answer remembered), `run` (a task's run
//! and its lease), `journal` (where a run's steps are recorded), `methods`
//! (`tasks/get`, `tasks/update`, `tasks/cancel`, and resuming a task whose
//! run was lost), `polls` ([`TaskPolls`]: a plain `tasks/get` answered
//! from the head in front of `rmcp`), `sweep` (resuming such a task when nobody polls it),
//! `view` (a task as the client sees it), `inbox`
//! ([`TaskInbox`]: asking a task's client from outside its handler),
//! `created` ([`TaskCreated`]: what the creation hook is told), `fleet`
//! (what the instances sharing a store must agree on, checked before
//! tasks are served).

#[cfg(feature = "server")]
mod call;
#[cfg(feature = "server")]
mod created;
#[cfg(feature = "server")]
pub(crate) mod fleet;
#[cfg(feature = "server")]
pub(crate) mod host;
#[cfg(feature = "server")]
mod inbox;
#[cfg(feature = "server")]
mod journal;
#[cfg(feature = "server")]
mod methods;
#[cfg(feature = "server")]
mod polls;
#[cfg(feature = "server")]
mod run;
#[cfg(feature = "server")]
pub(crate) mod settings;
#[cfg(feature = "server")]
mod sweep;
#[cfg(feature = "server")]
mod view;

#[cfg(feature = "server")]
pub use call::MAX_REMEMBERED_ANSWER;
#[cfg(feature = "server")]
pub use created::TaskCreated;
#[cfg(feature = "server")]
pub use inbox::{TaskAskError, TaskInbox};
#[cfg(feature = "server")]
pub use polls::TaskPolls;
#[cfg(feature = "server")]
pub use settings::{
    DEFAULT_TASK_BYTES_PER_PRINCIPAL, DEFAULT_TASK_BYTES_TOTAL, DEFAULT_TASK_CALL_BYTES,
    DEFAULT_TASK_LEASE, DEFAULT_TASK_POLL_INTERVAL, DEFAULT_TASK_QUESTION_TIMEOUT,
    DEFAULT_TASK_TTL, DEFAULT_TASKS_PER_PRINCIPAL, DEFAULT_TASKS_TOTAL, TaskSupport,
};
