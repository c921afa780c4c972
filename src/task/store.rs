//! The contract of a task store: sealed records (a head and a body) under
//! versions, created durably, replaced only over the version read, within
//! caps of counts and of bytes; and the remembered answers of final rounds.
//!
//! A store keeps bytes it cannot read: every record and answer is sealed
//! with the server's key and bound to its id before it gets here
//! (`mrtr_guard::rmcp`'s task host does it). What a store must guarantee is
//! in [`TaskStore`]; `tests/state/task_store/` holds one contract suite every
//! store runs.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use time::OffsetDateTime;

use crate::state::PrincipalKey;
use crate::task::error::TaskStoreError;
use crate::task::id::TaskId;

/// What a store's methods return: a boxed future, so that a store is a
/// trait object ([`Arc<dyn TaskStore>`](std::sync::Arc)).
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// The caps on what a store holds: counts of live tasks, and bytes.
///
/// A task counts under `per_principal` and `total` until it ends
/// ([`TaskStore::release`]) or expires. Its bytes (its sealed head and body
/// plus [`ENTRY_BYTES`]) and a remembered answer's count under
/// `bytes_per_principal` and `bytes_total` until they expire: an ended
/// task's result is held, and charged, until its TTL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// Live tasks one principal may hold.
    pub per_principal: usize,
    /// Live tasks the store may hold.
    pub total: usize,
    /// Bytes one principal's tasks and remembered answers may take.
    pub bytes_per_principal: usize,
    /// Bytes the store may hold, all principals together.
    pub bytes_total: usize,
}

/// What every entry (a task, a remembered answer) is charged beyond its
/// sealed bytes: what a store spends to keep it (its id, its key, its
/// place in the caps), so that many small entries cost what they take.
pub const ENTRY_BYTES: usize = 512;

/// A new task: its id, its owner's key (for the caps), its sealed head and
/// body, and when the store may forget it.
#[derive(Debug, Clone, Copy)]
pub struct NewTask<'a> {
    /// The task's id.
    pub id: &'a TaskId,
    /// The key of the principal that created it (never the principal).
    pub owner: PrincipalKey,
    /// The sealed head: what `tasks/get` reads (status, questions, result).
    pub head: &'a [u8],
    /// The sealed body: what only a change of the task reads (the call,
    /// its state and answers).
    pub body: &'a [u8],
    /// When the store forgets it.
    pub expires_at: OffsetDateTime,
    /// When the server's sweep should look at the task if nothing changes
    /// it before (the end of its run's lease: a run renews it while it
    /// works); `None` leaves what the store has. A store may take it
    /// before the write lands: a write that then loses or fails leaves the
    /// task due early or late, never missed while it has a run.
    pub due: Option<OffsetDateTime>,
    /// The caps it is created within.
    pub limits: TaskLimits,
}

impl NewTask<'_> {
    /// The bytes it is charged: its head, its body and [`ENTRY_BYTES`].
    #[must_use]
    pub fn charge(&self) -> usize {
        charge(self.head, self.body)
    }
}

/// A replacement of a task's record: written only over `version`, within
/// the byte caps.
#[derive(Debug, Clone, Copy)]
pub struct Replacement<'a> {
    /// The task's id.
    pub id: &'a TaskId,
    /// The key of the principal that created it.
    pub owner: PrincipalKey,
    /// The version read: the replacement is stored as `version + 1`.
    pub version: u64,
    /// The sealed head.
    pub head: &'a [u8],
    /// The sealed body.
    pub body: &'a [u8],
    /// When the store forgets it.
    pub expires_at: OffsetDateTime,
    /// A new end to the task's count under the count caps, when it moves
    /// (`None`: it does not): a task parked on a question no answer can
    /// resume after a time counts until that time, not until its expiry.
    /// A released task no longer counts whatever this says.
    pub counted_until: Option<OffsetDateTime>,
    /// When the server's sweep should look at the task if nothing changes
    /// it before (the end of its run's lease: a run renews it while it
    /// works); `None` leaves what the store has. A store may take it
    /// before the write lands: a write that then loses or fails leaves the
    /// task due early or late, never missed while it has a run.
    pub due: Option<OffsetDateTime>,
    /// The caps it is written within (the byte caps: a replacement that
    /// grows the task past them is refused; one that does not grow it never
    /// is).
    pub limits: TaskLimits,
}

impl Replacement<'_> {
    /// The bytes it is charged: its head, its body and [`ENTRY_BYTES`].
    #[must_use]
    pub fn charge(&self) -> usize {
        charge(self.head, self.body)
    }
}

/// A final round's sealed answer to remember under `key` until
/// `expires_at`, charged to `owner`.
#[derive(Debug, Clone, Copy)]
pub struct Answer<'a> {
    /// What it is kept under.
    pub key: &'a [u8; 32],
    /// The key of the principal whose round it answered.
    pub owner: PrincipalKey,
    /// The sealed answer.
    pub answer: &'a [u8],
    /// When the store forgets it.
    pub expires_at: OffsetDateTime,
    /// The byte caps it is kept within: past them it is not kept.
    pub limits: TaskLimits,
}

impl Answer<'_> {
    /// The bytes it is charged: the answer and [`ENTRY_BYTES`].
    #[must_use]
    pub fn charge(&self) -> usize {
        charge(self.answer, &[])
    }
}

fn charge(head: &[u8], body: &[u8]) -> usize {
    head.len()
        .saturating_add(body.len())
        .saturating_add(ENTRY_BYTES)
}

/// The version of a task's record when it is created: every replacement
/// over version `v` stores `v + 1`.
pub const CREATED_VERSION: u64 = 1;

/// A task as stored: its version, which a replacement must name, and its
/// sealed head and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The version: [`CREATED_VERSION`] when created, one more with every
    /// replacement. Records are sealed bound to the version they are
    /// stored under, so a store that counted otherwise would open none.
    pub version: u64,
    /// The sealed head.
    pub head: Vec<u8>,
    /// The sealed body.
    pub body: Vec<u8>,
}

/// A task's head as stored, without its body: what polling reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredHead {
    /// The version, as [`Stored::version`].
    pub version: u64,
    /// The sealed head.
    pub head: Vec<u8>,
}

/// A task the sweep should look at: its id, and the time it was due at
/// (what [`TaskStore::reschedule`] compares before it moves the entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Due {
    /// The task's id.
    pub id: TaskId,
    /// When it was due, to the millisecond.
    pub at: OffsetDateTime,
}

/// Where a server's tasks live, shared by every instance that serves them.
///
/// What every store guarantees (the contract suite checks each):
///
/// - **Durable creation**: when [`create`](Self::create) resolves, a
///   [`load`](Self::load) of the id on any instance finds it.
/// - **Compare and replace**: [`replace`](Self::replace) writes only over the
///   version it names, atomically, and stores the next one (`v + 1`; a new
///   task is at [`CREATED_VERSION`]); of two writers that read one version,
///   one wins and the other learns it lost. Every change of a task goes
///   through it, which is what makes an answered key resume a task once.
/// - **Read your write**: a `load` after a `replace` resolved sees it.
/// - **Caps**: a create past [`TaskLimits`] is refused, with which cap; a
///   task counts until its expiry, or the `counted_until` its last
///   replacement set; one [`release`](Self::release)d (ended) no longer
///   counts, but its bytes do until it expires.
/// - **Budgets in bytes**: every task and remembered answer is charged what
///   it holds (its `charge()`) until it expires; a create, or a replacement
///   that grows a task, past [`TaskLimits::bytes_per_principal`] or
///   [`TaskLimits::bytes_total`] is refused, with which budget, and changes
///   nothing; a replacement that does not grow a task is never refused. A
///   store may count a task's bytes high for a while (a replacement that
///   lost its race), never low.
/// - **Heads alone**: [`load_head`](Self::load_head) reads a task's head
///   without its body, at the same version.
/// - **Expiry**: a record is gone after its `expires_at`.
///
/// Every method takes `now`, the time by the server's clock (its
/// [`Flow`](crate::Flow)'s, which measures its states too): what the store
/// keeps is measured by it. A store that expires keys itself (Redis) keeps
/// each for `expires_at - now`.
/// - **Remembered answers**: [`remember`](Self::remember) keeps a final
///   round's sealed answer until its `expires_at`, [`recall`](Self::recall)
///   finds it.
/// - **One fleet record**: [`fleet`](Self::fleet) reads what
///   [`set_fleet`](Self::set_fleet) last wrote, on any instance.
/// - **The sweep's index**: a task is due at the `due` its creation or its
///   last replacement gave (kept to the millisecond), until
///   [`reschedule`](Self::reschedule) moves or drops it (only from the
///   time it was read at: a newer `due` stays) or the task expires (a
///   store may list an expired task still: the sweep finds it gone);
///   [`due`](Self::due) lists the tasks due by `now`, soonest first, on
///   any instance. One entry a task: the index is bounded by the caps.
pub trait TaskStore: Send + Sync + fmt::Debug {
    /// Stores a new task, durably, within its caps.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::PrincipalFull`] or [`TaskStoreError::Full`] at a
    /// count cap, [`TaskStoreError::PrincipalOverBudget`] or
    /// [`TaskStoreError::OverBudget`] at a byte cap;
    /// [`TaskStoreError::Unavailable`] when the store failed.
    fn create<'a>(&'a self, task: NewTask<'a>, now: OffsetDateTime) -> StoreFuture<'a, ()>;

    /// The task's head, body and version, or `None` for an id it does not
    /// hold (never created, or expired).
    fn load<'a>(&'a self, id: &'a TaskId, now: OffsetDateTime) -> StoreFuture<'a, Option<Stored>>;

    /// The task's head and version, without its body: what `tasks/get`
    /// and a running task's checks read.
    fn load_head<'a>(
        &'a self,
        id: &'a TaskId,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, Option<StoredHead>>;

    /// Replaces the head and body of a task if its version is still the
    /// one read: `true` when it did, `false` when another write came first
    /// (or the task is gone).
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::PrincipalOverBudget`] or
    /// [`TaskStoreError::OverBudget`] when it would grow the task past a
    /// byte cap (nothing written); [`TaskStoreError::Unavailable`] when the
    /// store failed.
    fn replace<'a>(
        &'a self,
        replacement: Replacement<'a>,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, bool>;

    /// Gives back the place the task `id` of `owner` takes under the caps:
    /// it has ended. Its record stays, for [`load`](Self::load), until its
    /// expiry. Releasing again, or an id the store does not hold, is no
    /// error.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::Unavailable`] when the store failed.
    fn release<'a>(
        &'a self,
        id: &'a TaskId,
        owner: PrincipalKey,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, ()>;

    /// Keeps the sealed `answer` under its key until its expiry, within
    /// the byte caps.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::PrincipalOverBudget`] or
    /// [`TaskStoreError::OverBudget`] past a byte cap (not kept);
    /// [`TaskStoreError::Unavailable`] when the store failed.
    fn remember<'a>(&'a self, answer: Answer<'a>, now: OffsetDateTime) -> StoreFuture<'a, ()>;

    /// The answer kept under `key`, if it is still kept.
    fn recall<'a>(
        &'a self,
        key: &'a [u8; 32],
        now: OffsetDateTime,
    ) -> StoreFuture<'a, Option<Vec<u8>>>;

    /// The fleet record: what the instances sharing this store must agree
    /// on (the audience, the mode, the key they seal with: no secret), as
    /// the last instance that agreed with it wrote it; `None` before any.
    fn fleet(&self) -> StoreFuture<'_, Option<Vec<u8>>>;

    /// Writes the fleet record (kept until it is written again).
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::Unavailable`] when the store failed.
    fn set_fleet<'a>(&'a self, record: &'a [u8]) -> StoreFuture<'a, ()>;

    /// At most `limit` of the tasks due by `now`, soonest first: those the
    /// sweep looks at (a task whose run may be lost).
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::Unavailable`] when the store failed.
    fn due(&self, now: OffsetDateTime, limit: usize) -> StoreFuture<'_, Vec<Due>>;

    /// Moves the task of `due` to be due at `at` (`None`: no longer due),
    /// only if it is still due at `due.at`: a `due` a write gave since
    /// stays.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::Unavailable`] when the store failed.
    fn reschedule(&self, due: Due, at: Option<OffsetDateTime>) -> StoreFuture<'_, ()>;
}
