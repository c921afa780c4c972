//! [`TaskRecord`]: everything the server keeps about one task, in two
//! parts sealed apart, each with its key and bound to the task's id and
//! version before it reaches the store: the [`TaskHead`] polling reads, the
//! [`TaskBody`] only a change reads.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::state::{KeyRing, open_record, seal_record};
use crate::task::id::TaskId;
use crate::task::millis::from_millis;

/// The record kind a task's head is sealed as.
const HEAD: &str = "task";
/// The record kind a task's body is sealed as.
const BODY: &str = "task-body";

/// A task's status (SEP-2663).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    /// The protocol's name for it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    pub(crate) fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// The call a task runs: what its handler is run with each time. An ended
/// task keeps none (the default: no name, no arguments).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct TaskCall {
    /// The tool's name.
    pub(crate) name: String,
    /// The arguments, as the client sent them (what the state is bound to).
    pub(crate) arguments: Option<Map<String, Value>>,
    /// The call's `_meta` (its protocol version and capabilities).
    pub(crate) meta: Map<String, Value>,
}

/// A question parked on the task, under the key the client answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Parked {
    /// The key the handler asked it under.
    pub(crate) key: String,
    /// The input request, as sent.
    pub(crate) request: Value,
    /// Parked by code outside the handler (a `TaskInbox`): its answer goes
    /// to the mailbox, for that code, and resumes no run.
    #[serde(default)]
    pub(crate) external: bool,
    /// A form's properties in their declared order, when it is not
    /// alphabetical (the request's own JSON has them sorted): `tasks/get`
    /// writes them in this order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) order: Vec<String>,
}

/// Everything kept about one task: its head and its body, sealed apart.
#[derive(Debug, Clone)]
pub(crate) struct TaskRecord {
    pub(crate) head: TaskHead,
    pub(crate) body: TaskBody,
}

/// What `tasks/get` and a running task's checks read: who owns the task,
/// where it stands, what it asks, and how it ended.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TaskHead {
    /// The principal that created it (`None`: anonymous).
    pub(crate) owner: Option<String>,
    pub(crate) status: Status,
    pub(crate) status_message: Option<String>,
    /// Unix milliseconds.
    pub(crate) created_at: i64,
    /// Unix milliseconds.
    pub(crate) updated_at: i64,
    /// The task's time to live from its creation, in milliseconds.
    pub(crate) ttl_ms: u64,
    pub(crate) poll_interval_ms: u64,
    /// While working: until when the instance running it vouches for it
    /// (it renews this while the handler runs), in Unix milliseconds.
    pub(crate) lease_until: Option<i64>,
    /// While working: the run that holds the lease (random): only it
    /// renews the lease, records steps and writes the outcome, so a run
    /// whose lease lapsed and was taken over by another instance's stops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) lease_run: Option<u64>,
    /// How many times a run of the task was lost (its instance stopped
    /// renewing the lease) and the task resumed on another.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) resumes: u32,
    /// While the handler's questions are parked: until when the state its
    /// next run opens can still open (the round TTL from the park), in Unix
    /// milliseconds. Past it no answer can resume the task.
    #[serde(default)]
    pub(crate) answer_by: Option<i64>,
    /// Task key -> the question parked under it, while unanswered.
    pub(crate) outstanding: BTreeMap<String, Parked>,
    /// The tool's result, once completed.
    pub(crate) result: Option<Value>,
    /// The handler's result, held while a question parked from outside
    /// the handler (a `TaskInbox`) is outstanding or its answer not yet
    /// taken: the task completes with it once that asker is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) held_result: Option<Value>,
    /// The JSON-RPC error, once failed.
    pub(crate) error: Option<Value>,
}

/// What only a change of the task reads: the call its runs make, the state
/// and answers of the next run, the keys used, the mailbox, the journal
/// of steps.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct TaskBody {
    pub(crate) call: TaskCall,
    /// The state the handler's next run opens.
    pub(crate) request_state: Option<String>,
    /// Handler key -> the answer given, for the next run: as `tasks/update`
    /// carried it, and as the run's retry hands it to the handler.
    pub(crate) answers: ::rmcp::model::InputResponses,
    /// How many task keys were issued.
    pub(crate) issued: u64,
    /// Every key ever parked on the task: keys are never reused in a task.
    #[serde(default)]
    pub(crate) used: BTreeSet<String>,
    /// Task key -> the answer to a question parked from outside the
    /// handler, until that code takes it.
    #[serde(default)]
    pub(crate) mailbox: BTreeMap<String, Value>,
    /// The journal: step name -> the result of each step the handler
    /// completed, which no later run does again.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) steps: BTreeMap<String, Value>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A record sealed for the store: its head and its body.
pub(crate) struct Sealed {
    pub(crate) head: Vec<u8>,
    pub(crate) body: Vec<u8>,
}

impl TaskHead {
    /// Whether a question of the handler's is outstanding (a run waits
    /// for it).
    pub(crate) fn handler_asks(&self) -> bool {
        self.outstanding.values().any(|parked| !parked.external)
    }

    /// Whether `run` holds the task's lease: the run that may renew it,
    /// record steps and write the outcome.
    pub(crate) fn leased_to(&self, run: u64) -> bool {
        !self.status.is_terminal() && self.lease_run == Some(run) && self.lease_until.is_some()
    }

    /// When the sweep should look at the task: the end of its run's lease
    /// (`None`: no run holds it, or it ended).
    pub(crate) fn due(&self) -> Option<OffsetDateTime> {
        self.lease_until
            .filter(|_| !self.status.is_terminal())
            .map(from_millis)
    }

    /// When the task's TTL ends.
    pub(crate) fn expires_at(&self) -> OffsetDateTime {
        let ttl = i64::try_from(self.ttl_ms).unwrap_or(i64::MAX);
        from_millis(self.created_at.saturating_add(ttl))
    }

    /// The head of task `id` at store `version` from its sealed bytes;
    /// `None` when they do not open for that id and version.
    pub(crate) fn open(keys: &KeyRing, id: &TaskId, version: u64, sealed: &[u8]) -> Option<Self> {
        let plain = open_record(keys, HEAD, &bound_id(id, version), sealed)?;
        serde_json::from_slice(&plain).ok()
    }
}

impl TaskRecord {
    /// A key of the task not used before, made from `base`.
    pub(crate) fn fresh_key(&mut self, base: &str) -> String {
        let body = &mut self.body;
        loop {
            body.issued = body.issued.saturating_add(1);
            let key = format!("{base}-{}", body.issued);
            if body.used.insert(key.clone()) {
                return key;
            }
        }
    }

    /// Ends the task with `status`: nothing outstanding, nothing to run,
    /// and no body (no call, no state, no answers) kept.
    pub(crate) fn end(&mut self, status: Status) {
        let head = &mut self.head;
        head.status = status;
        head.outstanding.clear();
        head.lease_until = None;
        head.lease_run = None;
        head.answer_by = None;
        head.held_result = None;
        self.body = TaskBody::default();
    }

    /// Whether code outside the handler still waits on the task: a
    /// question of its outstanding, or an answer it has not taken.
    pub(crate) fn asker_waits(&self) -> bool {
        self.head.outstanding.values().any(|parked| parked.external)
            || !self.body.mailbox.is_empty()
    }

    /// Completes the task with `result`, or, while an asker outside the
    /// handler waits on it ([`asker_waits`](Self::asker_waits)), holds the
    /// result until that asker is done.
    pub(crate) fn complete(&mut self, result: Option<Value>) {
        if self.asker_waits() {
            self.head.held_result = result;
            self.head.outstanding.retain(|_, parked| parked.external);
            self.head.status = if self.head.outstanding.is_empty() {
                Status::Working
            } else {
                Status::InputRequired
            };
            return;
        }
        self.end(Status::Completed);
        self.head.result = result;
    }

    /// Ends the task `failed` with the JSON-RPC error `code` and `message`.
    pub(crate) fn fail(&mut self, code: i64, message: &str) {
        self.end(Status::Failed);
        self.head.status_message = Some(message.to_owned());
        self.head.error = Some(serde_json::json!({"code": code, "message": message}));
    }

    /// The record sealed for the task `id` at store `version` (the one it
    /// will be stored under: 1 when created, one more at each replace);
    /// `None` when it cannot be serialized or the OS random generator fails.
    pub(crate) fn seal(&self, keys: &KeyRing, id: &TaskId, version: u64) -> Option<Sealed> {
        let bound = bound_id(id, version);
        let head = zeroize::Zeroizing::new(serde_json::to_vec(&self.head).ok()?);
        let body = zeroize::Zeroizing::new(serde_json::to_vec(&self.body).ok()?);
        Some(Sealed {
            head: seal_record(keys, HEAD, &bound, &head)?,
            body: seal_record(keys, BODY, &bound, &body)?,
        })
    }

    /// The record of task `id` at store `version` from its sealed head and
    /// body; `None` when either does not open for that id and version under
    /// the ring (a record written back over a later version among them).
    pub(crate) fn open(
        keys: &KeyRing,
        id: &TaskId,
        version: u64,
        head: &[u8],
        body: &[u8],
    ) -> Option<Self> {
        let head = TaskHead::open(keys, id, version, head)?;
        let plain = open_record(keys, BODY, &bound_id(id, version), body)?;
        Some(Self {
            head,
            body: serde_json::from_slice(&plain).ok()?,
        })
    }
}

/// What a task record is bound to beside its kind: the task's id (16
/// bytes) and the store version it is kept under (8 bytes, big-endian).
fn bound_id(id: &TaskId, version: u64) -> [u8; 24] {
    let mut bound = [0u8; 24];
    let (task, at) = bound.split_at_mut(16);
    task.copy_from_slice(&id.to_bytes());
    at.copy_from_slice(&version.to_be_bytes());
    bound
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::MasterKey;

    fn record() -> TaskRecord {
        TaskRecord {
            head: TaskHead {
                owner: Some("ada".to_owned()),
                status: Status::Completed,
                status_message: None,
                created_at: 0,
                updated_at: 0,
                ttl_ms: 1_000,
                poll_interval_ms: 1_000,
                lease_until: None,
                lease_run: None,
                resumes: 0,
                answer_by: None,
                outstanding: BTreeMap::new(),
                result: Some(
                    serde_json::json!({"content": [{"type": "text", "text": "secret result"}]}),
                ),
                held_result: None,
                error: None,
            },
            body: TaskBody {
                call: TaskCall {
                    name: "export".to_owned(),
                    arguments: Some(Map::from_iter([("card".to_owned(), "4111".into())])),
                    meta: Map::new(),
                },
                ..TaskBody::default()
            },
        }
    }

    fn keys() -> KeyRing {
        KeyRing::new(MasterKey::from_bytes(&[7; 32]).expect("key"))
    }

    #[test]
    fn a_record_opens_for_its_own_task_only_and_shows_nothing() {
        let keys = keys();
        let (a, b) = (TaskId::random().expect("id"), TaskId::random().expect("id"));
        let sealed = record().seal(&keys, &a, 3).expect("sealed");
        for part in [&sealed.head, &sealed.body] {
            for clear in [&b"secret"[..], b"ada", b"4111", b"export"] {
                assert!(!part.windows(clear.len()).any(|w| w == clear), "shows");
            }
        }
        let opened = TaskRecord::open(&keys, &a, 3, &sealed.head, &sealed.body).expect("opens");
        assert_eq!(opened.head.owner.as_deref(), Some("ada"));
        assert_eq!(opened.body.call.name, "export");
        assert!(TaskRecord::open(&keys, &b, 3, &sealed.head, &sealed.body).is_none());
        assert!(
            TaskHead::open(&keys, &b, 3, &sealed.head).is_none(),
            "copied"
        );
    }

    #[test]
    fn a_record_opens_at_its_own_version_only() {
        let keys = keys();
        let id = TaskId::random().expect("id");
        let sealed = record().seal(&keys, &id, 2).expect("sealed");
        assert!(TaskRecord::open(&keys, &id, 2, &sealed.head, &sealed.body).is_some());
        assert!(TaskHead::open(&keys, &id, 2, &sealed.head).is_some());
        for other in [0, 1, 3, u64::MAX] {
            assert!(
                TaskRecord::open(&keys, &id, other, &sealed.head, &sealed.body).is_none(),
                "written back at version {other}"
            );
            assert!(TaskHead::open(&keys, &id, other, &sealed.head).is_none());
        }
    }

    #[test]
    fn a_head_and_a_body_do_not_stand_in_for_each_other() {
        let keys = keys();
        let id = TaskId::random().expect("id");
        let sealed = record().seal(&keys, &id, 1).expect("sealed");
        assert!(TaskHead::open(&keys, &id, 1, &sealed.body).is_none());
        assert!(TaskRecord::open(&keys, &id, 1, &sealed.body, &sealed.head).is_none());
    }

    #[test]
    fn an_ended_task_keeps_no_body() {
        let mut record = record();
        record.body.request_state = Some("state".to_owned());
        record.end(Status::Cancelled);
        assert!(record.body.call.arguments.is_none());
        assert!(record.body.request_state.is_none());
        assert_eq!(record.head.owner.as_deref(), Some("ada"));
    }

    #[test]
    fn keys_are_never_reused_in_a_task() {
        let mut record = record();
        record.body.used.insert("go-2".to_owned());
        let keys: Vec<String> = (0..3).map(|_| record.fresh_key("go")).collect();
        assert_eq!(keys, ["go-1", "go-3", "go-4"]);
    }
}
