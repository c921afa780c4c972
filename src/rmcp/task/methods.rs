//! `tasks/get`, `tasks/update` and `tasks/cancel`: each authenticated like
//! `tools/call` (the mount refuses a request without a principal before it
//! gets here), each answering another principal's task as an unknown one.

use std::sync::Arc;

use ::rmcp::ErrorData;
use ::rmcp::ServerHandler;
use ::rmcp::model::{CancelTaskParams, GetTaskParams, GetTaskResult, UpdateTaskParams};
use ::rmcp::service::{RequestContext, RoleServer};

use super::host::{Access, Change, TaskHost, overdue, unknown_task};
use super::run::spawn;
use super::view::detailed;
use crate::task::TaskId;
use crate::task::record::Status;

impl TaskHost {
    /// `tasks/get`: the task as it stands, from its head alone. A task past
    /// its TTL, whose instance stopped renewing its lease while it worked,
    /// or whose question's time ran out, is failed here, on whichever
    /// instance reads it.
    pub(crate) async fn get(
        &self,
        params: GetTaskParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let id = TaskId::parse(&params.task_id).ok_or_else(unknown_task)?;
        let caller = Access::Owner(self.caller(cx));
        let head = self.head_for(&id, caller).await?.ok_or_else(unknown_task)?;
        if overdue(&head, self.now()).is_none() {
            return Ok(GetTaskResult::new(detailed(&id, &head)));
        }
        let head = self
            .change(&id, caller, |record, now| {
                match overdue(&record.head, now) {
                    Some(reason) => {
                        record.fail(-32603, reason);
                        Change::Write(record.head.clone())
                    }
                    None => Change::Keep(record.head.clone()),
                }
            })
            .await?
            .ok_or_else(unknown_task)?;
        Ok(GetTaskResult::new(detailed(&id, &head)))
    }

    /// `tasks/update`: each answer for a key the task has outstanding is
    /// taken (any other key is ignored, before anything looks at its value);
    /// the answer that leaves nothing outstanding resumes the task, here,
    /// once: two updates for one key, on two instances, race to one
    /// compare-and-replace, and only the winner resumes it.
    pub(crate) async fn update<H: ServerHandler>(
        self: &Arc<Self>,
        inner: &Arc<H>,
        params: UpdateTaskParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let id = TaskId::parse(&params.task_id).ok_or_else(unknown_task)?;
        let responses = params.input_responses;
        let resumed = self
            .change(&id, Access::Owner(self.caller(cx)), |record, now| {
                let head = &mut record.head;
                if head.status != Status::InputRequired || overdue(head, now).is_some() {
                    return Change::Keep(None);
                }
                let mut taken = false;
                for (key, answer) in &responses {
                    if let Some(parked) = head.outstanding.remove(key) {
                        if parked.external {
                            record.body.mailbox.insert(key.clone(), answer.clone());
                        } else {
                            record.body.answers.insert(parked.key, answer.clone());
                        }
                        taken = true;
                    }
                }
                if !taken {
                    return Change::Keep(None);
                }
                if head.outstanding.is_empty() {
                    head.status = Status::Working;
                }
                let resume = !head.handler_asks()
                    && !record.body.answers.is_empty()
                    && head.lease_until.is_none();
                if !resume {
                    return Change::Grow(None);
                }
                let answers = std::mem::take(&mut record.body.answers);
                head.lease_until = Some(self.lease_from(now));
                head.answer_by = None;
                Change::Grow(Some((record.clone(), answers)))
            })
            .await
            .map_err(|not| self.not_changed(cx, not))?
            .ok_or_else(unknown_task)?;
        if let Some((record, answers)) = resumed {
            spawn(
                Arc::clone(self),
                Arc::clone(inner),
                id,
                &record,
                answers,
                cx,
            );
        }
        Ok(())
    }

    /// `tasks/cancel`: a task that has not ended is cancelled at once (its
    /// run, wherever it is, stops at its next check); one that has ended is
    /// acknowledged as it is.
    pub(crate) async fn cancel(
        &self,
        params: CancelTaskParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let id = TaskId::parse(&params.task_id).ok_or_else(unknown_task)?;
        self.change(&id, Access::Owner(self.caller(cx)), |record, _| {
            if record.head.status.is_terminal() {
                return Change::Keep(());
            }
            record.end(Status::Cancelled);
            record.head.status_message = Some("The task was cancelled.".to_owned());
            Change::Write(())
        })
        .await?
        .ok_or_else(unknown_task)
    }
}
