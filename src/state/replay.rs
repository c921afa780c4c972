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
///
/// The codec passes `retain_until`, the token's expiry plus its policy's
/// [`skew`](crate::state::Policy::skew): an instance whose clock runs up to the skew
/// behind the one that consumed the token still opens it until then, so the
/// entry must live at least that long. (Before 0.1 was released this argument
/// was the bare expiry; implementations that stored it unchanged forgot
/// entries up to one skew too early.)
pub trait ReplayGuard: Send + Sync + fmt::Debug {
    /// Marks (flow id, round) as used until `retain_until`, after which no
    /// instance within the skew opens the token and the entry may be
    /// forgotten. `now` is the caller's clock, which may differ from other
    /// callers' and may step backwards.
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
        retain_until: OffsetDateTime,
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
/// Entries are kept until their retention time (the token's expiry plus the
/// skew) has passed by the latest clock reading the guard has seen. The
/// guard never moves that reading backwards: a caller whose clock runs
/// behind, or a clock stepped back, cannot make it forget, and a caller whose
/// clock runs ahead cannot sweep an entry between another caller's time check
/// and its insert. A token whose retention has already passed by that
/// reading is refused as [`ReplayError::Replayed`]: the guard may have
/// forgotten its use. The check and the insert happen under one lock.
///
/// When `capacity` entries are live, a new token is refused with
/// [`ReplayError::Full`]: the guard never makes room by forgetting a live
/// entry, which would let that token replay. Size it for the tokens one TTL
/// plus the skew can mint: at 100 rounds a second, the default 10-minute TTL
/// and 60-second skew, 66,000 entries.
///
/// Several server instances need one shared guard instead (a store with an
/// atomic "set if absent with expiry").
///
/// ```
/// use mrtr_guard::{MemoryReplayGuard, ReplayGuard};
/// use mrtr_guard::state::ReplayError;
/// # use mrtr_guard::{Binding, StateContents, KeyRing, MasterKey, Method, StateCodec};
/// # use std::sync::Arc;
/// # use time::{Duration, OffsetDateTime};
/// # let codec = StateCodec::builder("https://mcp.example.com", KeyRing::new(MasterKey::from_bytes(&[9; 32])?))
/// #     .replay_guard(Arc::new(MemoryReplayGuard::new(10_000)))
/// #     .build()?;
/// # let binding = Binding::new("ada", Method::ToolsCall, "ShipOrder", None);
/// # let now = OffsetDateTime::from_unix_timestamp(1_800_000_000)?;
/// # let token = codec.start_at(&binding, &StateContents::new(()), now)?;
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

#[derive(Debug)]
struct Entries {
    /// (flow id, round) -> retention, in Unix seconds.
    live: HashMap<(FlowId, u32), i64>,
    by_retention: BinaryHeap<Reverse<(i64, FlowId, u32)>>,
    /// The latest `now` any caller passed, in Unix seconds: entries whose
    /// retention is not after it may be gone.
    high_water: i64,
}

impl MemoryReplayGuard {
    /// A guard that holds at most `capacity` live entries.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            inner: Mutex::new(Entries {
                live: HashMap::new(),
                by_retention: BinaryHeap::new(),
                high_water: i64::MIN,
            }),
        }
    }

    /// The most live entries the guard holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The number of entries held now, those past their retention included
    /// until the next `consume` sweeps them.
    pub fn len(&self) -> usize {
        self.lock().live.len()
    }

    /// Whether the guard holds no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic elsewhere while holding the lock leaves the maps consistent:
        // every mutation below is a single insert, remove or max.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Entries {
    /// Moves the high-water clock forward to `now` (never back) and forgets
    /// the entries whose retention it has reached.
    fn sweep(&mut self, now: i64) {
        self.high_water = self.high_water.max(now);
        while let Some(Reverse((retention, id, r))) = self.by_retention.peek().copied() {
            if retention > self.high_water {
                break;
            }
            self.by_retention.pop();
            if self.live.get(&(id, r)) == Some(&retention) {
                self.live.remove(&(id, r));
            }
        }
    }
}

impl ReplayGuard for MemoryReplayGuard {
    fn consume(
        &self,
        flow_id: FlowId,
        round: u32,
        retain_until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError> {
        let retention = retain_until.unix_timestamp();
        let mut entries = self.lock();
        entries.sweep(now.unix_timestamp());
        // Past its retention by the latest clock seen, the pair may have been
        // swept already: its absence proves nothing.
        if retention <= entries.high_water || entries.live.contains_key(&(flow_id, round)) {
            return Err(ReplayError::Replayed);
        }
        if entries.live.len() >= self.capacity {
            return Err(ReplayError::Full {
                capacity: self.capacity,
            });
        }
        entries.live.insert((flow_id, round), retention);
        entries
            .by_retention
            .push(Reverse((retention, flow_id, round)));
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
    fn entries_past_their_retention_make_room() {
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
        // At its retention the first entry is swept and the new one fits.
        assert_eq!(
            guard.consume(FlowId::from_bytes([1; 16]), 1, at(20), at(10)),
            Ok(())
        );
        assert_eq!(guard.len(), 1);
    }

    #[test]
    fn an_earlier_clock_neither_sweeps_nor_reopens() {
        let guard = MemoryReplayGuard::new(10);
        let flow = FlowId::from_bytes([1; 16]);
        assert_eq!(guard.consume(flow, 1, at(100), at(0)), Ok(()));
        // A later clock moves the high-water mark to +50; an earlier one
        // afterwards does not move it back.
        let other = FlowId::from_bytes([2; 16]);
        assert_eq!(guard.consume(other, 1, at(200), at(50)), Ok(()));
        assert_eq!(
            guard.consume(flow, 1, at(100), at(1)),
            Err(ReplayError::Replayed)
        );
        // Swept at +100 by the latest clock, the pair stays refused for an
        // earlier clock: its retention has passed.
        assert_eq!(guard.consume(other, 2, at(300), at(100)), Ok(()));
        assert_eq!(guard.len(), 2, "the first entry was swept");
        assert_eq!(
            guard.consume(flow, 1, at(100), at(2)),
            Err(ReplayError::Replayed)
        );
        assert_eq!(guard.len(), 2, "and not inserted again");
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
