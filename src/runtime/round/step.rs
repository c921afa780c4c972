//! [`Round::step`]: a piece of a task's work done once, its result
//! recorded in the task's journal (outside a task: in the flow's state)
//! before the handler goes on.

use std::future::IntoFuture;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::runtime::misuse::Misuse;
use crate::runtime::round::view::Round;
use crate::runtime::task::TaskRun;
use crate::wire::RpcError;

impl Round<'_> {
    /// Runs `work` once per task and returns its result: the first run of
    /// the handler that reaches this step awaits `work` and records its
    /// result in the task's journal (in the task's sealed record, with the
    /// compare-and-replace of every change, within the task's byte
    /// budgets) before it returns; every later run (after an answer, on
    /// another instance, after the instance that ran it died) gets the
    /// recorded result and never polls `work`. `name` tells the steps of
    /// one handler apart; the result is serialized to JSON and read back as
    /// `T`.
    ///
    /// What is done once and what at least once: a step whose result was
    /// recorded is never run again. A step in flight when its instance
    /// died (its result not recorded yet) runs again on the instance that
    /// resumes the task, so make its effect idempotent where it lands:
    /// pass an idempotency key made from [`task_id`](Self::task_id) and
    /// `name` (`format!("{task}:{name}")`) to the database, payment or
    /// mail call, or check what is there before writing.
    ///
    /// Outside a task (a client that did not declare the extension, a host
    /// that runs no tasks, the rounds before [`task`](Self::task)) the
    /// result travels in the flow's sealed state instead (claim `step`,
    /// `docs/FORMAT.md` §5): every later round of the flow gets it without
    /// running the step, and so does the task the flow then becomes. It
    /// counts in the state's own share, with the questions and the
    /// application data: keep such a result small (an id, a count); one
    /// the state cannot hold is the handler's mistake
    /// ([`Misuse::StateTooLarge`], when the round mints). As with
    /// [`once`](Self::once), a flow whose client drops the state before
    /// the next round does the step again in a new flow.
    ///
    /// ```no_run
    /// # async fn copy_rows() -> u64 { 12 }
    /// # async fn handler(round: &mut mrtr_guard::Round<'_>) -> Result<String, mrtr_guard::Stop> {
    /// round.task()?;
    /// let copied: u64 = round.step("copy", copy_rows()).await?; // once per task
    /// Ok(format!("{copied} rows copied"))
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// The journal's error when the result could not be recorded (the task
    /// ended, its byte budget is spent, the store failed): the result is
    /// not returned unrecorded. An internal error
    /// ([`Misuse::StepChanged`]) when a recorded result does not read as
    /// `T`; when the result does not serialize, [`RpcError::internal_error`].
    pub async fn step<T, F>(&mut self, name: &str, work: F) -> Result<T, RpcError>
    where
        T: Serialize + DeserializeOwned,
        F: IntoFuture<Output = T>,
    {
        if let Some(done) = self.recorded(name)? {
            return Ok(done);
        }
        let result = work.await;
        self.record(name, &result).await?;
        Ok(result)
    }

    /// [`step`](Self::step) over work that can fail: its error is returned
    /// and nothing is recorded, so a later run does the step again.
    ///
    /// # Errors
    ///
    /// The work's error, or [`step`](Self::step)'s.
    pub async fn try_step<T, E, F>(&mut self, name: &str, work: F) -> Result<T, E>
    where
        T: Serialize + DeserializeOwned,
        E: From<RpcError>,
        F: IntoFuture<Output = Result<T, E>>,
    {
        if let Some(done) = self.recorded(name)? {
            return Ok(done);
        }
        let result = work.await?;
        self.record(name, &result).await?;
        Ok(result)
    }

    /// The id of the task this run is inside (as the client sees it), for
    /// code outside the handler ([`TaskInbox`](crate::rmcp::TaskInbox)),
    /// logs and idempotency keys; `None` outside a task.
    #[must_use]
    pub fn task_id(&self) -> Option<&str> {
        self.call.task_run().map(TaskRun::id)
    }

    /// The result recorded for the step `name`, if any.
    fn recorded<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, RpcError> {
        let Some(result) = self.steps.get(name) else {
            return Ok(None);
        };
        T::deserialize(result).map(Some).map_err(|_| {
            Misuse::StepChanged {
                name: name.to_owned(),
            }
            .into_error()
        })
    }

    /// Records `result` as the step `name`'s: in the task's journal inside
    /// a task, and for the rest of this round and the states it mints.
    async fn record<T: Serialize>(&mut self, name: &str, result: &T) -> Result<(), RpcError> {
        let result = serde_json::to_value(result).map_err(|_| RpcError::internal_error())?;
        if let Some(journal) = self.call.task_run().map(TaskRun::journal) {
            journal.record(name, &result).await?;
        }
        self.steps.insert(name.to_owned(), result);
        Ok(())
    }
}
