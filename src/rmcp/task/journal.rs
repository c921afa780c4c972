//! The task host's [`Journal`]: a step's result recorded in the task's
//! body by the one way a task changes (compare and replace, within the
//! byte budgets), before the step returns.

use std::sync::Arc;

use serde_json::Value;

use super::host::{Access, Change, NotChanged, TaskHost};
use crate::runtime::{Journal, JournalFuture};
use crate::task::TaskId;
use crate::wire::RpcError;

/// The journal of the task `id`, for its run `lease`: only the run that
/// holds the task's lease records (one whose lease was taken over by
/// another instance's run stops at its next step).
pub(crate) struct StepJournal {
    host: Arc<TaskHost>,
    id: TaskId,
    lease: u64,
}

impl StepJournal {
    pub(crate) fn new(host: Arc<TaskHost>, id: TaskId, lease: u64) -> Self {
        Self { host, id, lease }
    }
}

impl Journal for StepJournal {
    fn record<'a>(&'a self, name: &'a str, result: &'a Value) -> JournalFuture<'a> {
        Box::pin(async move {
            let recorded = self
                .host
                .change(&self.id, Access::Host, |record, _| {
                    if !record.head.leased_to(self.lease) {
                        return Change::Keep(false);
                    }
                    record.body.steps.insert(name.to_owned(), result.clone());
                    Change::Grow(true)
                })
                .await;
            match recorded {
                Ok(Some(true)) => Ok(()),
                Ok(_) => Err(RpcError::internal_error_because(
                    "the task ended, or another run resumed it, before its step was recorded",
                )),
                Err(NotChanged::OverBudget(what)) => Err(RpcError::tasks_over_budget(what)),
                Err(NotChanged::Failed(_)) => Err(RpcError::internal_error_because(
                    "the task store failed while recording a step",
                )),
            }
        })
    }
}
