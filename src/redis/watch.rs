//! What the client has seen of Redis, and what it stops vouching for.
//!
//! Redis can forget keys while the client keeps talking to it: an eviction
//! policy switched on at run time drops keys, and an instance that lost its
//! memory (restarted without persistence, a replica promoted that lacked
//! writes) answers `SET NX` with `OK` for a key it was given before. Each
//! look at Redis (`watcher`) records here the masters' `run_id` (new in
//! every process) and their `maxmemory-policy`:
//!
//! - While the policy may evict (or cannot be read), the watch vouches for
//!   nothing: a contract refuses its calls with the start-up refusal's
//!   message, naming the setting.
//! - A `run_id` not seen before (a restarted master, a promoted replica),
//!   or a policy back to `noeviction` after it was not, is a loss. For a
//!   client that keeps generations (the replay guard's), the watch vouches
//!   for nothing from then until the client has moved Redis' generation
//!   records past the generations it knew (`generation`): a token of the
//!   old generation is then refused by the script that would record it,
//!   on every instance, and a token of the new one is recorded as ever.
//!
//! The watch also holds the generation of each group of flows as the
//! client last read it, for minting: every look reads them all, and every
//! consume's reply brings its group's.
//!
//! The events (feature `tracing`) are the replay guard's, named and worded
//! for it: it is what relies on the watch.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::redis::error::{ConnectError, RedisUnavailable};
use crate::redis::generation::GROUPS;
use crate::state::Generation;

/// What the client has seen of Redis, shared by all its connections.
#[derive(Default)]
pub(crate) struct Watch {
    /// `host:port` or the socket path, for the events: never credentials.
    server: String,
    seen: Mutex<Seen>,
}

#[derive(Default)]
struct Seen {
    /// Every master's `run_id` seen so far (empty: none read yet). A
    /// master missing from one look (a cluster client that skipped a node
    /// it could not reach) is no loss; one it has not seen before is.
    run_ids: BTreeSet<String>,
    /// Why Redis may evict now (its policy, or an unreadable one).
    evicting: Option<ConnectError>,
    /// The generations kept, when the client keeps them.
    generations: Option<Generations>,
}

/// The generation of each group as the client last read it, and whether a
/// loss it saw still waits for the records to move.
struct Generations {
    /// The key prefix the records are under.
    prefix: String,
    current: Box<[Option<Generation>; GROUPS]>,
    /// A loss was seen and the records have not moved past it yet.
    unsettled: bool,
    /// How many losses were seen: a move settles only the ones seen
    /// before it was planned.
    losses: u64,
}

/// Why the watch does not vouch for what Redis was given.
pub(crate) enum Doubt {
    /// Redis may evict now: why, in the start-up refusal's words.
    Evicting(RedisUnavailable),
    /// Redis lost keys, and its generation records have not moved yet.
    Unsettled,
}

/// What a look at Redis does about the generation records: read them, or
/// move them from the generations the client knew (a loss was seen).
pub(crate) struct Plan {
    /// The key prefix the records are under.
    pub(crate) prefix: String,
    /// Each group's generation as known, to move from; `None`: only read.
    pub(crate) moving_from: Option<Box<[Option<Generation>; GROUPS]>>,
    /// The losses seen when it was planned.
    losses: u64,
}

/// Why the client no longer vouches for what Redis was given.
#[derive(Clone, Copy)]
enum Loss {
    /// A master's `run_id` changed: a restart, or a failover.
    Restarted,
    /// The policy let Redis evict for a while.
    Evicted,
}

impl Watch {
    /// Nothing seen yet of the Redis at `server` (`host:port`, or the
    /// socket path).
    pub(super) fn new(server: String) -> Self {
        Self {
            server,
            seen: Mutex::default(),
        }
    }

    /// Keeps the generations of the groups from now on (the replay guard's
    /// client does).
    pub(crate) fn keep_generations(&mut self, prefix: String) {
        let seen = self.seen.get_mut().unwrap_or_else(PoisonError::into_inner);
        seen.generations = Some(Generations {
            prefix,
            current: Box::new([None; GROUPS]),
            unsettled: false,
            losses: 0,
        });
    }

    /// Whether the watch vouches now for what Redis was given: not while
    /// Redis may evict, nor between a loss and the records' move past it.
    pub(crate) fn doubt(&self) -> Option<Doubt> {
        let seen = self.lock();
        if let Some(fault) = &seen.evicting {
            return Some(Doubt::Evicting(fault.clone().into_unavailable()));
        }
        match &seen.generations {
            Some(generations) if generations.unsettled => Some(Doubt::Unsettled),
            _ => None,
        }
    }

    /// The generation of `group` as last read; `None` before the first
    /// read, or without generations.
    pub(crate) fn generation(&self, group: u8) -> Option<Generation> {
        let seen = self.lock();
        let generations = seen.generations.as_ref()?;
        generations
            .current
            .get(usize::from(group))
            .copied()
            .flatten()
    }

    /// Records what a script read of `group`'s record.
    pub(crate) fn learn(&self, group: u8, generation: Generation) {
        let mut seen = self.lock();
        if let Some(slot) = seen
            .generations
            .as_mut()
            .and_then(|generations| generations.current.get_mut(usize::from(group)))
        {
            *slot = Some(generation);
        }
    }

    /// What a look does about the records now; `None` without generations,
    /// or while Redis may evict (nothing is vouched for then).
    pub(crate) fn plan(&self) -> Option<Plan> {
        let seen = self.lock();
        if seen.evicting.is_some() {
            return None;
        }
        let generations = seen.generations.as_ref()?;
        Some(Plan {
            prefix: generations.prefix.clone(),
            moving_from: generations.unsettled.then(|| generations.current.clone()),
            losses: generations.losses,
        })
    }

    /// Records the groups' generations as a look read (or moved) them: a
    /// group it could not read keeps the one known. A move settles the loss
    /// it was planned for when it moved every group, unless another loss
    /// was seen since (then the next look moves again).
    pub(crate) fn settle(&self, plan: &Plan, read: Box<[Option<Generation>; GROUPS]>) {
        let mut seen = self.lock();
        let Some(generations) = seen.generations.as_mut() else {
            return;
        };
        let moved = plan.moving_from.is_some();
        let complete = read.iter().all(Option::is_some);
        for (known, read) in generations.current.iter_mut().zip(read.iter()) {
            if read.is_some() {
                *known = *read;
            }
        }
        if moved && complete && generations.losses == plan.losses {
            generations.unsettled = false;
        }
    }

    /// Records one look at Redis: the masters' `run_id`s and what their
    /// policy allows. The policy's refusal, if any.
    pub(super) fn record(
        &self,
        run_ids: BTreeSet<String>,
        policy: Result<(), ConnectError>,
    ) -> Result<(), ConnectError> {
        let mut seen = self.lock();
        let mut loss = None;
        if !seen.run_ids.is_empty() && !run_ids.is_subset(&seen.run_ids) {
            loss = Some(Loss::Restarted);
        }
        seen.run_ids.extend(run_ids);
        match &policy {
            Err(fault) => {
                if seen.evicting.is_none() {
                    evicting_event(&self.server, fault);
                }
                seen.evicting = Some(fault.clone());
            }
            Ok(()) => {
                if seen.evicting.take().is_some() {
                    loss = loss.or(Some(Loss::Evicted));
                }
            }
        }
        if let Some(loss) = loss {
            if let Some(generations) = seen.generations.as_mut() {
                generations.unsettled = true;
                generations.losses = generations.losses.wrapping_add(1);
            }
            lost_event(&self.server, loss);
        }
        policy
    }

    fn lock(&self) -> MutexGuard<'_, Seen> {
        // Every change is one assignment: a panic elsewhere cannot leave
        // the state half-changed.
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The target of the codec's events for refused states (`state::events`).
#[cfg(feature = "tracing")]
const TARGET: &str = "mrtr_guard::state";

/// The replay guard's event: `guard_error` is the message its calls are
/// refused with.
#[cfg(feature = "tracing")]
fn evicting_event(server: &str, fault: &ConnectError) {
    let why = crate::state::ReplayError::Unavailable(fault.clone().into_unavailable().to_string());
    tracing::error!(
        name: "replay_guard_evicting", target: TARGET,
        server, guard_error = %why,
        "redis may evict replay keys: every requestState is refused until it may not"
    );
}

#[cfg(not(feature = "tracing"))]
fn evicting_event(_: &str, _: &ConnectError) {}

#[cfg(feature = "tracing")]
fn lost_event(server: &str, loss: Loss) {
    let cause = match loss {
        Loss::Restarted => "a redis master's run_id changed (restart or failover)",
        Loss::Evicted => "redis' maxmemory-policy let it evict",
    };
    tracing::error!(
        name: "replay_guard_lost", target: TARGET,
        server, cause,
        "redis lost replay keys: the guard moves to a new generation, every requestState \
         minted under the old one is refused, flows begun before start over"
    );
}

#[cfg(not(feature = "tracing"))]
fn lost_event(_: &str, _: Loss) {}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "test code: a panic is a failing test")]
mod tests {
    use super::*;

    fn ids(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|id| (*id).to_owned()).collect()
    }

    fn kept() -> Watch {
        let mut watch = Watch::default();
        watch.keep_generations("p".to_owned());
        watch
    }

    fn read(generation: u8) -> Box<[Option<Generation>; GROUPS]> {
        Box::new([Some(Generation::from_bytes([generation; 8])); GROUPS])
    }

    #[test]
    fn a_new_run_id_doubts_everything_until_the_records_moved() {
        let watch = kept();
        assert!(watch.record(ids(&["a", "b"]), Ok(())).is_ok());
        let plan = watch.plan().unwrap();
        assert!(plan.moving_from.is_none(), "nothing lost: only read");
        watch.settle(&plan, read(1));
        assert_eq!(watch.generation(7), Some(Generation::from_bytes([1; 8])));
        assert!(watch.record(ids(&["b", "a"]), Ok(())).is_ok());
        assert!(watch.doubt().is_none());
        // Fewer masters seen is no loss; one not seen before is.
        assert!(watch.record(ids(&["a"]), Ok(())).is_ok());
        assert!(watch.doubt().is_none());
        assert!(watch.record(ids(&["a", "c"]), Ok(())).is_ok());
        assert!(matches!(watch.doubt(), Some(Doubt::Unsettled)));
        let plan = watch.plan().unwrap();
        assert_eq!(plan.moving_from.as_deref(), Some(&*read(1)));
        // A second loss while the move is on its way: still unsettled.
        assert!(watch.record(ids(&["d"]), Ok(())).is_ok());
        watch.settle(&plan, read(2));
        assert!(matches!(watch.doubt(), Some(Doubt::Unsettled)));
        // A move that read nothing (a replica answering READONLY) keeps
        // what was known, and settles nothing.
        let plan = watch.plan().unwrap();
        watch.settle(&plan, Box::new([None; GROUPS]));
        assert!(matches!(watch.doubt(), Some(Doubt::Unsettled)));
        assert_eq!(watch.generation(5), Some(Generation::from_bytes([2; 8])));
        let plan = watch.plan().unwrap();
        watch.settle(&plan, read(3));
        assert!(watch.doubt().is_none());
        assert_eq!(watch.generation(0), Some(Generation::from_bytes([3; 8])));
    }

    #[test]
    fn an_evicting_policy_doubts_everything_then_counts_as_a_loss() {
        let watch = kept();
        assert!(watch.record(ids(&["a"]), Ok(())).is_ok());
        let evicts = Err(ConnectError::Evicts("allkeys-lru".to_owned()));
        assert!(watch.record(ids(&["a"]), evicts).is_err());
        let Some(Doubt::Evicting(why)) = watch.doubt() else {
            panic!("expected the eviction refusal");
        };
        assert!(
            why.to_string().contains("maxmemory-policy is allkeys-lru"),
            "{why}"
        );
        assert!(
            watch.plan().is_none(),
            "no generation is read while it evicts"
        );
        assert!(watch.record(ids(&["a"]), Ok(())).is_ok());
        assert!(matches!(watch.doubt(), Some(Doubt::Unsettled)));
        assert!(watch.plan().unwrap().moving_from.is_some());
    }

    #[test]
    fn without_generations_a_loss_doubts_nothing() {
        let watch = Watch::default();
        assert!(watch.record(ids(&["a"]), Ok(())).is_ok());
        assert!(watch.record(ids(&["b"]), Ok(())).is_ok());
        assert!(watch.doubt().is_none());
        assert!(watch.plan().is_none());
        assert_eq!(watch.generation(0), None);
    }
}
