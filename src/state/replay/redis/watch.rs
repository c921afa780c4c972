//! What the guard has seen of Redis, and what it stops vouching for.
//!
//! Redis can forget consumed rounds while the guard keeps talking to it: an
//! eviction policy switched on at run time drops keys, and an instance that
//! lost its memory (restarted without persistence, a replica promoted that
//! lacked writes) answers `SET NX` with `OK` for a key it was given before.
//! Each look at Redis (`watcher`) records here the masters' `run_id` (new in
//! every process) and their `maxmemory-policy`:
//!
//! - While the policy may evict (or cannot be read), every call is refused
//!   with the start-up refusal's message, naming the setting.
//! - A `run_id` the guard has not seen before (a restarted master, a
//!   promoted replica), or a policy back to `noeviction` after it was not,
//!   is a loss, dated when the guard saw it: from then on a token that can
//!   have been minted before it ([`TokenUse::minted_after`]: its issue time
//!   less the skew) is refused, since it may have been consumed already.
//!   Tokens minted after it are recorded as ever.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

use time::OffsetDateTime;

use crate::state::replay::error::ReplayError;
use crate::state::replay::guard::TokenUse;
use crate::state::replay::redis::error::ConnectError;

/// What the guard has seen of Redis, shared by all its connections.
#[derive(Default)]
pub(super) struct Watch {
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

/// Why the guard no longer vouches for what Redis was given.
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

    /// Whether the guard may vouch for `token` now: refused while Redis may
    /// evict, and when it can have been minted before a loss.
    pub(super) fn admits(&self, token: &TokenUse) -> Result<(), ReplayError> {
        let seen = self.lock();
        if let Some(fault) = &seen.evicting {
            return Err(fault.clone().into_replay());
        }
        match seen.lost_at {
            Some(lost_at) if token.minted_after() <= lost_at => Err(ReplayError::Unavailable(
                "redis lost replay keys (restarted, failed over or evicted) after this \
                     requestState was minted, so the guard cannot tell whether it was used: \
                     refused; its flow starts over"
                    .to_owned(),
            )),
            _ => Ok(()),
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

#[cfg(feature = "tracing")]
fn evicting_event(server: &str, fault: &ConnectError) {
    let why = fault.clone().into_replay();
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
    use time::Duration;

    use super::*;
    use crate::state::claims::FlowId;
    use crate::state::replay::principal::PrincipalKey;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000 + seconds).unwrap()
    }

    fn minted(seconds: i64) -> TokenUse {
        let anyone = PrincipalKey::from_bytes([0; 16]);
        let flow = FlowId::from_bytes([1; 16]);
        TokenUse::new(anyone, flow, 1, at(seconds), Duration::seconds(5), at(900))
    }

    fn ids(ids: &[&str]) -> BTreeSet<String> {
        ids.iter().map(|id| (*id).to_owned()).collect()
    }

    #[test]
    fn a_new_run_id_refuses_what_was_minted_before_it_and_the_skew() {
        let watch = Watch::default();
        assert!(watch.record(ids(&["a", "b"]), Ok(()), at(0)).is_ok());
        assert!(watch.record(ids(&["b", "a"]), Ok(()), at(10)).is_ok());
        assert!(watch.admits(&minted(0)).is_ok(), "nothing lost yet");
        assert!(watch.record(ids(&["a", "c"]), Ok(()), at(100)).is_ok());
        assert!(watch.admits(&minted(99)).is_err());
        assert!(watch.admits(&minted(105)).is_err(), "within the skew");
        assert!(watch.admits(&minted(106)).is_ok());
        // Fewer masters seen is no loss; the next restart moves the date.
        assert!(watch.record(ids(&["c"]), Ok(()), at(200)).is_ok());
        assert!(watch.admits(&minted(150)).is_ok());
        assert!(watch.record(ids(&["a", "c"]), Ok(()), at(250)).is_ok());
        assert!(watch.admits(&minted(150)).is_ok(), "a master seen again");
        assert!(watch.record(ids(&["d"]), Ok(()), at(300)).is_ok());
        assert!(watch.admits(&minted(150)).is_err());
    }

    #[test]
    fn an_evicting_policy_refuses_everything_then_counts_as_a_loss() {
        let watch = Watch::default();
        assert!(watch.record(ids(&["a"]), Ok(()), at(0)).is_ok());
        let evicts = Err(ConnectError::Evicts("allkeys-lru".to_owned()));
        assert!(watch.record(ids(&["a"]), evicts, at(10)).is_err());
        let refused = watch.admits(&minted(50)).unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("maxmemory-policy is allkeys-lru"),
            "{refused}"
        );
        assert!(watch.record(ids(&["a"]), Ok(()), at(20)).is_ok());
        assert!(watch.admits(&minted(25)).is_err(), "minted in the interval");
        assert!(watch.admits(&minted(26)).is_ok());
    }
}
