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
//!   or a policy back to `noeviction` after it was not, is a loss, dated
//!   when the client saw it: from then on the watch does not vouch for what
//!   was written before it. The replay guard refuses a token that can have
//!   been minted before it (its issue time less the skew), since it may
//!   have been consumed already; tokens minted after it are recorded as
//!   ever.
//!
//! The events (feature `tracing`) are the replay guard's, named and worded
//! for it: it is what relies on the watch.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

use time::OffsetDateTime;

use crate::redis::error::{ConnectError, RedisUnavailable};

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
    /// When the guard last saw Redis lose keys, by this process' clock.
    lost_at: Option<OffsetDateTime>,
}

/// Why the watch does not vouch for what Redis was given.
pub(crate) enum Doubt {
    /// Redis may evict now: why, in the start-up refusal's words.
    Evicting(RedisUnavailable),
    /// Redis lost keys at or after the time asked about.
    Lost,
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

    /// Whether the watch vouches now for what was written after `since`:
    /// not while Redis may evict, nor when it lost keys at or after `since`.
    pub(crate) fn doubt(&self, since: OffsetDateTime) -> Option<Doubt> {
        let seen = self.lock();
        if let Some(fault) = &seen.evicting {
            return Some(Doubt::Evicting(fault.clone().into_unavailable()));
        }
        match seen.lost_at {
            Some(lost_at) if since <= lost_at => Some(Doubt::Lost),
            _ => None,
        }
    }

    /// Records one look at Redis, at `now`: the masters' `run_id`s and
    /// what their policy allows. The policy's refusal, if any.
    pub(super) fn record(
        &self,
        run_ids: BTreeSet<String>,
        policy: Result<(), ConnectError>,
        now: OffsetDateTime,
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
            seen.lost_at = Some(seen.lost_at.map_or(now, |before| before.max(now)));
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
        "redis lost replay keys: every requestState minted before now (and the skew) \
         is refused; flows begun before start over"
    );
}

#[cfg(not(feature = "tracing"))]
fn lost_event(_: &str, _: Loss) {}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000 + seconds).unwrap()
    }

    /// Whether the watch vouches for what was written after `seconds`.
    fn vouches(watch: &Watch, seconds: i64) -> bool {
        watch.doubt(at(seconds)).is_none()
    }

    fn ids(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|id| (*id).to_owned()).collect()
    }

    #[test]
    fn a_new_run_id_doubts_what_was_written_up_to_it() {
        let watch = Watch::default();
        assert!(watch.record(ids(&["a", "b"]), Ok(()), at(0)).is_ok());
        assert!(watch.record(ids(&["b", "a"]), Ok(()), at(10)).is_ok());
        assert!(vouches(&watch, -5), "nothing lost yet");
        assert!(watch.record(ids(&["a", "c"]), Ok(()), at(100)).is_ok());
        assert!(matches!(watch.doubt(at(94)), Some(Doubt::Lost)));
        assert!(!vouches(&watch, 100), "at the loss");
        assert!(vouches(&watch, 101));
        // Fewer masters seen is no loss; the next restart moves the date.
        assert!(watch.record(ids(&["c"]), Ok(()), at(200)).is_ok());
        assert!(vouches(&watch, 145));
        assert!(watch.record(ids(&["a", "c"]), Ok(()), at(250)).is_ok());
        assert!(vouches(&watch, 145), "a master seen again");
        assert!(watch.record(ids(&["d"]), Ok(()), at(300)).is_ok());
        assert!(!vouches(&watch, 145));
    }

    #[test]
    fn an_evicting_policy_doubts_everything_then_counts_as_a_loss() {
        let watch = Watch::default();
        assert!(watch.record(ids(&["a"]), Ok(()), at(0)).is_ok());
        let evicts = Err(ConnectError::Evicts("allkeys-lru".to_owned()));
        assert!(watch.record(ids(&["a"]), evicts, at(10)).is_err());
        let Some(Doubt::Evicting(why)) = watch.doubt(at(45)) else {
            panic!("expected the eviction refusal");
        };
        assert!(
            why.to_string().contains("maxmemory-policy is allkeys-lru"),
            "{why}"
        );
        assert!(watch.record(ids(&["a"]), Ok(()), at(20)).is_ok());
        assert!(!vouches(&watch, 20), "written in the interval");
        assert!(vouches(&watch, 21));
    }
}
