//! Single use: a token's (flow id, round) may be consumed once.
//!
//! The TTL and the binding bound replay; they do not prevent it. A server whose
//! rounds must not run twice (a payment, a one-time redemption) gives its codec
//! a [`ReplayGuard`].

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;
use std::sync::{Mutex, PoisonError};

use time::OffsetDateTime;

use crate::state::claims::FlowId;

/// Records which tokens were used.
///
/// `consume` is called only for a token whose tag, binding, times and round
/// checked out. It must be atomic: of two concurrent calls with the same flow
/// id and round, exactly one succeeds. When the guard cannot tell (its store
/// is down or full), it must fail closed with an error, never accept.
pub trait ReplayGuard: Send + Sync + fmt::Debug {
    /// Marks (flow id, round) as used until `expires_at`, after which the token
    /// no longer opens anyway and the entry may be forgotten.
    ///
    /// # Errors
    ///
    /// [`ReplayError::Replayed`] when the pair was consumed before;
    /// [`ReplayError::Full`] or [`ReplayError::Unavailable`] when the guard
    /// cannot record it.
    fn consume(
        &self,
        flow_id: FlowId,
        round: u32,
        expires_at: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError>;
}

/// Why a replay guard refused a token.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplayError {
    /// The token was used before.
    Replayed,
    /// The guard holds as many live entries as its capacity allows.
    Full {
        /// The guard's capacity.
        capacity: usize,
    },
    /// The guard's store could not be reached or answered in error.
    Unavailable(String),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Replayed => f.write_str("requestState was already used"),
            Self::Full { capacity } => write!(
                f,
                "replay guard is full ({capacity} live entries); refusing rather than forgetting"
            ),
            Self::Unavailable(why) => write!(f, "replay guard unavailable: {why}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// A bounded replay guard for one process.
///
/// Entries are kept until their token expires. When `capacity` entries are
/// live, a new token is refused with [`ReplayError::Full`]: the guard never
/// makes room by forgetting a live entry, which would let that token replay.
/// Size it for the tokens one TTL can mint: at 100 rounds a second and the
/// default 10-minute TTL, 60,000 entries.
///
/// Several server instances need one shared guard instead (a store with an
/// atomic "set if absent with expiry").
///
/// ```
/// use mrtr_guard::{MemoryReplayGuard, ReplayGuard, ReplayError};
/// # use mrtr_guard::{Binding, Contents, KeyRing, MasterKey, Method, StateCodec};
/// # use std::sync::Arc;
/// # use time::{Duration, OffsetDateTime};
/// # let codec = StateCodec::builder("https://mcp.example.com", KeyRing::new(MasterKey::from_bytes(&[9; 32])?))
/// #     .replay_guard(Arc::new(MemoryReplayGuard::new(10_000)))
/// #     .build()?;
/// # let binding = Binding::new("ada", Method::ToolsCall, "ShipOrder", None);
/// # let now = OffsetDateTime::from_unix_timestamp(1_800_000_000)?;
/// # let token = codec.start_at(&binding, &Contents::new(()), now)?;
/// let guard = MemoryReplayGuard::new(10_000);
/// assert_eq!(guard.capacity(), 10_000);
/// // A codec built with `.replay_guard(...)` opens each token once:
/// assert!(codec.open_at::<()>(&token, &binding, now).is_ok());
/// assert!(codec.open_at::<()>(&token, &binding, now).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct MemoryReplayGuard {
    capacity: usize,
    inner: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    live: HashMap<(FlowId, u32), i64>,
    by_expiry: BinaryHeap<Reverse<(i64, FlowId, u32)>>,
}

impl MemoryReplayGuard {
    /// A guard that holds at most `capacity` live entries.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            inner: Mutex::new(Entries::default()),
        }
    }

    /// The most live entries the guard holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The number of entries held now, expired ones included until the next
    /// `consume` sweeps them.
    pub fn len(&self) -> usize {
        self.lock().live.len()
    }

    /// Whether the guard holds no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic elsewhere while holding the lock leaves the maps consistent:
        // every mutation below is a single insert or remove.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ReplayGuard for MemoryReplayGuard {
    fn consume(
        &self,
        flow_id: FlowId,
        round: u32,
        expires_at: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError> {
        let now = now.unix_timestamp();
        let mut entries = self.lock();
        let Entries { live, by_expiry } = &mut *entries;
        // Sweep what has expired; those tokens no longer open.
        while let Some(Reverse((expiry, id, r))) = by_expiry.peek().copied() {
            if expiry > now {
                break;
            }
            by_expiry.pop();
            if live.get(&(id, r)) == Some(&expiry) {
                live.remove(&(id, r));
            }
        }
        if live.contains_key(&(flow_id, round)) {
            return Err(ReplayError::Replayed);
        }
        if live.len() >= self.capacity {
            return Err(ReplayError::Full {
                capacity: self.capacity,
            });
        }
        let expiry = expires_at.unix_timestamp();
        live.insert((flow_id, round), expiry);
        by_expiry.push(Reverse((expiry, flow_id, round)));
        Ok(())
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000 + seconds).unwrap()
    }

    #[test]
    fn each_pair_is_consumed_once() {
        let guard = MemoryReplayGuard::new(10);
        let flow = FlowId::from_bytes([1; 16]);
        assert_eq!(guard.consume(flow, 1, at(600), at(0)), Ok(()));
        assert_eq!(
            guard.consume(flow, 1, at(600), at(1)),
            Err(ReplayError::Replayed)
        );
        assert_eq!(guard.consume(flow, 2, at(600), at(1)), Ok(()));
        assert_eq!(
            guard.consume(FlowId::from_bytes([2; 16]), 1, at(600), at(1)),
            Ok(())
        );
        assert_eq!(guard.len(), 3);
    }

    #[test]
    fn full_guard_refuses_instead_of_forgetting() {
        let guard = MemoryReplayGuard::new(2);
        for n in 0..2u8 {
            assert_eq!(
                guard.consume(FlowId::from_bytes([n; 16]), 1, at(600), at(0)),
                Ok(())
            );
        }
        let third = guard.consume(FlowId::from_bytes([9; 16]), 1, at(600), at(0));
        assert_eq!(third, Err(ReplayError::Full { capacity: 2 }));
        // The live entries still refuse their replays.
        assert_eq!(
            guard.consume(FlowId::from_bytes([0; 16]), 1, at(600), at(0)),
            Err(ReplayError::Replayed)
        );
    }

    #[test]
    fn expired_entries_make_room() {
        let guard = MemoryReplayGuard::new(1);
        assert_eq!(
            guard.consume(FlowId::from_bytes([0; 16]), 1, at(10), at(0)),
            Ok(())
        );
        assert!(
            guard
                .consume(FlowId::from_bytes([1; 16]), 1, at(20), at(9))
                .is_err()
        );
        // At its expiry the first entry is swept and the new one fits.
        assert_eq!(
            guard.consume(FlowId::from_bytes([1; 16]), 1, at(20), at(10)),
            Ok(())
        );
        assert_eq!(guard.len(), 1);
    }

    #[test]
    fn zero_capacity_refuses_everything() {
        let guard = MemoryReplayGuard::new(0);
        assert!(guard.is_empty());
        assert_eq!(
            guard.consume(FlowId::from_bytes([0; 16]), 1, at(10), at(0)),
            Err(ReplayError::Full { capacity: 0 })
        );
    }

    #[test]
    fn messages() {
        assert_eq!(
            ReplayError::Replayed.to_string(),
            "requestState was already used"
        );
        assert_eq!(
            ReplayError::Full { capacity: 3 }.to_string(),
            "replay guard is full (3 live entries); refusing rather than forgetting"
        );
    }
}
