//! [`MemoryTaskStore`]: the task store of one process.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use time::OffsetDateTime;

use crate::state::PrincipalKey;
use crate::task::error::TaskStoreError;
use crate::task::id::TaskId;
use crate::task::store::{CREATED_VERSION, NewTask, StoreFuture, Stored, TaskStore};

/// The most bytes of remembered answers a [`MemoryTaskStore`] keeps by
/// default (64 MiB): past it, a final round's answer is not remembered.
pub const DEFAULT_REMEMBERED_BYTES: usize = 64 * 1024 * 1024;

/// Tasks in this process's memory: for a server that runs as one instance
/// (every instance of a server needs the same store; several instances
/// share a Redis one). Expired records are dropped as the store is used.
#[derive(Debug)]
pub struct MemoryTaskStore {
    inner: Mutex<Inner>,
    remembered_cap: usize,
}

#[derive(Debug, Default)]
struct Inner {
    /// When expired records were last dropped: at most once a second.
    swept: Option<OffsetDateTime>,
    tasks: HashMap<TaskId, Entry>,
    answers: HashMap<[u8; 32], (Vec<u8>, OffsetDateTime)>,
    answer_bytes: usize,
}

#[derive(Debug)]
struct Entry {
    version: u64,
    record: Vec<u8>,
    owner: PrincipalKey,
    expires_at: OffsetDateTime,
    /// Counted under the caps: until the task is released.
    counted: bool,
}

impl MemoryTaskStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::with_remembered_bytes(DEFAULT_REMEMBERED_BYTES)
    }

    /// An empty store that keeps at most `max` bytes of remembered answers.
    #[must_use]
    pub fn with_remembered_bytes(max: usize) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            remembered_cap: max,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl Inner {
    fn sweep(&mut self, now: OffsetDateTime) {
        if self
            .swept
            .is_some_and(|swept| now.saturating_sub(time::Duration::SECOND) < swept)
        {
            return;
        }
        self.swept = Some(now);
        self.tasks.retain(|_, entry| entry.expires_at > now);
        let mut freed = 0usize;
        self.answers.retain(|_, (answer, expires_at)| {
            let keep = *expires_at > now;
            if !keep {
                freed = freed.saturating_add(answer.len());
            }
            keep
        });
        self.answer_bytes = self.answer_bytes.saturating_sub(freed);
    }
}

fn ready<'a, T: Send + 'a>(value: Result<T, TaskStoreError>) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(&'a self, task: NewTask<'a>, now: OffsetDateTime) -> StoreFuture<'a, ()> {
        let mut inner = self.lock();
        inner.sweep(now);
        let live = || {
            inner
                .tasks
                .values()
                .filter(|entry| entry.counted && entry.expires_at > now)
        };
        if live().count() >= task.limits.total {
            return ready(Err(TaskStoreError::Full));
        }
        let owned = live().filter(|entry| entry.owner == task.owner).count();
        if owned >= task.limits.per_principal {
            return ready(Err(TaskStoreError::PrincipalFull));
        }
        inner.tasks.insert(
            *task.id,
            Entry {
                version: CREATED_VERSION,
                record: task.record.to_vec(),
                owner: task.owner,
                expires_at: task.expires_at,
                counted: true,
            },
        );
        ready(Ok(()))
    }

    fn load<'a>(&'a self, id: &'a TaskId, now: OffsetDateTime) -> StoreFuture<'a, Option<Stored>> {
        let inner = self.lock();
        ready(Ok(inner
            .tasks
            .get(id)
            .filter(|entry| entry.expires_at > now)
            .map(|entry| Stored {
                version: entry.version,
                record: entry.record.clone(),
            })))
    }

    fn replace<'a>(
        &'a self,
        id: &'a TaskId,
        version: u64,
        record: &'a [u8],
        expires_at: OffsetDateTime,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, bool> {
        let mut inner = self.lock();
        let current = inner
            .tasks
            .get(id)
            .is_some_and(|entry| entry.version == version && entry.expires_at > now);
        if !current {
            return ready(Ok(false));
        }
        if let Some(entry) = inner.tasks.get_mut(id) {
            entry.version = version.saturating_add(1);
            entry.record = record.to_vec();
            entry.expires_at = expires_at;
        }
        ready(Ok(true))
    }

    fn release<'a>(
        &'a self,
        id: &'a TaskId,
        _owner: PrincipalKey,
        _now: OffsetDateTime,
    ) -> StoreFuture<'a, ()> {
        if let Some(entry) = self.lock().tasks.get_mut(id) {
            entry.counted = false;
        }
        ready(Ok(()))
    }

    fn remember<'a>(
        &'a self,
        key: &'a [u8; 32],
        answer: &'a [u8],
        expires_at: OffsetDateTime,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, ()> {
        let mut inner = self.lock();
        inner.sweep(now);
        if inner.answer_bytes.saturating_add(answer.len()) <= self.remembered_cap {
            inner.answer_bytes = inner.answer_bytes.saturating_add(answer.len());
            if let Some((old, _)) = inner.answers.insert(*key, (answer.to_vec(), expires_at)) {
                inner.answer_bytes = inner.answer_bytes.saturating_sub(old.len());
            }
        }
        ready(Ok(()))
    }

    fn recall<'a>(
        &'a self,
        key: &'a [u8; 32],
        now: OffsetDateTime,
    ) -> StoreFuture<'a, Option<Vec<u8>>> {
        let inner = self.lock();
        ready(Ok(inner
            .answers
            .get(key)
            .filter(|(_, expires_at)| *expires_at > now)
            .map(|(answer, _)| answer.clone())))
    }
}
