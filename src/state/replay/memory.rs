//! The replay guard for one process: bounded, with a share per principal.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Mutex, PoisonError};

use time::OffsetDateTime;

use crate::state::claims::FlowId;
use crate::state::generation::Generation;
use crate::state::replay::error::ReplayError;
use crate::state::replay::guard::{AsyncReplayGuard, ConsumeFuture, ReplayGuard, TokenUse};
use crate::state::replay::principal::PrincipalKey;

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
/// # A restarted process
///
/// The guard's memory is its process' (its instance's): each guard draws a
/// random [`Generation`] when it is made, its codec writes it into every
/// token, and the guard refuses a token of another generation
/// ([`ReplayError::GenerationChanged`]) or of none
/// ([`ReplayError::NoGeneration`]). So a process restarted (a deploy, a
/// crash loop) reopens nothing its previous run consumed; the flows in
/// flight across the restart start over. No clock takes part.
///
/// When `capacity` entries are live, a new token is refused with
/// [`ReplayError::Full`]: the guard never makes room by forgetting a live
/// entry, which would let that token replay.
///
/// # Fair shares
///
/// One principal holds at most [`principal_share`](Self::principal_share)
/// live entries (by the codec's [`PrincipalKey`], never the principal
/// itself); past it, its tokens are refused with
/// [`ReplayError::ShareExceeded`] (reason `replay_share_exceeded`, its own
/// `tracing` event; the client sees the usual `-32602`) while every other
/// principal's still open. So one client looping "round 1, then round 2
/// with no answer" fills its share, not the guard: it takes
/// `capacity / share` principals to fill it. The default share is a tenth
/// of the capacity, and never less than 64 entries (or the whole capacity,
/// when that is smaller); [`with_principal_share`](Self::with_principal_share)
/// sets another. Anonymous calls share one principal key, so one share.
///
/// # Sizing
///
/// An entry lives for the TTL plus the skew after its round was minted
/// (`L`, 660 s by default). Size from legitimate peaks, not averages:
///
/// - `capacity >= R x L`, with `R` the peak rate of rounds opened (round 2
///   and later) across all principals, per second;
/// - `share >= r x L`, with `r` the peak rate one legitimate principal
///   opens rounds at, per second; a service account that fronts many
///   users needs its own, larger share (a guard of its own).
///
/// Worked example: 100 rounds/s at peak, default policy (`L` = 600 + 60 s):
/// `capacity = 100 x 660 = 66,000`. A person answers at most a round every
/// 5 seconds at their busiest (`r = 0.2`): `share >= 0.2 x 660 = 132`;
/// with room for bursts, 500. Then one abusive principal holds 500 of the
/// 66,000 entries; filling the guard takes 132 accounts. An entry costs
/// about 100 bytes, so 66,000 take some 7 MB. [`len`](Self::len),
/// [`capacity`](Self::capacity) and [`principals`](Self::principals) are
/// there for metrics: alert well before `len` nears `capacity`.
///
/// Several server instances need one shared guard instead (a store with an
/// atomic "set if absent with expiry"; feature `redis`:
/// `mrtr_guard::redis::RedisReplayGuard`).
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
/// let guard = MemoryReplayGuard::new(66_000).with_principal_share(500);
/// assert_eq!((guard.capacity(), guard.principal_share()), (66_000, 500));
/// // A codec built with `.replay_guard(...)` opens each token once:
/// assert!(codec.open_at::<()>(&token, &binding, now).is_ok());
/// assert!(codec.open_at::<()>(&token, &binding, now).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct MemoryReplayGuard {
    capacity: usize,
    share: usize,
    /// Drawn when the guard is made; `None` when the generator failed, and
    /// then every token is refused.
    generation: Option<Generation>,
    inner: Mutex<Entries>,
}

#[derive(Debug)]
struct Entries {
    /// (flow id, round) -> retention, in Unix seconds, and who consumed it.
    live: HashMap<(FlowId, u32), (i64, PrincipalKey)>,
    by_retention: BinaryHeap<Reverse<(i64, FlowId, u32)>>,
    /// Live entries per principal (absent: none).
    per_principal: HashMap<PrincipalKey, usize>,
    /// The latest `now` any caller passed, in Unix seconds: entries whose
    /// retention is not after it may be gone.
    high_water: i64,
}

impl MemoryReplayGuard {
    /// The least default share, in entries (unless the capacity is smaller).
    pub const MIN_DEFAULT_SHARE: usize = 64;

    /// A guard that holds at most `capacity` live entries, a tenth of them
    /// (at least [`MIN_DEFAULT_SHARE`](Self::MIN_DEFAULT_SHARE), at most
    /// `capacity`) for any one principal.
    pub fn new(capacity: usize) -> Self {
        let share = (capacity / 10).max(Self::MIN_DEFAULT_SHARE).min(capacity);
        Self {
            capacity,
            share,
            generation: Generation::random(),
            inner: Mutex::new(Entries {
                live: HashMap::new(),
                by_retention: BinaryHeap::new(),
                per_principal: HashMap::new(),
                high_water: i64::MIN,
            }),
        }
    }

    /// Lets one principal hold at most `share` live entries (see the
    /// type's docs for sizing). A share of the whole capacity or more
    /// turns fair shares off.
    #[must_use]
    pub fn with_principal_share(mut self, share: usize) -> Self {
        self.share = share;
        self
    }

    /// The guard with `generation` instead of the one it drew: for the
    /// known-answer vectors, whose tokens carry a fixed one.
    #[cfg(test)]
    pub(crate) fn with_fixed_generation(mut self, generation: Option<Generation>) -> Self {
        self.generation = generation;
        self
    }

    /// The most live entries the guard holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The most live entries one principal holds.
    pub fn principal_share(&self) -> usize {
        self.share
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

    /// The number of principals holding entries now (as [`len`](Self::len)
    /// counts them).
    pub fn principals(&self) -> usize {
        self.lock().per_principal.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic elsewhere while holding the lock leaves the maps consistent:
        // every mutation below is a single insert, remove or max, and a
        // principal's count moves with its entry's insert or remove.
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
            let Some(&(held, principal)) = self.live.get(&(id, r)) else {
                continue;
            };
            if held != retention {
                continue;
            }
            self.live.remove(&(id, r));
            if let Some(count) = self.per_principal.get_mut(&principal) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    self.per_principal.remove(&principal);
                }
            }
        }
    }
}

/// The guard lives and dies with its process: it vouches only for tokens
/// minted under its own generation, so it reads no issue time.
impl ReplayGuard for MemoryReplayGuard {
    fn consume(&self, token: TokenUse, now: OffsetDateTime) -> Result<(), ReplayError> {
        let TokenUse {
            principal,
            flow_id,
            round,
            retain_until,
            generation,
            ..
        } = token;
        match (generation, self.generation) {
            (None, _) | (Some(_), None) => return Err(ReplayError::NoGeneration),
            (Some(token), Some(mine)) if token != mine => {
                return Err(ReplayError::GenerationChanged);
            }
            (Some(_), Some(_)) => {}
        }
        let retention = retain_until.unix_timestamp();
        let mut entries = self.lock();
        entries.sweep(now.unix_timestamp());
        // Past its retention by the latest clock seen, the pair may have been
        // swept already: its absence proves nothing.
        if retention <= entries.high_water || entries.live.contains_key(&(flow_id, round)) {
            return Err(ReplayError::Replayed);
        }
        // A full guard is the operator's problem and says so first.
        if entries.live.len() >= self.capacity {
            return Err(ReplayError::Full {
                capacity: self.capacity,
            });
        }
        let held = entries.per_principal.get(&principal).copied().unwrap_or(0);
        if held >= self.share {
            return Err(ReplayError::ShareExceeded { share: self.share });
        }
        entries
            .live
            .insert((flow_id, round), (retention, principal));
        let held = entries.per_principal.entry(principal).or_insert(0);
        *held = held.saturating_add(1);
        entries
            .by_retention
            .push(Reverse((retention, flow_id, round)));
        Ok(())
    }

    fn generation(&self, _: FlowId) -> Option<Generation> {
        self.generation
    }

    fn as_async(&self) -> Option<&dyn AsyncReplayGuard> {
        Some(self)
    }
}

/// The memory guard never waits on I/O: its async face answers at once.
impl AsyncReplayGuard for MemoryReplayGuard {
    fn consume(&self, token: TokenUse, now: OffsetDateTime) -> ConsumeFuture<'_> {
        let result = ReplayGuard::consume(self, token, now);
        Box::pin(std::future::ready(result))
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use time::OffsetDateTime;

    use super::MemoryReplayGuard;
    use crate::state::claims::FlowId;
    use crate::state::generation::Generation;
    use crate::state::replay::error::ReplayError;
    use crate::state::replay::guard::{ReplayGuard, TokenUse};
    use crate::state::replay::principal::PrincipalKey;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000 + seconds).unwrap()
    }

    /// The use of (flow id, round) by `principal`, kept until `retain_until`,
    /// of a token minted under the generation every test guard shares.
    fn entry(
        principal: PrincipalKey,
        flow: FlowId,
        round: u32,
        retain_until: OffsetDateTime,
    ) -> TokenUse {
        TokenUse::new(
            principal,
            flow,
            round,
            at(0),
            time::Duration::ZERO,
            retain_until,
        )
        .with_generation(Some(GENERATION))
    }

    const GENERATION: Generation = Generation::from_bytes([3; 8]);

    /// A guard of `capacity` whose generation is [`GENERATION`].
    fn guard(capacity: usize) -> MemoryReplayGuard {
        MemoryReplayGuard::new(capacity).with_fixed_generation(Some(GENERATION))
    }

    #[test]
    fn a_token_of_another_generation_or_of_none_is_refused_unrecorded() {
        let guard = guard(10);
        let flow = FlowId::from_bytes([1; 16]);
        let other =
            entry(anyone(), flow, 1, at(600)).with_generation(Some(Generation::from_bytes([4; 8])));
        assert_eq!(
            guard.consume(other, at(0)),
            Err(ReplayError::GenerationChanged)
        );
        let none = entry(anyone(), flow, 1, at(600)).with_generation(None);
        assert_eq!(guard.consume(none, at(0)), Err(ReplayError::NoGeneration));
        assert!(guard.is_empty());
        assert_eq!(
            guard.consume(entry(anyone(), flow, 1, at(600)), at(0)),
            Ok(())
        );
        // Two guards are two memories: each draws its own generation.
        assert_ne!(
            MemoryReplayGuard::new(1).generation(flow),
            MemoryReplayGuard::new(1).generation(flow)
        );
    }

    /// The principal of the tests that are not about shares.
    fn anyone() -> PrincipalKey {
        PrincipalKey::from_bytes([0; 16])
    }

    #[test]
    fn each_pair_is_consumed_once() {
        let guard = guard(10);
        let flow = FlowId::from_bytes([1; 16]);
        assert_eq!(
            guard.consume(entry(anyone(), flow, 1, at(600)), at(0)),
            Ok(())
        );
        assert_eq!(
            guard.consume(entry(anyone(), flow, 1, at(600)), at(1)),
            Err(ReplayError::Replayed)
        );
        assert_eq!(
            guard.consume(entry(anyone(), flow, 2, at(600)), at(1)),
            Ok(())
        );
        assert_eq!(
            guard.consume(
                entry(anyone(), FlowId::from_bytes([2; 16]), 1, at(600)),
                at(1)
            ),
            Ok(())
        );
        assert_eq!(guard.len(), 3);
    }

    #[test]
    fn full_guard_refuses_instead_of_forgetting() {
        let guard = guard(2);
        for n in 0..2u8 {
            assert_eq!(
                guard.consume(
                    entry(anyone(), FlowId::from_bytes([n; 16]), 1, at(600)),
                    at(0)
                ),
                Ok(())
            );
        }
        let third = guard.consume(
            entry(anyone(), FlowId::from_bytes([9; 16]), 1, at(600)),
            at(0),
        );
        assert_eq!(third, Err(ReplayError::Full { capacity: 2 }));
        // The live entries still refuse their replays.
        assert_eq!(
            guard.consume(
                entry(anyone(), FlowId::from_bytes([0; 16]), 1, at(600)),
                at(0)
            ),
            Err(ReplayError::Replayed)
        );
    }

    #[test]
    fn entries_past_their_retention_make_room() {
        let guard = guard(1);
        assert_eq!(
            guard.consume(
                entry(anyone(), FlowId::from_bytes([0; 16]), 1, at(10)),
                at(0)
            ),
            Ok(())
        );
        assert!(
            guard
                .consume(
                    entry(anyone(), FlowId::from_bytes([1; 16]), 1, at(20)),
                    at(9)
                )
                .is_err()
        );
        // At its retention the first entry is swept and the new one fits.
        assert_eq!(
            guard.consume(
                entry(anyone(), FlowId::from_bytes([1; 16]), 1, at(20)),
                at(10)
            ),
            Ok(())
        );
        assert_eq!(guard.len(), 1);
    }

    #[test]
    fn an_earlier_clock_neither_sweeps_nor_reopens() {
        let guard = guard(10);
        let flow = FlowId::from_bytes([1; 16]);
        assert_eq!(
            guard.consume(entry(anyone(), flow, 1, at(100)), at(0)),
            Ok(())
        );
        // A later clock moves the high-water mark to +50; an earlier one
        // afterwards does not move it back.
        let other = FlowId::from_bytes([2; 16]);
        assert_eq!(
            guard.consume(entry(anyone(), other, 1, at(200)), at(50)),
            Ok(())
        );
        assert_eq!(
            guard.consume(entry(anyone(), flow, 1, at(100)), at(1)),
            Err(ReplayError::Replayed)
        );
        // Swept at +100 by the latest clock, the pair stays refused for an
        // earlier clock: its retention has passed.
        assert_eq!(
            guard.consume(entry(anyone(), other, 2, at(300)), at(100)),
            Ok(())
        );
        assert_eq!(guard.len(), 2, "the first entry was swept");
        assert_eq!(
            guard.consume(entry(anyone(), flow, 1, at(100)), at(2)),
            Err(ReplayError::Replayed)
        );
        assert_eq!(guard.len(), 2, "and not inserted again");
    }

    #[test]
    fn a_principal_is_held_to_its_share_until_its_entries_are_swept() {
        let guard = guard(10).with_principal_share(2);
        let (ada, bob) = (
            PrincipalKey::from_bytes([1; 16]),
            PrincipalKey::from_bytes([2; 16]),
        );
        let flow = |n: u8| FlowId::from_bytes([n; 16]);
        assert_eq!(guard.consume(entry(ada, flow(1), 1, at(10)), at(0)), Ok(()));
        assert_eq!(guard.consume(entry(ada, flow(2), 1, at(20)), at(0)), Ok(()));
        assert_eq!(
            guard.consume(entry(ada, flow(3), 1, at(20)), at(0)),
            Err(ReplayError::ShareExceeded { share: 2 })
        );
        assert_eq!(
            guard.consume(entry(ada, flow(1), 1, at(10)), at(0)),
            Err(ReplayError::Replayed),
            "a replay is reported as one"
        );
        assert_eq!(guard.consume(entry(bob, flow(3), 1, at(20)), at(0)), Ok(()));
        assert_eq!((guard.len(), guard.principals()), (3, 2));
        // At +10 ada's first entry is swept, and with it one of its share.
        assert_eq!(
            guard.consume(entry(ada, flow(4), 1, at(30)), at(10)),
            Ok(())
        );
        assert_eq!(
            guard.consume(entry(ada, flow(5), 1, at(30)), at(10)),
            Err(ReplayError::ShareExceeded { share: 2 })
        );
        // All swept: only the new entry's principal is left.
        assert_eq!(
            guard.consume(entry(anyone(), flow(6), 1, at(100)), at(40)),
            Ok(())
        );
        assert_eq!((guard.len(), guard.principals()), (1, 1));
    }

    #[test]
    fn default_share_is_a_tenth_at_least_64_at_most_the_capacity() {
        assert_eq!(MemoryReplayGuard::new(100_000).principal_share(), 10_000);
        assert_eq!(MemoryReplayGuard::new(200).principal_share(), 64);
        assert_eq!(MemoryReplayGuard::new(16).principal_share(), 16);
        assert_eq!(MemoryReplayGuard::new(0).principal_share(), 0);
    }

    #[test]
    fn zero_capacity_refuses_everything() {
        let guard = guard(0);
        assert!(guard.is_empty());
        assert_eq!(
            guard.consume(
                entry(anyone(), FlowId::from_bytes([0; 16]), 1, at(10)),
                at(0)
            ),
            Err(ReplayError::Full { capacity: 0 })
        );
    }
}
