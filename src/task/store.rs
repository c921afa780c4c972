//! The contract of a task store: sealed records under versions, created
//! durably, replaced only over the version read, within caps; and the
//! remembered answers of final rounds.
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

/// The caps on stored tasks: at most `per_principal` for one principal and
/// `total` in the store, counting every task not yet expired nor released
/// (ended).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// Tasks one principal may hold.
    pub per_principal: usize,
    /// Tasks the store may hold.
    pub total: usize,
}

/// A new task: its id, its owner's key (for the caps), its sealed record and
/// when the store may forget it.
#[derive(Debug, Clone, Copy)]
pub struct NewTask<'a> {
    /// The task's id.
    pub id: &'a TaskId,
    /// The key of the principal that created it (never the principal).
    pub owner: PrincipalKey,
    /// The sealed record.
    pub record: &'a [u8],
    /// When the store forgets it.
    pub expires_at: OffsetDateTime,
    /// The caps it is created within.
    pub limits: TaskLimits,
}

/// The version of a task's record when it is created: every replacement
/// over version `v` stores `v + 1`.
pub const CREATED_VERSION: u64 = 1;

/// A record as stored: its bytes and its version, which a replacement must
/// name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The version: [`CREATED_VERSION`] when created, one more with every
    /// replacement. Records are sealed bound to the version they are
    /// stored under, so a store that counted otherwise would open none.
    pub version: u64,
    /// The sealed record.
    pub record: Vec<u8>,
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
///   task [`release`](Self::release)d (ended) no longer counts.
/// - **Expiry**: a record is gone after its `expires_at`.
///
/// Every method takes `now`, the time by the server's clock (its
/// [`Flow`](crate::Flow)'s, which measures its states too): what the store
/// keeps is measured by it. A store that expires keys itself (Redis) keeps
/// each for `expires_at - now`.
/// - **Remembered answers**: [`remember`](Self::remember) keeps a final
///   round's sealed answer until its `expires_at`, [`recall`](Self::recall)
///   finds it.
pub trait TaskStore: Send + Sync + fmt::Debug {
    /// Stores a new task, durably, within its caps.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::PrincipalFull`] or [`TaskStoreError::Full`] at a
    /// cap; [`TaskStoreError::Unavailable`] when the store failed.
    fn create<'a>(&'a self, task: NewTask<'a>, now: OffsetDateTime) -> StoreFuture<'a, ()>;

    /// The task's record and version, or `None` for an id it does not hold
    /// (never created, or expired).
    fn load<'a>(&'a self, id: &'a TaskId, now: OffsetDateTime) -> StoreFuture<'a, Option<Stored>>;

    /// Replaces the record of `id` if its version is still `version`:
    /// `true` when it did, `false` when another write came first (or the
    /// task is gone).
    fn replace<'a>(
        &'a self,
        id: &'a TaskId,
        version: u64,
        record: &'a [u8],
        expires_at: OffsetDateTime,
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

    /// Keeps `answer` (sealed) under `key` until `expires_at`.
    fn remember<'a>(
        &'a self,
        key: &'a [u8; 32],
        answer: &'a [u8],
        expires_at: OffsetDateTime,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, ()>;

    /// The answer kept under `key`, if it is still kept.
    fn recall<'a>(
        &'a self,
        key: &'a [u8; 32],
        now: OffsetDateTime,
    ) -> StoreFuture<'a, Option<Vec<u8>>>;
}
