//! [`TaskPhase`]: whether the call may run on as a task (SEP-2663), and
//! where it stands.

/// Whether a call may run on as a task after it returns (the Tasks
/// extension, SEP-2663), as the host that mounts the handler decides it: what
/// [`Round::task`](crate::runtime::Round::task) does.
///
/// A call made without a host that runs tasks is [`Synchronous`](Self::Synchronous):
/// `Round::task` returns at once and the handler goes on in the call, its
/// asks ordinary rounds. `mrtr_guard::rmcp::McpServer` sets the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TaskPhase {
    /// The call runs to its end in the call: no task here (the client did
    /// not declare the extension, or the host runs no tasks).
    #[default]
    Synchronous,
    /// The tool was not declared as one that may run as a task: a
    /// `Round::task` in its handler is a wiring mistake
    /// ([`Misuse::TaskNotDeclared`](crate::runtime::Misuse::TaskNotDeclared)).
    NotDeclared,
    /// The client declared the extension and the tool may run as a task:
    /// `Round::task` ends the call here, and the handler runs on in the task.
    Offered,
    /// This run is the task's: `Round::task` returns at once, and an ask
    /// parks its question on the task.
    Inside,
}
