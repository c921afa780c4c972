//! [`TaskHost`]: a server's tasks, as the mount serves them: the settings,
//! the key their records are sealed with, who is calling, and the one way a
//! task changes (read, change, compare and replace).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ::rmcp::ErrorData;
use ::rmcp::service::{RequestContext, RoleServer};
use time::OffsetDateTime;

use super::settings::TaskSettings;
use crate::handoff::{AtCapacity, Principal};
use crate::metrics;
use crate::rmcp::error::error_data;
use crate::runtime::Flow;
use crate::state::{KeyRing, PrincipalKey};
use crate::task::millis::{from_millis, millis};
use crate::task::record::{Sealed, TaskHead, TaskRecord};
use crate::task::{Replacement, TaskId, TaskLimits, TaskStoreError};
use crate::wire::RpcError;

/// The most bytes a task's sealed record may take: what a task asked, its
/// answers and its result together.
pub(crate) const MAX_RECORD_BYTES: usize = 1024 * 1024;

/// The byte budgets, as a refusal names them (`data.limit`).
pub(crate) const PRINCIPAL_BYTES: &str = "task bytes for this principal";
pub(crate) const ALL_BYTES: &str = "task bytes";

/// How many times a change is tried again when another write came first.
const RETRIES: usize = 16;

/// A server's tasks.
pub(crate) struct TaskHost {
    pub(crate) settings: TaskSettings,
    /// The flow whose codec's keys seal the records.
    flow: Arc<Flow>,
    /// Whether the codec has a replay guard (final rounds are remembered
    /// only then: without one, a retry runs the round again).
    pub(crate) guarded: bool,
    /// The round TTL: how long a final round's answer is remembered.
    pub(crate) round_ttl: time::Duration,
    /// Set once this instance agreed with the store's fleet record.
    pub(crate) fleet_agreed: OnceLock<()>,
    /// Set once this instance's sweep started.
    pub(crate) sweeping: OnceLock<()>,
}

/// Who reads or changes a task: its owner (the calling principal, `None`
/// for anonymous), or the host itself (a run of the task).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Access<'a> {
    Owner(Option<&'a str>),
    Host,
}

impl Access<'_> {
    /// Whether this reader may see the task whose head is `head`: the host
    /// always, a principal only its own.
    fn sees(self, head: &TaskHead) -> bool {
        match self {
            Self::Owner(caller) => head.owner.as_deref() == caller,
            Self::Host => true,
        }
    }
}

/// What a change of a task decided.
pub(crate) enum Change<T> {
    /// Write the changed record, whatever it now takes (the host's own
    /// bookkeeping: a lease, an ending, a failure), then return `T`.
    Write(T),
    /// Write the changed record only within the byte budgets (it holds
    /// more of what a client or the handler gave: answers, questions, a
    /// result), then return `T`.
    Grow(T),
    /// Write nothing; return `T`.
    Keep(T),
}

/// Why a change was not made.
pub(crate) enum NotChanged {
    /// A [`Change::Grow`] past the byte budget named (as `data.limit`).
    OverBudget(&'static str),
    /// The store failed, or the task kept changing: the request fails.
    Failed(ErrorData),
}

impl From<NotChanged> for ErrorData {
    fn from(not: NotChanged) -> Self {
        match not {
            NotChanged::OverBudget(what) => error_data(RpcError::tasks_over_budget(what)),
            NotChanged::Failed(error) => error,
        }
    }
}

impl From<ErrorData> for NotChanged {
    fn from(error: ErrorData) -> Self {
        Self::Failed(error)
    }
}

impl TaskHost {
    pub(crate) fn new(settings: TaskSettings, flow: Arc<Flow>) -> Self {
        let codec = flow.codec();
        Self {
            guarded: codec.has_replay_guard(),
            round_ttl: codec.policy().ttl(),
            fleet_agreed: OnceLock::new(),
            sweeping: OnceLock::new(),
            settings,
            flow,
        }
    }

    /// The flow whose codec seals the records.
    pub(crate) fn flow(&self) -> &Flow {
        &self.flow
    }

    pub(crate) fn keys(&self) -> &KeyRing {
        self.flow.codec().keys()
    }

    /// Now, by the flow's clock: the one clock a task's TTL, lease and
    /// remembered answers are measured by, as its rounds' states are.
    pub(crate) fn now(&self) -> OffsetDateTime {
        self.flow.clock().now()
    }

    /// Who is calling: the principal the mount derived for the request
    /// (`None`: anonymous).
    pub(crate) fn caller<'c>(&self, cx: &'c RequestContext<RoleServer>) -> Option<&'c str> {
        cx.extensions
            .get::<http::request::Parts>()
            .and_then(Principal::of)
            .and_then(Principal::as_deref)
    }

    /// The key of a principal, for the store's caps.
    pub(crate) fn owner_key(&self, principal: Option<&str>) -> PrincipalKey {
        let codec = self.flow.codec();
        PrincipalKey::of_principal(codec.keys().active(), codec.audience(), principal)
    }

    /// The task `id` as `access` sees it, or `None` for an id the store
    /// does not hold, a record that does not open, or another principal's
    /// task: all three the same to the caller.
    pub(crate) async fn load_for(
        &self,
        id: &TaskId,
        access: Access<'_>,
    ) -> Result<Option<(u64, TaskRecord)>, ErrorData> {
        let loaded = self.settings.store.load(id, self.now()).await;
        let Some(stored) = loaded.map_err(store_failed)? else {
            return Ok(None);
        };
        let opened = TaskRecord::open(self.keys(), id, stored.version, &stored.head, &stored.body);
        Ok(self
            .visible(id, opened, |record| &record.head, access)
            .map(|record| (stored.version, record)))
    }

    /// The head of task `id` as `access` sees it (its body is not read):
    /// `None` as for [`load_for`](Self::load_for).
    pub(crate) async fn head_for(
        &self,
        id: &TaskId,
        access: Access<'_>,
    ) -> Result<Option<TaskHead>, ErrorData> {
        let loaded = self.settings.store.load_head(id, self.now()).await;
        let Some(stored) = loaded.map_err(store_failed)? else {
            return Ok(None);
        };
        let opened = TaskHead::open(self.keys(), id, stored.version, &stored.head);
        Ok(self.visible(id, opened, |head| head, access))
    }

    /// The head of task `id` if it opens and `access` may see it, with no
    /// refusal logged: for a poll that, refused here, goes on to the route
    /// ([`head_for`](Self::head_for)), which logs it.
    pub(crate) async fn seen_head(&self, id: &TaskId, access: Access<'_>) -> Option<TaskHead> {
        let stored = self.settings.store.load_head(id, self.now()).await.ok()??;
        TaskHead::open(self.keys(), id, stored.version, &stored.head)
            .filter(|head| access.sees(head))
    }

    /// `opened` when it opened and `access` may see it; the refusal logged.
    fn visible<R>(
        &self,
        id: &TaskId,
        opened: Option<R>,
        head: impl Fn(&R) -> &TaskHead,
        access: Access<'_>,
    ) -> Option<R> {
        let Some(opened) = opened else {
            log_refused(id, "record_does_not_open");
            return None;
        };
        if !access.sees(head(&opened)) {
            log_refused(id, "another_principal");
            return None;
        }
        Some(opened)
    }

    /// Changes the task `id` by `change`, read afresh and written over the
    /// version read, until no other write comes between: `None` when the
    /// task is unknown to `access`.
    pub(crate) async fn change<T>(
        &self,
        id: &TaskId,
        access: Access<'_>,
        mut change: impl FnMut(&mut TaskRecord, OffsetDateTime) -> Change<T>,
    ) -> Result<Option<T>, NotChanged> {
        for _ in 0..RETRIES {
            let Some((version, mut record)) = self.load_for(id, access).await? else {
                return Ok(None);
            };
            let now = self.now();
            let before = record.head.status;
            let counted_before = counted_until(&record.head);
            let due_before = record.head.due();
            let (value, limits) = match change(&mut record, now) {
                Change::Keep(value) => return Ok(Some(value)),
                Change::Grow(value) => (value, self.settings.limits),
                Change::Write(value) => (
                    value,
                    TaskLimits {
                        bytes_per_principal: usize::MAX,
                        bytes_total: usize::MAX,
                        ..self.settings.limits
                    },
                ),
            };
            record.head.updated_at = millis(now);
            let sealed = self.seal(id, version.saturating_add(1), &record)?;
            let owner = self.owner_key(record.head.owner.as_deref());
            let replacement = Replacement {
                id,
                owner,
                version,
                head: &sealed.head,
                body: &sealed.body,
                expires_at: record.head.expires_at(),
                counted_until: Some(counted_until(&record.head)).filter(|at| *at != counted_before),
                due: record.head.due().filter(|at| Some(*at) != due_before),
                limits,
            };
            let won = match self.settings.store.replace(replacement, now).await {
                Ok(won) => won,
                Err(TaskStoreError::PrincipalOverBudget) => {
                    return Err(NotChanged::OverBudget(PRINCIPAL_BYTES));
                }
                Err(TaskStoreError::OverBudget) => return Err(NotChanged::OverBudget(ALL_BYTES)),
                Err(error) => return Err(store_failed(error).into()),
            };
            if won {
                if record.head.status != before {
                    metrics::task_status(record.head.status.as_str());
                    if record.head.status.is_terminal() {
                        self.release(id, owner, now).await;
                    }
                }
                return Ok(Some(value));
            }
        }
        Err(error_data(RpcError::internal_error_because(
            "a task kept changing under every write",
        ))
        .into())
    }

    /// Gives back the place the ended task `id` took under the caps, at
    /// once (its record stays until its TTL, for `tasks/get`). A failure is
    /// logged: the place comes back at the TTL then.
    async fn release(&self, id: &TaskId, owner: PrincipalKey, now: OffsetDateTime) {
        if let Err(error) = self.settings.store.release(id, owner, now).await {
            let _ = store_failed(error);
        }
    }

    /// `record` sealed for the task `id` at store `version`, within
    /// [`MAX_RECORD_BYTES`].
    pub(crate) fn seal(
        &self,
        id: &TaskId,
        version: u64,
        record: &TaskRecord,
    ) -> Result<Sealed, ErrorData> {
        let sealed = record
            .seal(self.keys(), id, version)
            .ok_or_else(|| error_data(RpcError::internal_error()))?;
        if sealed.head.len().saturating_add(sealed.body.len()) > MAX_RECORD_BYTES {
            return Err(error_data(RpcError::invalid_params(
                "the task's answers are too large",
            )));
        }
        Ok(sealed)
    }

    /// The refusal `refusal` (a cap or a budget: HTTP 429), with a
    /// `Retry-After` of the poll interval the server tells its clients (at
    /// least a second), through the screen.
    pub(crate) fn at_capacity(
        &self,
        cx: &RequestContext<RoleServer>,
        refusal: RpcError,
    ) -> ErrorData {
        let retry_after = self.settings.poll_interval.as_secs().max(1);
        AtCapacity::note(cx.extensions.get::<http::request::Parts>(), retry_after);
        error_data(refusal)
    }

    /// What the client of `cx` is answered when a change was not made.
    pub(crate) fn not_changed(
        &self,
        cx: &RequestContext<RoleServer>,
        not: NotChanged,
    ) -> ErrorData {
        match not {
            NotChanged::OverBudget(what) => self.at_capacity(cx, RpcError::tasks_over_budget(what)),
            NotChanged::Failed(error) => error,
        }
    }

    /// Until when questions parked at `now` can be answered: the task's
    /// question timeout from now (the task's TTL ends it sooner).
    pub(crate) fn answer_by(&self, now: OffsetDateTime) -> i64 {
        millis(now).saturating_add(duration_ms(self.settings.question_timeout))
    }

    /// The lease a working task gets from `now`.
    pub(crate) fn lease_from(&self, now: OffsetDateTime) -> i64 {
        millis(now).saturating_add(duration_ms(self.settings.lease))
    }

    /// Leases the task to a new run from `now`: the run's token (random),
    /// or `None` when the OS random generator failed.
    pub(crate) fn lease(&self, head: &mut TaskHead, now: OffsetDateTime) -> Option<u64> {
        let bytes = TaskId::random()?.to_bytes();
        let run = u64::from_le_bytes(bytes.first_chunk::<8>().copied()?);
        head.lease_until = Some(self.lease_from(now));
        head.lease_run = Some(run);
        Some(run)
    }
}

/// Whether a non-terminal task has outlived its TTL, or, parked, the time
/// its questions could be answered in, or lost its runs too often (a
/// lapsed lease otherwise resumes it: [`lapsed`]).
pub(crate) fn overdue(record: &TaskHead, now: OffsetDateTime) -> Option<&'static str> {
    if record.status.is_terminal() {
        return None;
    }
    if record.expires_at() <= now {
        return Some("the task ran past its time to live");
    }
    if let Some(by) = record.answer_by
        && record.handler_asks()
        && from_millis(by) <= now
    {
        return Some("the task's question was not answered in time");
    }
    if record.resumes >= MAX_RESUMES && lapsed(record, now) {
        return Some(LOST_TOO_OFTEN);
    }
    None
}

/// How many times a task's run may be lost (its instance stopped renewing
/// its lease) and the task resumed on another instance: the next loss
/// fails it, saying [`LOST_TOO_OFTEN`].
pub(crate) const MAX_RESUMES: u32 = 3;

/// Why a task whose runs were lost too often failed.
pub(crate) const LOST_TOO_OFTEN: &str =
    "the server instances running the task stopped, 3 times in a row";

/// Whether a working task's lease has lapsed: the instance running it
/// stopped renewing it (it died, or lost Redis): the task is resumed on
/// the instance that sees it.
pub(crate) fn lapsed(head: &TaskHead, now: OffsetDateTime) -> bool {
    !head.status.is_terminal()
        && head
            .lease_until
            .is_some_and(|lease| from_millis(lease) <= now)
}

/// Until when a task counts under the count caps: the time its question
/// can be answered by while the handler's question is parked (no answer
/// resumes it after), else its expiry.
fn counted_until(head: &TaskHead) -> OffsetDateTime {
    match head.answer_by {
        Some(by) if head.handler_asks() && !head.status.is_terminal() => {
            from_millis(by).min(head.expires_at())
        }
        _ => head.expires_at(),
    }
}

/// `duration` in whole milliseconds.
pub(crate) fn duration_ms(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// The answer to a task id the caller may not see: never created, expired,
/// another principal's. One error for all.
pub(crate) fn unknown_task() -> ErrorData {
    ErrorData::invalid_params("Failed to retrieve task: Task not found", None)
}

/// A store failure: the request fails, the reason stays in the logs.
pub(crate) fn store_failed(error: crate::task::TaskStoreError) -> ErrorData {
    log_store_failed(&error);
    error_data(RpcError::internal_error())
}

#[cfg(feature = "tracing")]
fn log_refused(id: &TaskId, reason: &'static str) {
    tracing::warn!(
        name: "task_refused", target: "mrtr_guard::rmcp",
        task_id = %id, reason,
        "a task request was answered as an unknown task"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_refused(_id: &TaskId, _reason: &'static str) {}

#[cfg(feature = "tracing")]
fn log_store_failed(error: &crate::task::TaskStoreError) {
    tracing::error!(
        name: "task_store_failed", target: "mrtr_guard::rmcp",
        reason = error.code(), "{error}"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_store_failed(_error: &crate::task::TaskStoreError) {}
