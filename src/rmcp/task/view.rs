//! A task as the client sees it: `rmcp`'s `Task` and `DetailedTask` from
//! the record's head, and [`Polled`], the same `tasks/get` result written
//! straight from the head, byte for byte as `rmcp` and the screen write
//! the typed one. No `requestState` is ever part of it.

use ::rmcp::model::{
    DetailedTask, GetTaskResult, InputRequest, InputRequests, JsonObject, MetaObject, Task,
    TaskPayload, TaskStatus,
};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::task::TaskId;
use crate::task::millis::from_millis;
use crate::task::record::{Parked, Status, TaskHead};
use crate::tower::order::order_hint_key;
use crate::wire::OrderedSchema;

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

/// The methods [`typed`] reads a parked request by.
const ASKED_METHODS: [&str; 3] = ["elicitation/create", "sampling/createMessage", "roots/list"];

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

/// `tasks/get`'s result for a task, written from its head as [`get_result`]
/// is written by `rmcp` (its members in `rmcp`'s order, every map within
/// sorted) and then, where it carries the order hint, by `ScreenLayer`
/// (every member sorted, each form's `type` first and its properties in
/// their declared order, no hint): the same bytes, without typing the
/// questions again.
pub(crate) struct Polled<'a> {
    id: &'a TaskId,
    head: &'a TaskHead,
    /// Whether [`get_result`] hints an order, so that `ScreenLayer`
    /// writes the whole response again.
    pub(crate) rewritten: bool,
}

impl<'a> Polled<'a> {
    pub(crate) fn new(id: &'a TaskId, head: &'a TaskHead) -> Self {
        let hinted = head
            .outstanding
            .values()
            .any(|parked| !parked.order.is_empty());
        Self {
            id,
            head,
            rewritten: hinted && order_hint_key().is_some(),
        }
    }

    /// Whether the head is written here as [`get_result`] would have it:
    /// every parked request has a method `rmcp` types (the typed result
    /// leaves out one it cannot read).
    pub(crate) fn plain(head: &TaskHead) -> bool {
        head.outstanding.values().all(|parked| {
            parked
                .request
                .get("method")
                .and_then(Value::as_str)
                .is_some_and(|method| ASKED_METHODS.contains(&method))
        })
    }
}

/// A member of [`Polled`]'s result.
enum Member<'a> {
    Text(&'a str),
    Number(u64),
    Asked(Asked<'a>),
    Object(AnObject<'a>),
}

impl Serialize for Member<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(text) => serializer.serialize_str(text),
            Self::Number(number) => serializer.serialize_u64(*number),
            Self::Asked(asked) => asked.serialize(serializer),
            Self::Object(object) => object.serialize(serializer),
        }
    }
}

impl Serialize for Polled<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let head = self.head;
        let (id, created, updated) = (
            self.id.to_string(),
            rfc3339(from_millis(head.created_at)),
            rfc3339(from_millis(head.updated_at)),
        );
        // In `rmcp`'s order: the result's type, the task, its payload.
        let mut members = vec![
            ("resultType", Member::Text("complete")),
            ("taskId", Member::Text(&id)),
            ("status", Member::Text(head.status.as_str())),
        ];
        if let Some(message) = &head.status_message {
            members.push(("statusMessage", Member::Text(message)));
        }
        members.extend([
            ("createdAt", Member::Text(&created)),
            ("lastUpdatedAt", Member::Text(&updated)),
            ("ttlMs", Member::Number(head.ttl_ms)),
            ("pollIntervalMs", Member::Number(head.poll_interval_ms)),
        ]);
        match head.status {
            Status::InputRequired => {
                let asked = Asked {
                    head,
                    rewritten: self.rewritten,
                };
                members.push(("inputRequests", Member::Asked(asked)));
            }
            Status::Completed => members.push(("result", Member::Object(AnObject(&head.result)))),
            Status::Failed => members.push(("error", Member::Object(AnObject(&head.error)))),
            Status::Working | Status::Cancelled => {}
        }
        if self.rewritten {
            members.sort_unstable_by_key(|(name, _)| *name);
        }
        let mut map = serializer.serialize_map(Some(members.len()))?;
        for (name, member) in &members {
            map.serialize_entry(name, member)?;
        }
        map.end()
    }
}

/// A result or error as [`detailed`] has it: the object, or `{}`.
struct AnObject<'a>(&'a Option<Value>);

impl Serialize for AnObject<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(value @ Value::Object(_)) => value.serialize(serializer),
            _ => serializer.serialize_map(Some(0))?.end(),
        }
    }
}

/// A head's parked questions under their task keys, as written: each
/// form's schema by [`OrderedSchema`] where `ScreenLayer` writes the
/// response again, as stored otherwise.
struct Asked<'a> {
    head: &'a TaskHead,
    rewritten: bool,
}

impl Serialize for Asked<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.head.outstanding.len()))?;
        for (key, parked) in &self.head.outstanding {
            if self.rewritten {
                map.serialize_entry(key, &InDeclaredOrder(parked))?;
            } else {
                map.serialize_entry(key, &parked.request)?;
            }
        }
        map.end()
    }
}

/// A parked request with its form's schema `type` first and properties
/// in their declared order, as `ScreenLayer` writes a hinted one back.
struct InDeclaredOrder<'a>(&'a Parked);

impl Serialize for InDeclaredOrder<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Parked { request, order, .. } = self.0;
        let Value::Object(members) = request else {
            return request.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(members.len()))?;
        for (name, value) in members {
            match value {
                Value::Object(params) if name == "params" => {
                    map.serialize_entry(name, &Params { params, order })?;
                }
                _ => map.serialize_entry(name, value)?,
            }
        }
        map.end()
    }
}

/// A request's params, `requestedSchema` written by [`OrderedSchema`].
struct Params<'a> {
    params: &'a JsonObject,
    order: &'a [String],
}

impl Serialize for Params<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.params.len()))?;
        for (name, value) in self.params {
            if name == "requestedSchema" {
                map.serialize_entry(name, &OrderedSchema::new(value, self.order))?;
            } else {
                map.serialize_entry(name, value)?;
            }
        }
        map.end()
    }
}
