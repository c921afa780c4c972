//! [`Call`]: one incoming call and the principal it was made by.

use crate::runtime::task::{TaskPhase, TaskRun};
use crate::wire::CallParams;

/// One incoming call: its parsed params and the principal your
/// authentication established for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    params: CallParams,
    principal: Option<String>,
    task: TaskPhase,
    run: Option<TaskRun>,
}

impl Call {
    /// An anonymous call (tokens for it open only on a codec built with
    /// [`allow_anonymous`](crate::state::CodecBuilder::allow_anonymous)).
    #[must_use]
    pub fn new(params: CallParams) -> Self {
        Self {
            params,
            principal: None,
            task: TaskPhase::Synchronous,
            run: None,
        }
    }

    /// Sets the authenticated principal: a stable user id from your
    /// authentication layer, never a value the client reports about itself.
    #[must_use]
    pub fn with_principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Whether the call may run on as a task, as the host decided
    /// ([`TaskPhase::Synchronous`] unless set).
    #[must_use]
    pub fn with_task_phase(mut self, phase: TaskPhase) -> Self {
        self.task = phase;
        self
    }

    /// Whether the call may run on as a task.
    #[must_use]
    pub fn task_phase(&self) -> TaskPhase {
        self.task
    }

    /// Makes the call a run inside the task `run` ([`TaskPhase::Inside`]):
    /// the round knows the task's id, records its steps in the task's
    /// journal, and opens its state as a task's (no replay guard, no round
    /// times: the task's record and clock stand for them). Only the task
    /// host makes such a call, from a task's record: never from a client's.
    #[cfg(any(feature = "tower", feature = "rmcp"))]
    pub(crate) fn with_task_run(mut self, run: TaskRun) -> Self {
        self.task = TaskPhase::Inside;
        self.run = Some(run);
        self
    }

    /// The task this call is a run inside, if the host said so.
    pub(crate) fn task_run(&self) -> Option<&TaskRun> {
        self.run.as_ref()
    }

    /// The params.
    #[must_use]
    pub fn params(&self) -> &CallParams {
        &self.params
    }

    /// The principal, if any.
    #[must_use]
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }
}
