//! [`Journal`]: where the host that runs a task records the task's steps,
//! so that a later run of its handler (after an answer, on another
//! instance, after a crash) gets each completed step's result without
//! running the step again.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::wire::RpcError;

/// The future of [`Journal::record`].
pub(crate) type JournalFuture<'a> = Pin<Box<dyn Future<Output = Result<(), RpcError>> + Send + 'a>>;

/// A task's journal of steps, as its host keeps it: what
/// [`Round::step`](crate::runtime::Round::step) writes a completed step's
/// result to before the step returns. `mrtr_guard::rmcp::McpServer` keeps
/// it in the task's sealed record, in its store, with the compare-and-replace
/// of every change, within the task's byte budgets.
pub(crate) trait Journal: Send + Sync {
    /// Records `result` as the result of the step `name`, durably, before
    /// it resolves.
    ///
    /// # Errors
    ///
    /// The error the step then ends with, its result not returned
    /// unrecorded: the task ended, its byte budget is spent, the store
    /// failed.
    fn record<'a>(&'a self, name: &'a str, result: &'a Value) -> JournalFuture<'a>;
}
