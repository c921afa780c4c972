//! [`TaskPhase`]: whether the call may run on as a task (SEP-2663), and
//! where it stands; [`TaskRun`]: the task a run is inside.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::runtime::journal::Journal;

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

/// The task a run of the handler is inside, as its host hands it over
/// (`Call::with_task_run`): the
/// task's id, the steps its journal holds, and the journal the run's new
/// steps are recorded in.
#[derive(Clone)]
pub(crate) struct TaskRun {
    id: String,
    steps: BTreeMap<String, Value>,
    journal: Arc<dyn Journal>,
}

impl TaskRun {
    /// The run of task `id` (its id as the client sees it), whose journal
    /// holds `steps` (step name -> result) and records new ones.
    #[cfg(feature = "server")]
    #[must_use]
    pub(crate) fn new(
        id: impl Into<String>,
        steps: BTreeMap<String, Value>,
        journal: Arc<dyn Journal>,
    ) -> Self {
        Self {
            id: id.into(),
            steps,
            journal,
        }
    }

    /// The task's id, as the client sees it.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// The steps recorded before this run, by name.
    pub(crate) fn steps(&self) -> &BTreeMap<String, Value> {
        &self.steps
    }

    pub(crate) fn journal(&self) -> Arc<dyn Journal> {
        Arc::clone(&self.journal)
    }
}

impl PartialEq for TaskRun {
    /// Two runs of one task over one journal's steps (the journal itself is
    /// not compared).
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.steps == other.steps
    }
}

impl fmt::Debug for TaskRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskRun")
            .field("id", &self.id)
            .field("steps", &self.steps.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
