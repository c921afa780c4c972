//! `tasks/get`, `tasks/update` and `tasks/cancel`: each authenticated like
//! `tools/call` (the mount refuses a request without a principal before it
//! gets here), each answering another principal's task as an unknown one.

use std::sync::Arc;

use ::rmcp::ErrorData;
use ::rmcp::ServerHandler;
use ::rmcp::model::{
    CancelTaskParams, GetTaskParams, GetTaskResult, InputResponses, UpdateTaskParams,
};
use ::rmcp::service::{RequestContext, RoleServer};
use time::OffsetDateTime;

use super::host::{Access, Change, TaskHost, lapsed, overdue, unknown_task};
use super::run::spawn;
use super::sweep::{RunFrom, swept_context};
use super::view::get_result;
use crate::task::TaskId;
use crate::task::record::{Status, TaskHead, TaskRecord};

/// What a `tasks/update` did to its task.
enum Updated {
    /// Its answers taken (or none were for the task's outstanding keys).
    Taken,
    /// Its answer resumes the task: the run to start, with its answers.
    Resume(Box<(TaskRecord, InputResponses)>),
    /// The task's run was lost: resume it first.
    Lapsed,
}

impl TaskHost {
    /// `tasks/get`: the task as it stands, from its head alone. A task past
    /// its TTL, or whose question's time ran out, is failed here, on
    /// whichever instance reads it; one whose run was lost (its instance
    /// stopped renewing the lease) is resumed here ([`resume`](Self::resume)).
    pub(crate) async fn get<H: ServerHandler>(
        self: &Arc<Self>,
        inner: &Arc<H>,
        params: GetTaskParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let id = TaskId::parse(&params.task_id).ok_or_else(unknown_task)?;
        let caller = Access::Owner(self.caller(cx));
        let head = self.head_for(&id, caller).await?.ok_or_else(unknown_task)?;
        let now = self.now();
        if overdue(&head, now).is_none() && !lapsed(&head, now) {
            return Ok(get_result(&id, &head));
        }
        if lapsed(&head, now) && overdue(&head, now).is_none() {
            let head = self
                .resume(inner, &id, caller, RunFrom::Request(cx))
                .await?
                .ok_or_else(unknown_task)?;
            return Ok(get_result(&id, &head));
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
        Ok(get_result(&id, &head))
    }

    /// Resumes the task `id` if its run was lost (its lease lapsed): one
    /// instance claims it (compare and replace: one wins), leases it to a
    /// new run and runs the handler there from the task's journal, state
    /// and answers, in a context made from `from`; a task past its time, or
    /// lost [`MAX_RESUMES`](super::host::MAX_RESUMES) times, fails instead.
    /// The task's head as it then stands (`None`: unknown to `access`).
    pub(crate) async fn resume<H: ServerHandler>(
        self: &Arc<Self>,
        inner: &Arc<H>,
        id: &TaskId,
        access: Access<'_>,
        from: RunFrom<'_>,
    ) -> Result<Option<TaskHead>, ErrorData> {
        let claimed = self
            .change(id, access, |record, now| {
                if let Some(reason) = overdue(&record.head, now) {
                    record.fail(-32603, reason);
                    return Change::Write((record.head.clone(), None));
                }
                if !lapsed(&record.head, now) {
                    return Change::Keep((record.head.clone(), None));
                }
                record.head.resumes = record.head.resumes.saturating_add(1);
                if self.lease(&mut record.head, now).is_none() {
                    return Change::Keep((record.head.clone(), None));
                }
                Change::Write((record.head.clone(), Some(record.clone())))
            })
            .await?;
        let Some((head, claimed)) = claimed else {
            return Ok(None);
        };
        if let Some(record) = claimed {
            log_resumed(id, record.head.resumes);
            let answers = record.body.answers.clone();
            let swept;
            let cx = match from {
                RunFrom::Request(cx) => cx,
                RunFrom::Sweep(peer) => {
                    swept = swept_context(peer, record.head.owner.as_deref());
                    &swept
                }
            };
            spawn(
                Arc::clone(self),
                Arc::clone(inner),
                *id,
                &record,
                answers,
                cx,
            );
        }
        Ok(Some(head))
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
        // A task whose run was lost is resumed first, here, then answered.
        for _ in 0..2 {
            let updated = self
                .change(&id, Access::Owner(self.caller(cx)), |record, now| {
                    self.take_answers(record, &responses, now)
                })
                .await
                .map_err(|not| self.not_changed(cx, not))?
                .ok_or_else(unknown_task)?;
            match updated {
                Updated::Taken => return Ok(()),
                Updated::Resume(resumed) => {
                    let (record, answers) = *resumed;
                    spawn(
                        Arc::clone(self),
                        Arc::clone(inner),
                        id,
                        &record,
                        answers,
                        cx,
                    );
                    return Ok(());
                }
                Updated::Lapsed => {
                    let caller = Access::Owner(self.caller(cx));
                    self.resume(inner, &id, caller, RunFrom::Request(cx))
                        .await?;
                }
            }
        }
        Ok(())
    }

    /// What a `tasks/update` with `responses` makes of `record` at `now`.
    fn take_answers(
        &self,
        record: &mut TaskRecord,
        responses: &InputResponses,
        now: OffsetDateTime,
    ) -> Change<Updated> {
        let head = &mut record.head;
        if lapsed(head, now) && overdue(head, now).is_none() {
            return Change::Keep(Updated::Lapsed);
        }
        if head.status != Status::InputRequired || overdue(head, now).is_some() {
            return Change::Keep(Updated::Taken);
        }
        let mut taken = false;
        for (key, answer) in responses {
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
            return Change::Keep(Updated::Taken);
        }
        if head.outstanding.is_empty() {
            head.status = Status::Working;
        }
        let resume =
            !head.handler_asks() && !record.body.answers.is_empty() && head.lease_until.is_none();
        if !resume {
            return Change::Grow(Updated::Taken);
        }
        // The answers stay until the run's outcome is written: a run that
        // is lost is resumed with them.
        if self.lease(head, now).is_none() {
            return Change::Keep(Updated::Taken);
        }
        head.answer_by = None;
        let answers = record.body.answers.clone();
        Change::Grow(Updated::Resume(Box::new((record.clone(), answers))))
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

#[cfg(feature = "tracing")]
fn log_resumed(id: &TaskId, resumes: u32) {
    tracing::warn!(
        name: "task_resumed", target: "mrtr_guard::rmcp",
        task = %id, resumes,
        "a task whose run was lost (its instance stopped renewing the lease) is resumed here, \
         from its journal"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_resumed(_id: &TaskId, _resumes: u32) {}
