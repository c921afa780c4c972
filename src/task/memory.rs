//! [`MemoryTaskStore`]: the task store of one process.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard, PoisonError};

use time::OffsetDateTime;

use crate::state::PrincipalKey;
use crate::task::error::TaskStoreError;
use crate::task::id::TaskId;
use crate::task::millis::to_the_millisecond;
use crate::task::store::{
    Answer, CREATED_VERSION, Due, NewTask, Replacement, StoreFuture, Stored, StoredHead,
    TaskLimits, TaskStore,
};

/// Tasks in this process's memory: for a server that runs as one instance
/// (every instance of a server needs the same store; several instances
/// share a Redis one). What it holds is charged as [`TaskStore`] says, to
/// the byte: an expired entry is dropped, and its bytes given back, at the
/// next call.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// The fleet record.
    fleet: Option<Vec<u8>>,
    tasks: HashMap<TaskId, Entry>,
    answers: HashMap<[u8; 32], Kept>,
    /// Every entry by its expiry, soonest first.
    expiries: BTreeSet<(OffsetDateTime, Slot)>,
    /// The sweep's index: tasks by the time they are due, soonest first
    /// (each task's time also in its entry's `due`).
    dues: BTreeSet<(OffsetDateTime, TaskId)>,
    /// Live tasks, by owner and in all.
    live: Tally,
    /// Bytes held, by owner and in all.
    bytes: Tally,
}

/// An entry's place in the expiry index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Task(TaskId),
    /// The end of a task's count under the count caps.
    Count(TaskId),
    Answer([u8; 32]),
}

#[derive(Debug)]
struct Entry {
    version: u64,
    head: Vec<u8>,
    body: Vec<u8>,
    owner: PrincipalKey,
    expires_at: OffsetDateTime,
    /// The bytes it is charged.
    charge: usize,
    /// Counted under the count caps: until the task is released, or
    /// `counted_until`.
    counted: bool,
    counted_until: OffsetDateTime,
    /// When the sweep should look at it, if it is due.
    due: Option<OffsetDateTime>,
}

#[derive(Debug)]
struct Kept {
    answer: Vec<u8>,
    owner: PrincipalKey,
    expires_at: OffsetDateTime,
    charge: usize,
}

/// Counts by owner and in all.
#[derive(Debug, Default)]
struct Tally {
    by_owner: HashMap<PrincipalKey, usize>,
    all: usize,
}

impl Tally {
    fn of(&self, owner: PrincipalKey) -> usize {
        self.by_owner.get(&owner).copied().unwrap_or(0)
    }

    /// Whether `more` fits under `per_owner` and `all` for `owner`: the
    /// refusal names the cap it would pass, the total first.
    fn fits(&self, owner: PrincipalKey, more: usize, per_owner: usize, all: usize) -> Fit {
        if more == 0 {
            Fit::Yes
        } else if self.all.saturating_add(more) > all {
            Fit::NotInAll
        } else if self.of(owner).saturating_add(more) > per_owner {
            Fit::NotForOwner
        } else {
            Fit::Yes
        }
    }

    fn add(&mut self, owner: PrincipalKey, n: usize) {
        self.all = self.all.saturating_add(n);
        let mine = self.by_owner.entry(owner).or_default();
        *mine = mine.saturating_add(n);
    }

    fn sub(&mut self, owner: PrincipalKey, n: usize) {
        self.all = self.all.saturating_sub(n);
        if let Some(mine) = self.by_owner.get_mut(&owner) {
            *mine = mine.saturating_sub(n);
            if *mine == 0 {
                self.by_owner.remove(&owner);
            }
        }
    }
}

enum Fit {
    Yes,
    NotForOwner,
    NotInAll,
}

impl Fit {
    fn counts(self) -> Result<(), TaskStoreError> {
        match self {
            Self::Yes => Ok(()),
            Self::NotForOwner => Err(TaskStoreError::PrincipalFull),
            Self::NotInAll => Err(TaskStoreError::Full),
        }
    }

    fn bytes(self) -> Result<(), TaskStoreError> {
        match self {
            Self::Yes => Ok(()),
            Self::NotForOwner => Err(TaskStoreError::PrincipalOverBudget),
            Self::NotInAll => Err(TaskStoreError::OverBudget),
        }
    }
}

impl MemoryTaskStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self, now: OffsetDateTime) -> MutexGuard<'_, Inner> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.drop_expired(now);
        inner
    }
}

impl Inner {
    /// Drops every entry expired at `now`, giving back what it held.
    fn drop_expired(&mut self, now: OffsetDateTime) {
        while let Some(&(at, slot)) = self.expiries.first() {
            if at > now {
                break;
            }
            self.expiries.pop_first();
            match slot {
                Slot::Task(id) => {
                    if let Some(entry) = self.tasks.remove(&id) {
                        if let Some(due) = entry.due {
                            self.dues.remove(&(due, id));
                        }
                        self.bytes.sub(entry.owner, entry.charge);
                        if entry.counted {
                            self.live.sub(entry.owner, 1);
                        }
                    }
                }
                Slot::Count(id) => {
                    let ended = self.tasks.get_mut(&id).and_then(|entry| {
                        let ends = entry.counted && entry.counted_until == at;
                        entry.counted &= !ends;
                        ends.then_some(entry.owner)
                    });
                    if let Some(owner) = ended {
                        self.live.sub(owner, 1);
                    }
                }
                Slot::Answer(key) => {
                    if let Some(kept) = self.answers.remove(&key) {
                        self.bytes.sub(kept.owner, kept.charge);
                    }
                }
            }
        }
    }

    /// Makes the task `id` due at `at` (`None`: not due).
    fn set_due(&mut self, id: TaskId, at: Option<OffsetDateTime>) {
        let at = at.map(to_the_millisecond);
        let Some(entry) = self.tasks.get_mut(&id) else {
            return;
        };
        if let Some(old) = std::mem::replace(&mut entry.due, at) {
            self.dues.remove(&(old, id));
        }
        if let Some(at) = at {
            self.dues.insert((at, id));
        }
    }

    /// Whether `owner` may hold `more` bytes more within `limits`.
    fn budget(
        &self,
        owner: PrincipalKey,
        more: usize,
        limits: TaskLimits,
    ) -> Result<(), TaskStoreError> {
        self.bytes
            .fits(owner, more, limits.bytes_per_principal, limits.bytes_total)
            .bytes()
    }
}

fn ready<'a, T: Send + 'a>(value: Result<T, TaskStoreError>) -> StoreFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

impl TaskStore for MemoryTaskStore {
    fn create<'a>(&'a self, task: NewTask<'a>, now: OffsetDateTime) -> StoreFuture<'a, ()> {
        let mut inner = self.lock(now);
        let limits = task.limits;
        let charge = task.charge();
        let admitted = inner
            .live
            .fits(task.owner, 1, limits.per_principal, limits.total)
            .counts()
            .and_then(|()| inner.budget(task.owner, charge, limits));
        if let Err(refused) = admitted {
            return ready(Err(refused));
        }
        if inner.tasks.contains_key(task.id) {
            return ready(Err(TaskStoreError::Unavailable(
                "a task with this id exists".into(),
            )));
        }
        inner.live.add(task.owner, 1);
        inner.bytes.add(task.owner, charge);
        inner
            .expiries
            .insert((task.expires_at, Slot::Task(*task.id)));
        inner
            .expiries
            .insert((task.expires_at, Slot::Count(*task.id)));
        inner.tasks.insert(
            *task.id,
            Entry {
                version: CREATED_VERSION,
                head: task.head.to_vec(),
                body: task.body.to_vec(),
                owner: task.owner,
                expires_at: task.expires_at,
                charge,
                counted: true,
                counted_until: task.expires_at,
                due: None,
            },
        );
        if task.due.is_some() {
            inner.set_due(*task.id, task.due);
        }
        ready(Ok(()))
    }

    fn load<'a>(&'a self, id: &'a TaskId, now: OffsetDateTime) -> StoreFuture<'a, Option<Stored>> {
        let inner = self.lock(now);
        ready(Ok(inner.tasks.get(id).map(|entry| Stored {
            version: entry.version,
            head: entry.head.clone(),
            body: entry.body.clone(),
        })))
    }

    fn load_head<'a>(
        &'a self,
        id: &'a TaskId,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, Option<StoredHead>> {
        let inner = self.lock(now);
        ready(Ok(inner.tasks.get(id).map(|entry| StoredHead {
            version: entry.version,
            head: entry.head.clone(),
        })))
    }

    fn replace<'a>(
        &'a self,
        replacement: Replacement<'a>,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, bool> {
        let mut inner = self.lock(now);
        let Some(entry) = inner.tasks.get(replacement.id) else {
            return ready(Ok(false));
        };
        if entry.version != replacement.version {
            return ready(Ok(false));
        }
        let (owner, old_charge, old_expiry) = (entry.owner, entry.charge, entry.expires_at);
        let old_count = entry.counted.then_some(entry.counted_until);
        let charge = replacement.charge();
        if let Err(refused) =
            inner.budget(owner, charge.saturating_sub(old_charge), replacement.limits)
        {
            return ready(Err(refused));
        }
        inner.bytes.sub(owner, old_charge);
        inner.bytes.add(owner, charge);
        let slot = Slot::Task(*replacement.id);
        inner.expiries.remove(&(old_expiry, slot));
        inner.expiries.insert((replacement.expires_at, slot));
        let count = Slot::Count(*replacement.id);
        if let (Some(old), Some(new)) = (old_count, replacement.counted_until) {
            inner.expiries.remove(&(old, count));
            inner.expiries.insert((new, count));
        }
        if let Some(entry) = inner.tasks.get_mut(replacement.id) {
            if let Some(until) = replacement.counted_until {
                entry.counted_until = until;
            }
            entry.version = replacement.version.saturating_add(1);
            entry.head = replacement.head.to_vec();
            entry.body = replacement.body.to_vec();
            entry.expires_at = replacement.expires_at;
            entry.charge = charge;
        }
        if replacement.due.is_some() {
            inner.set_due(*replacement.id, replacement.due);
        }
        ready(Ok(true))
    }

    fn release<'a>(
        &'a self,
        id: &'a TaskId,
        _owner: PrincipalKey,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, ()> {
        let mut inner = self.lock(now);
        let released = inner.tasks.get_mut(id).and_then(|entry| {
            let owner = entry.counted.then_some(entry.owner);
            entry.counted = false;
            owner
        });
        if let Some(owner) = released {
            inner.live.sub(owner, 1);
        }
        ready(Ok(()))
    }

    fn remember<'a>(&'a self, answer: Answer<'a>, now: OffsetDateTime) -> StoreFuture<'a, ()> {
        let mut inner = self.lock(now);
        let charge = answer.charge();
        let old = inner.answers.get(answer.key).map_or(0, |kept| kept.charge);
        if let Err(refused) = inner.budget(answer.owner, charge.saturating_sub(old), answer.limits)
        {
            return ready(Err(refused));
        }
        let slot = Slot::Answer(*answer.key);
        if let Some(old) = inner.answers.remove(answer.key) {
            inner.bytes.sub(old.owner, old.charge);
            inner.expiries.remove(&(old.expires_at, slot));
        }
        inner.bytes.add(answer.owner, charge);
        inner.expiries.insert((answer.expires_at, slot));
        inner.answers.insert(
            *answer.key,
            Kept {
                answer: answer.answer.to_vec(),
                owner: answer.owner,
                expires_at: answer.expires_at,
                charge,
            },
        );
        ready(Ok(()))
    }

    fn recall<'a>(
        &'a self,
        key: &'a [u8; 32],
        now: OffsetDateTime,
    ) -> StoreFuture<'a, Option<Vec<u8>>> {
        let inner = self.lock(now);
        ready(Ok(inner.answers.get(key).map(|kept| kept.answer.clone())))
    }

    fn fleet(&self) -> StoreFuture<'_, Option<Vec<u8>>> {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        ready(Ok(inner.fleet.clone()))
    }

    fn set_fleet<'a>(&'a self, record: &'a [u8]) -> StoreFuture<'a, ()> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.fleet = Some(record.to_vec());
        ready(Ok(()))
    }

    fn due(&self, now: OffsetDateTime, limit: usize) -> StoreFuture<'_, Vec<Due>> {
        let inner = self.lock(now);
        let due = inner
            .dues
            .iter()
            .take_while(|(at, _)| *at <= now)
            .take(limit)
            .map(|&(at, id)| Due { id, at })
            .collect();
        ready(Ok(due))
    }

    fn reschedule(&self, due: Due, at: Option<OffsetDateTime>) -> StoreFuture<'_, ()> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let still = inner
            .tasks
            .get(&due.id)
            .is_some_and(|entry| entry.due == Some(to_the_millisecond(due.at)));
        if still {
            inner.set_due(due.id, at);
        }
        ready(Ok(()))
    }
}
