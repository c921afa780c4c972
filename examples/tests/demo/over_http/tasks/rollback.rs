//! A task's record cannot be rolled back: each is sealed bound to the
//! version the store keeps it under, so a store writer (a Redis operator,
//! a restored backup) who puts an older sealed record back under the
//! current version gets a task that opens for nobody: unknown, never the
//! older status.

use std::collections::HashMap;
use std::sync::Mutex;

use mrtr_guard::state::PrincipalKey;
use mrtr_guard::task::{
    Answer, Due, MemoryTaskStore, NewTask, Replacement, StoreFuture, Stored, StoredHead, TaskId,
    TaskStore,
};
use time::OffsetDateTime;

use super::*;

/// A sealed record as the store was given it: its head and body.
type Sealed = (Vec<u8>, Vec<u8>);

/// The memory store, with a hand on it: it keeps every sealed record (head
/// and body) it is given, and can be told to serve an older one of a task
/// under the version it holds now.
#[derive(Debug, Default)]
struct Rewritten {
    inner: MemoryTaskStore,
    history: Mutex<HashMap<TaskId, Vec<Sealed>>>,
    /// The task, and which of its records to serve instead of its own.
    served: Mutex<Option<(TaskId, usize)>>,
}

impl Rewritten {
    fn keep(&self, id: &TaskId, head: &[u8], body: &[u8]) {
        let mut history = self.history.lock().unwrap();
        history
            .entry(*id)
            .or_default()
            .push((head.to_vec(), body.to_vec()));
    }

    /// How many records the store was given for `id`.
    fn written(&self, id: &TaskId) -> usize {
        self.history.lock().unwrap().get(id).map_or(0, Vec::len)
    }

    /// The older record to serve for `id` in place of its own, if told to.
    fn older(&self, id: &TaskId) -> Option<Sealed> {
        let served = *self.served.lock().unwrap();
        let (task, at) = served.filter(|(task, _)| task == id)?;
        Some(self.history.lock().unwrap()[&task][at].clone())
    }
}

impl TaskStore for Rewritten {
    fn create<'a>(&'a self, task: NewTask<'a>, now: OffsetDateTime) -> StoreFuture<'a, ()> {
        self.keep(task.id, task.head, task.body);
        self.inner.create(task, now)
    }

    fn load<'a>(&'a self, id: &'a TaskId, now: OffsetDateTime) -> StoreFuture<'a, Option<Stored>> {
        Box::pin(async move {
            let stored = self.inner.load(id, now).await?;
            Ok(stored.map(|stored| match self.older(id) {
                Some((head, body)) => Stored {
                    version: stored.version,
                    head,
                    body,
                },
                None => stored,
            }))
        })
    }

    fn load_head<'a>(
        &'a self,
        id: &'a TaskId,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, Option<StoredHead>> {
        Box::pin(async move {
            let stored = self.inner.load_head(id, now).await?;
            Ok(stored.map(|stored| match self.older(id) {
                Some((head, _)) => StoredHead {
                    version: stored.version,
                    head,
                },
                None => stored,
            }))
        })
    }

    fn replace<'a>(
        &'a self,
        replacement: Replacement<'a>,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let won = self.inner.replace(replacement, now).await?;
            if won {
                self.keep(replacement.id, replacement.head, replacement.body);
            }
            Ok(won)
        })
    }

    fn release<'a>(
        &'a self,
        id: &'a TaskId,
        owner: PrincipalKey,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, ()> {
        self.inner.release(id, owner, now)
    }

    fn remember<'a>(&'a self, answer: Answer<'a>, now: OffsetDateTime) -> StoreFuture<'a, ()> {
        self.inner.remember(answer, now)
    }

    fn recall<'a>(
        &'a self,
        key: &'a [u8; 32],
        now: OffsetDateTime,
    ) -> StoreFuture<'a, Option<Vec<u8>>> {
        self.inner.recall(key, now)
    }

    fn fleet(&self) -> StoreFuture<'_, Option<Vec<u8>>> {
        self.inner.fleet()
    }

    fn set_fleet<'a>(&'a self, record: &'a [u8]) -> StoreFuture<'a, ()> {
        self.inner.set_fleet(record)
    }

    fn due(&self, now: OffsetDateTime, limit: usize) -> StoreFuture<'_, Vec<Due>> {
        self.inner.due(now, limit)
    }

    fn reschedule(&self, due: Due, at: Option<OffsetDateTime>) -> StoreFuture<'_, ()> {
        self.inner.reschedule(due, at)
    }
}

#[tokio::test]
async fn an_older_record_written_back_opens_for_nobody() {
    let store = Arc::new(Rewritten::default());
    let shared: Arc<dyn TaskStore> = store.clone();
    let addr = on_loopback(
        Signup::service_with(codec(), move |builder| builder.task_store(shared)).unwrap(),
    )
    .await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let task_id = TaskId::parse(&id).unwrap();
    let parked = settled(addr, "ada", &id).await;
    let key = outstanding(&parked);
    let parked_at = store.written(&task_id) - 1;
    let ack = update(
        addr,
        "ada",
        &id,
        json!({key.clone(): refunds(&json!(true))}),
    )
    .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let done = settled(addr, "ada", &id).await;
    assert_eq!(done["status"], "completed", "{done}");

    // The writer puts the parked record back, under the version the store
    // holds now: the completed task would be asking again, its result gone.
    *store.served.lock().unwrap() = Some((task_id, parked_at));
    let unknown = get(addr, "ada", "0123456789abcdef0123456789abcdef").await;
    assert_eq!(get(addr, "ada", &id).await, unknown, "rolled back: unknown");
    let again = update(addr, "ada", &id, json!({key: refunds(&json!(false))})).await;
    assert_eq!(
        again["error"]["code"], -32602,
        "no answer reaches it: {again}"
    );

    // Its own record still opens: the task is as it ended.
    *store.served.lock().unwrap() = None;
    assert_eq!(settled(addr, "ada", &id).await, done);
}
