//! A task as the client sees it: `rmcp`'s `Task` and `DetailedTask` from
//! the record's head. No `requestState` is ever part of it.

use ::rmcp::model::{
    DetailedTask, GetTaskResult, InputRequest, InputRequests, JsonObject, MetaObject, Task,
    TaskPayload, TaskStatus,
};
use serde_json::Value;

use crate::task::TaskId;
use crate::task::millis::from_millis;
use crate::task::record::{Status, TaskHead};
use crate::tower::order::order_hint_key;

/// The task's base fields.
pub(crate) fn task(id: &TaskId, head: &TaskHead) -> Task {
    let at = |ms| rfc3339(from_millis(ms));
    let mut task = Task::new(
        id.to_string(),
        status(head.status),
        at(head.created_at),
        at(head.updated_at),
    )
    .with_ttl_ms(head.ttl_ms)
    .with_poll_interval_ms(head.poll_interval_ms);
    if let Some(message) = &head.status_message {
        task = task.with_status_message(message.clone());
    }
    task
}

/// `tasks/get`'s result: the task with what its status carries, and,
/// when a parked form's declared order is not alphabetical, the hint that
/// `ScreenLayer` writes its properties back in that order by (and
/// removes), as for every `input_required` result.
pub(crate) fn get_result(id: &TaskId, head: &TaskHead) -> GetTaskResult {
    let mut result = GetTaskResult::new(detailed(id, head));
    let orders: JsonObject = head
        .outstanding
        .iter()
        .filter(|(_, parked)| !parked.order.is_empty())
        .map(|(key, parked)| (key.clone(), Value::from(parked.order.clone())))
        .collect();
    if let (false, Some(hint)) = (orders.is_empty(), order_hint_key()) {
        let mut meta = JsonObject::new();
        meta.insert(hint.to_owned(), Value::Object(orders));
        result.meta = Some(MetaObject(meta));
    }
    result
}

/// The task with what its status carries: the parked questions, the
/// result or the error.
pub(crate) fn detailed(id: &TaskId, head: &TaskHead) -> DetailedTask {
    let object = |value: &Option<Value>| match value {
        Some(Value::Object(object)) => object.clone(),
        _ => JsonObject::new(),
    };
    let payload = match head.status {
        Status::Working => TaskPayload::Working,
        Status::InputRequired => TaskPayload::InputRequired {
            input_requests: input_requests(head),
        },
        Status::Completed => TaskPayload::Completed {
            result: object(&head.result),
        },
        Status::Failed => TaskPayload::Failed {
            error: object(&head.error),
        },
        Status::Cancelled => TaskPayload::Cancelled,
    };
    DetailedTask::new(task(id, head), payload)
}

/// The questions parked on the task, under their task keys.
fn input_requests(head: &TaskHead) -> InputRequests {
    head.outstanding
        .iter()
        .filter_map(|(key, parked)| Some((key.clone(), typed(&parked.request)?)))
        .collect()
}

/// A parked request as `rmcp` types it, read by its `method`: straight to
/// its kind, without trying the others first (the untagged `InputRequest`
/// buffers the request and tries each kind in turn: most of a poll's time).
fn typed(request: &Value) -> Option<InputRequest> {
    let method = request.get("method")?.as_str()?;
    let value = request.clone();
    Some(match method {
        "elicitation/create" => InputRequest::Elicitation(serde_json::from_value(value).ok()?),
        "sampling/createMessage" => {
            InputRequest::CreateMessage(serde_json::from_value(value).ok()?)
        }
        "roots/list" => InputRequest::ListRoots(serde_json::from_value(value).ok()?),
        _ => serde_json::from_value(value).ok()?,
    })
}

fn status(status: Status) -> TaskStatus {
    match status {
        Status::Working => TaskStatus::Working,
        Status::InputRequired => TaskStatus::InputRequired,
        Status::Completed => TaskStatus::Completed,
        Status::Failed => TaskStatus::Failed,
        Status::Cancelled => TaskStatus::Cancelled,
    }
}

/// `at` as RFC 3339 text in UTC, to the millisecond.
fn rfc3339(at: time::OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    )
}
