//! [`TaskInbox`]: asking a task's client from outside its handler (a
//! background job, another instance), with the rules of an ask from the
//! handler.

use std::error::Error;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use ::rmcp::ErrorData;
use serde_json::{Value, json};

use super::host::{Access, Change, NotChanged, TaskHost};
use super::settings::TaskSettings;
use crate::form::{Answers, Form, Report, Verdict};
use crate::runtime::{Flow, Reply, Round, asks_again, reask_message};
use crate::state::StateCodec;
use crate::task::record::{Parked, Status};
use crate::task::{TaskId, TaskStore};

/// How often [`TaskInbox::ask`] looks for the answer in the store.
const POLL: Duration = Duration::from_millis(200);

/// Asks a task's client a form from code that holds the task store but not
/// the handler: a background job the handler started, another instance.
///
/// The question is parked on the task as the handler's asks are (the task
/// goes `input_required`, the question is in `tasks/get`'s
/// `inputRequests`), under a key the caller names or a generated one, never
/// used in the task before. Only the task's principal can answer it (every
/// `tasks/update` is checked against the task's owner); the answer reaches
/// this inbox, on whichever instance took the update, through the store.
/// It is checked as a round checks one: by the form, strictly (an invalid
/// value of an optional field is asked again unless the field drops invalid
/// values); an invalid answer is asked again under a fresh key with what to
/// correct, never the value; the third invalid answer in a row ends the ask
/// with [`Reply::Invalid`]. A decline or a cancel is an answer.
///
/// In the server's process, take the server's own:
/// [`RmcpFlow::task_inbox`](crate::rmcp::RmcpFlow::task_inbox) in the
/// handler, [`TaskCreated::inbox`](crate::rmcp::TaskCreated::inbox) in the
/// creation hook. Elsewhere (a worker process), build one with
/// [`new`](Self::new) over the same store and the same keys as the server
/// (the store opens no record sealed under another key).
#[derive(Clone)]
pub struct TaskInbox {
    host: Arc<TaskHost>,
}

impl TaskInbox {
    /// The inbox of the tasks `host` serves.
    pub(crate) fn of(host: Arc<TaskHost>) -> Self {
        Self { host }
    }

    /// An inbox over `store`, whose records `codec`'s keys seal (the
    /// server's codec, or one built from the same keys and audience).
    #[must_use]
    pub fn new(store: Arc<dyn TaskStore>, codec: StateCodec) -> Self {
        Self {
            host: Arc::new(TaskHost::new(
                TaskSettings::new(store),
                Arc::new(Flow::new(codec)),
            )),
        }
    }

    /// Parks `form` on the task `task_id` under `key` (or a generated
    /// one), waits for the answer and checks it.
    ///
    /// # Errors
    ///
    /// [`TaskAskError::UnknownTask`] for an id the store does not hold;
    /// [`TaskAskError::KeyUsed`] for a key the task used before;
    /// [`TaskAskError::Ended`] when the task ends before it is answered;
    /// [`TaskAskError::Store`] when the store fails.
    pub async fn ask(
        &self,
        task_id: &str,
        key: Option<&str>,
        form: &Form,
    ) -> Result<Reply<Answers>, TaskAskError> {
        let id = TaskId::parse(task_id).ok_or(TaskAskError::UnknownTask)?;
        let reply = self.ask_task(&id, key, form).await;
        self.settle(&id).await;
        reply
    }

    /// [`ask`](Self::ask) of the task `id`, until its reply.
    async fn ask_task(
        &self,
        id: &TaskId,
        key: Option<&str>,
        form: &Form,
    ) -> Result<Reply<Answers>, TaskAskError> {
        let id = *id;
        let base = match key {
            Some(key) => key.to_owned(),
            None => TaskId::random().ok_or(TaskAskError::Store)?.to_string(),
        };
        let order = declared_order(form);
        let mut key = self
            .park(&id, &base, true, &request(form.message(), form), &order)
            .await?;
        let mut strikes: u32 = 0;
        loop {
            let answer = self.take(&id, &key).await?;
            let report = match form.validate(&answer) {
                Verdict::Accepted(answers) if !asks_again(form, answers.report()) => {
                    return Ok(Reply::Accepted(answers));
                }
                Verdict::Accepted(answers) => answers.report().clone(),
                Verdict::Declined => return Ok(Reply::Declined),
                Verdict::Cancelled => return Ok(Reply::Cancelled),
                Verdict::Invalid(report) => report,
                Verdict::Missing => Report::default(),
            };
            strikes = strikes.saturating_add(1);
            if strikes >= Round::MAX_INVALID {
                return Ok(Reply::Invalid(report));
            }
            let again = request(&reask_message(form, &report), form);
            key = self.park(&id, &base, false, &again, &order).await?;
        }
    }

    /// Completes the task with the handler's held result once no asker
    /// outside the handler waits on it any more (this one is done).
    async fn settle(&self, id: &TaskId) {
        let _ = self
            .host
            .change(id, Access::Host, |record, _| {
                if record.head.status.is_terminal()
                    || record.head.held_result.is_none()
                    || record.asker_waits()
                {
                    return Change::Keep(());
                }
                let result = record.head.held_result.take();
                record.complete(result);
                Change::Write(())
            })
            .await;
    }

    /// Parks `request` under `base` (as it is the first time when `named`,
    /// else under a fresh key made from it): the key it went under.
    async fn park(
        &self,
        id: &TaskId,
        base: &str,
        named: bool,
        request: &Value,
        order: &[String],
    ) -> Result<String, TaskAskError> {
        let order = order.to_vec();
        let parked = self
            .host
            .change(id, Access::Host, |record, _| {
                if record.head.status.is_terminal() {
                    return Change::Keep(Err(TaskAskError::Ended));
                }
                let key = if named {
                    if !record.body.used.insert(base.to_owned()) {
                        return Change::Keep(Err(TaskAskError::KeyUsed));
                    }
                    base.to_owned()
                } else {
                    record.fresh_key(base)
                };
                record.head.outstanding.insert(
                    key.clone(),
                    Parked {
                        key: key.clone(),
                        request: request.clone(),
                        external: true,
                        order: order.clone(),
                    },
                );
                record.head.status = Status::InputRequired;
                Change::Grow(Ok(key))
            })
            .await
            .map_err(not_changed)?;
        parked.ok_or(TaskAskError::UnknownTask)?
    }

    /// Waits for the answer under `key` and takes it out of the mailbox:
    /// while the question is outstanding, only the task's head is read.
    async fn take(&self, id: &TaskId, key: &str) -> Result<Value, TaskAskError> {
        loop {
            let head = self.host.head_for(id, Access::Host).await.map_err(store)?;
            match head {
                None => return Err(TaskAskError::Ended),
                Some(head) if head.status.is_terminal() => return Err(TaskAskError::Ended),
                Some(head) if head.outstanding.contains_key(key) => {
                    tokio::time::sleep(POLL).await;
                    continue;
                }
                Some(_) => {}
            }
            let taken = self
                .host
                .change(id, Access::Host, |record, _| {
                    if let Some(answer) = record.body.mailbox.remove(key) {
                        return Change::Write(Ok(Some(answer)));
                    }
                    if record.head.status.is_terminal() {
                        return Change::Keep(Err(TaskAskError::Ended));
                    }
                    Change::Keep(Ok(None))
                })
                .await
                .map_err(not_changed)?
                .ok_or(TaskAskError::Ended)??;
            if let Some(answer) = taken {
                return Ok(answer);
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

impl fmt::Debug for TaskInbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskInbox").finish_non_exhaustive()
    }
}

/// `form`'s fields in their declared order, when it is not alphabetical
/// (what `tasks/get` needs to write them so); else none.
fn declared_order(form: &Form) -> Vec<String> {
    let names: Vec<String> = form.fields().iter().map(|f| f.name().to_owned()).collect();
    if names.is_sorted() { Vec::new() } else { names }
}

/// A form-mode `elicitation/create` input request saying `message`.
fn request(message: &str, form: &Form) -> Value {
    let mut params = form.elicit_params();
    if let Some(params) = params.as_object_mut() {
        params.insert("message".to_owned(), json!(message));
    }
    json!({"method": "elicitation/create", "params": params})
}

fn store(_: ErrorData) -> TaskAskError {
    TaskAskError::Store
}

fn not_changed(not: NotChanged) -> TaskAskError {
    match not {
        NotChanged::OverBudget(_) => TaskAskError::OverBudget,
        NotChanged::Failed(_) => TaskAskError::Store,
    }
}

/// Why [`TaskInbox::ask`] has no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskAskError {
    /// The store holds no task of that id (never created, or expired).
    UnknownTask,
    /// The key was used in the task before: keys are never reused.
    KeyUsed,
    /// The task ended (completed, failed, cancelled) before the answer came.
    Ended,
    /// The question would grow the task past its owner's byte budget, or
    /// the store's ([`McpServerBuilder::task_budget`](crate::rmcp::McpServerBuilder::task_budget)).
    OverBudget,
    /// The task store failed, or the OS random generator did; the log
    /// event says which.
    Store,
}

impl fmt::Display for TaskAskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::UnknownTask => "no such task in the store (never created, or expired)",
            Self::KeyUsed => {
                "the key was used in this task before; name another, or let one be generated"
            }
            Self::Ended => "the task ended before the question was answered",
            Self::OverBudget => "the question does not fit the task's byte budget",
            Self::Store => "the task store failed (see the task_store_failed log event)",
        })
    }
}

impl Error for TaskAskError {}
