//! A task's run: the tool's handler run again, inside the task, with the
//! state and answers the task holds, on whichever instance took the step
//! that resumed it; its lease renewed while it works, dropped when the task
//! is cancelled; its outcome written to the task.

use std::sync::Arc;
use std::time::Duration;

use ::rmcp::ServerHandler;
use ::rmcp::model::{CallToolRequestParams, CallToolResponse, InputResponses};
use ::rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};

use super::host::{Access, Change, NotChanged, TaskHost, duration_ms, overdue};
use super::journal::StepJournal;
use crate::handoff::{RawArguments, TaskOffer};
use crate::runtime::TaskRun;
use crate::task::TaskId;
use crate::task::millis::millis;
use crate::task::record::{Parked, Status, TaskHead, TaskRecord};
use crate::tower::order::order_hint_key;
use crate::wire::Method;

/// Why a task failed whose result or questions did not fit its byte
/// budget.
const OVER_BUDGET: &str = "the task's result or questions do not fit its byte budget";

/// How often a running task checks that it is still wanted (not
/// cancelled, within its TTL) and renews its lease.
const CHECK_EVERY: Duration = Duration::from_millis(500);

/// Starts the handler's run for task `id`: the call of `record`, with
/// `answers` and the record's state as its retry, in a context made from
/// `cx` (the request that resumed the task: same principal).
pub(crate) fn spawn<H: ServerHandler>(
    host: Arc<TaskHost>,
    inner: Arc<H>,
    id: TaskId,
    record: &TaskRecord,
    answers: InputResponses,
    cx: &RequestContext<RoleServer>,
) {
    let call = &record.body.call;
    let mut params = CallToolRequestParams::new(call.name.clone());
    params.arguments.clone_from(&call.arguments);
    params.input_responses = Some(answers);
    params.request_state.clone_from(&record.body.request_state);
    // The run the change that started it leased the task to.
    let Some(lease) = record.head.lease_run else {
        return;
    };
    let journal = Arc::new(StepJournal::new(Arc::clone(&host), id, lease));
    let run = TaskRun::new(id.to_string(), record.body.steps.clone(), journal);
    let cx = task_context(cx, record, run);
    tokio::spawn(async move {
        let run = inner.call_tool(params, cx);
        tokio::pin!(run);
        let mut check = tokio::time::interval(CHECK_EVERY);
        check.tick().await;
        let outcome = loop {
            tokio::select! {
                outcome = &mut run => break Some(outcome),
                _ = check.tick() => {
                    if !still_wanted(&host, &id, lease).await {
                        break None;
                    }
                }
            }
        };
        if let Some(outcome) = outcome {
            finish(&host, &id, lease, outcome).await;
        }
    });
}

/// The context of a run inside the task: the resuming request's, with the
/// task call's `_meta`, the raw arguments the state is bound to, the task
/// `run` (its id and journal), and a cancellation of its own (the
/// request's ends with its response).
fn task_context(
    cx: &RequestContext<RoleServer>,
    record: &TaskRecord,
    run: TaskRun,
) -> RequestContext<RoleServer> {
    let call = &record.body.call;
    let mut cx = cx.clone();
    cx.ct = Default::default();
    if let Ok(meta) = serde_json::from_value(Value::Object(call.meta.clone())) {
        cx.meta = meta;
    }
    if let Some(parts) = cx.extensions.get_mut::<http::request::Parts>() {
        parts.extensions.insert(RawArguments::new(
            Method::ToolsCall,
            call.name.clone(),
            call.arguments.clone(),
        ));
        parts.extensions.insert(TaskOffer::Inside(run));
    }
    cx
}

/// Whether the task still wants this run (`lease`): not ended, within its
/// TTL, and leased to this run still (read from its head alone; a run
/// whose lease lapsed and was taken over stops). Renews the lease when
/// less than two thirds of it is left.
async fn still_wanted(host: &TaskHost, id: &TaskId, lease: u64) -> bool {
    let wanted = |head: &TaskHead, now| head.leased_to(lease) && overdue(head, now).is_none();
    let renew = |head: &TaskHead, now| {
        let left = head
            .lease_until
            .map_or(0, |until| until.saturating_sub(millis(now)));
        left.saturating_mul(3) < duration_ms(host.settings.lease).saturating_mul(2)
    };
    match host.head_for(id, Access::Host).await {
        Ok(Some(head)) if wanted(&head, host.now()) => {
            if !renew(&head, host.now()) {
                return true;
            }
        }
        _ => return false,
    }
    let changed = host
        .change(id, Access::Host, |record, now| {
            if !wanted(&record.head, now) {
                return Change::Keep(false);
            }
            record.head.lease_until = Some(host.lease_from(now));
            Change::Write(true)
        })
        .await;
    matches!(changed, Ok(Some(true)))
}

/// Writes the run's outcome to the task, unless it ended meanwhile or
/// another run holds it now: a result or questions within the byte
/// budgets, else the task fails saying so.
async fn finish(
    host: &TaskHost,
    id: &TaskId,
    lease: u64,
    outcome: Result<CallToolResponse, ::rmcp::ErrorData>,
) {
    let written = host
        .change(id, Access::Host, |record, now| {
            if !record.head.leased_to(lease) {
                return Change::Keep(());
            }
            let head = &mut record.head;
            head.lease_until = None;
            head.lease_run = None;
            head.answer_by = None;
            record.body.answers.clear();
            match &outcome {
                Ok(CallToolResponse::Complete(result)) => {
                    record.complete(serde_json::to_value(result).ok());
                    Change::Grow(())
                }
                Ok(CallToolResponse::InputRequired(asked))
                    if asked
                        .input_requests
                        .as_ref()
                        .is_some_and(|asks| !asks.is_empty()) =>
                {
                    park(record, asked);
                    record.head.answer_by = Some(host.answer_by(now));
                    Change::Grow(())
                }
                Ok(_) => {
                    record.fail(-32603, "Internal error");
                    Change::Write(())
                }
                Err(error) => {
                    record.fail(i64::from(error.code.0), &error.message);
                    Change::Write(())
                }
            }
        })
        .await;
    if let Err(NotChanged::OverBudget(_)) = written {
        let _ = host
            .change(id, Access::Host, |record, _| {
                if !record.head.leased_to(lease) {
                    return Change::Keep(());
                }
                record.fail(-32000, OVER_BUDGET);
                Change::Write(())
            })
            .await;
    }
}

/// Parks the run's questions on the task, each under a key never used in
/// the task before, beside any question parked from outside the handler.
fn park(record: &mut TaskRecord, asked: &::rmcp::model::InputRequiredResult) {
    record.head.status = Status::InputRequired;
    record.body.request_state.clone_from(&asked.request_state);
    record.head.outstanding.retain(|_, parked| parked.external);
    // The forms' declared orders, as the `rmcp` adapter hinted them.
    let orders = asked
        .meta
        .as_ref()
        .zip(order_hint_key())
        .and_then(|(meta, hint)| meta.0.get(hint))
        .and_then(Value::as_object);
    for (key, request) in asked.input_requests.iter().flatten() {
        let request = serde_json::to_value(request).unwrap_or(Value::Object(Map::new()));
        let order = orders
            .and_then(|orders| orders.get(key))
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(|name| name.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let task_key = record.fresh_key(key);
        record.head.outstanding.insert(
            task_key,
            Parked {
                key: key.clone(),
                request,
                external: false,
                order,
            },
        );
    }
}
