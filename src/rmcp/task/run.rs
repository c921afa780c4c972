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

use super::host::{Access, Change, TaskHost, duration_ms, overdue};
use crate::handoff::{RawArguments, TaskOffer};
use crate::runtime::TaskPhase;
use crate::task::TaskId;
use crate::task::millis::millis;
use crate::task::record::{Parked, Status, TaskRecord};
use crate::wire::Method;

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
    let mut params = CallToolRequestParams::new(record.call.name.clone());
    params.arguments.clone_from(&record.call.arguments);
    params.input_responses = Some(answers);
    params.request_state.clone_from(&record.request_state);
    let cx = task_context(cx, record);
    tokio::spawn(async move {
        let run = inner.call_tool(params, cx);
        tokio::pin!(run);
        let mut check = tokio::time::interval(CHECK_EVERY);
        check.tick().await;
        let outcome = loop {
            tokio::select! {
                outcome = &mut run => break Some(outcome),
                _ = check.tick() => {
                    if !still_wanted(&host, &id).await {
                        break None;
                    }
                }
            }
        };
        if let Some(outcome) = outcome {
            finish(&host, &id, outcome).await;
        }
    });
}

/// The context of a run inside the task: the resuming request's, with the
/// task call's `_meta`, the raw arguments the state is bound to, the task
/// phase, and a cancellation of its own (the request's ends with its
/// response).
fn task_context(
    cx: &RequestContext<RoleServer>,
    record: &TaskRecord,
) -> RequestContext<RoleServer> {
    let mut cx = cx.clone();
    cx.ct = Default::default();
    if let Ok(meta) = serde_json::from_value(Value::Object(record.call.meta.clone())) {
        cx.meta = meta;
    }
    if let Some(parts) = cx.extensions.get_mut::<http::request::Parts>() {
        parts.extensions.insert(RawArguments::new(
            Method::ToolsCall,
            record.call.name.clone(),
            record.call.arguments.clone(),
        ));
        parts.extensions.insert(TaskOffer(TaskPhase::Inside));
    }
    cx
}

/// Whether the task still wants its run: working, within its TTL and
/// lease. Renews the lease when less than two thirds of it is left.
async fn still_wanted(host: &TaskHost, id: &TaskId) -> bool {
    let lease = host.settings.lease;
    let changed = host
        .change(id, Access::Host, |record, now| {
            if record.status.is_terminal()
                || record.lease_until.is_none()
                || overdue(record, now).is_some()
            {
                return Change::Keep(false);
            }
            let left = record
                .lease_until
                .map_or(0, |until| until.saturating_sub(millis(now)));
            if left.saturating_mul(3) < duration_ms(lease).saturating_mul(2) {
                record.lease_until = Some(host.lease_from(now));
                Change::Write(true)
            } else {
                Change::Keep(true)
            }
        })
        .await;
    matches!(changed, Ok(Some(true)))
}

/// Writes the run's outcome to the task, unless it ended meanwhile.
async fn finish(
    host: &TaskHost,
    id: &TaskId,
    outcome: Result<CallToolResponse, ::rmcp::ErrorData>,
) {
    let _ = host
        .change(id, Access::Host, |record, now| {
            if record.status.is_terminal() {
                return Change::Keep(());
            }
            record.lease_until = None;
            record.answer_by = None;
            record.answers.clear();
            match &outcome {
                Ok(CallToolResponse::Complete(result)) => {
                    record.end(Status::Completed);
                    record.result = serde_json::to_value(result).ok();
                }
                Ok(CallToolResponse::InputRequired(asked))
                    if asked
                        .input_requests
                        .as_ref()
                        .is_some_and(|asks| !asks.is_empty()) =>
                {
                    park(record, asked);
                    record.answer_by = Some(host.answer_by(now));
                }
                Ok(_) => record.fail(-32603, "Internal error"),
                Err(error) => record.fail(i64::from(error.code.0), &error.message),
            }
            Change::Write(())
        })
        .await;
}

/// Parks the run's questions on the task, each under a key never used in
/// the task before, beside any question parked from outside the handler.
fn park(record: &mut TaskRecord, asked: &::rmcp::model::InputRequiredResult) {
    record.status = Status::InputRequired;
    record.request_state.clone_from(&asked.request_state);
    record.outstanding.retain(|_, parked| parked.external);
    for (key, request) in asked.input_requests.iter().flatten() {
        let request = serde_json::to_value(request).unwrap_or(Value::Object(Map::new()));
        let task_key = record.fresh_key(key);
        record.outstanding.insert(
            task_key,
            Parked {
                key: key.clone(),
                request,
                external: false,
            },
        );
    }
}
