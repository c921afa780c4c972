//! What the codec tells the operator about a `requestState` that does not
//! open: one `tracing` event (feature `tracing`, on by default) and one count
//! ([`STATE_REFUSED`](crate::metrics::STATE_REFUSED), feature `metrics`); and
//! how each replay guard call went.
//!
//! Every event has the target `mrtr_guard::state` and these fields, each only when it
//! is known:
//!
//! | field | value | known |
//! | --- | --- | --- |
//! | `reason` | [`StateError::reason`] | always |
//! | `key_id` | the header's key id, hex | once the token splits into its parts |
//! | `flow_id` | the flow id, hex | once the tag verified and the claims parsed |
//! | `round` | the round | as `flow_id` |
//! | `guard_error` | the [`ReplayError`](crate::state::ReplayError) message | replay guard failures only |
//!
//! A replay (`requestState replayed`), a replay guard failure (`replay
//! guard failed`) and a principal past its share of the guard (event
//! `replay_share_exceeded`, `WARN`) have their own messages and event names,
//! and so has a token of another guard generation, or of none (event
//! `state_generation_refused`, `WARN`, whose message says "the guard lost
//! its memory (generation changed)" or that the token has no generation);
//! like every event, the last names no principal.
//! A tag that does not verify (`forged`) says what it may be: a token
//! altered, or minted for another user, tool, arguments or server. Neither
//! construction can tell these apart: the binding is never in the token,
//! only in the tag (the AEAD's associated data, or the MAC's input).
//! Every other reason
//! is `requestState refused`. No event holds the token, its claims, carried
//! answers, application data or the principal: the flow id is random and
//! names nobody (the Redis guard stores it in clear for the same reason).
//!
//! Levels: `WARN` for a refusal the token or its client caused (expired,
//! forged, replayed...), `ERROR` for one the server caused (its replay guard
//! failed, or it opened a token without a principal on a codec not built for
//! anonymous use).
//!
//! With feature `redis`, the Redis guard emits two more `ERROR` events on
//! this target, once each time it sees them, with the `server` it watches:
//! `replay_guard_evicting` (Redis may evict: every state refused) and
//! `replay_guard_lost` (Redis lost keys: states minted before refused).

use crate::metrics::{self, GuardTimer};
use crate::state::claims::FlowId;
use crate::state::error::StateError;
use crate::state::keys::KeyId;
use crate::state::replay::ReplayError;

/// The target of every event the crate emits for a refused state.
#[cfg(feature = "tracing")]
const TARGET: &str = "mrtr_guard::state";

/// What opening a token learned about it, for the refusal's event.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// The key id the header names (not yet checked against the ring).
    pub(crate) key_id: Option<KeyId>,
    /// The flow id and round, from claims whose tag verified.
    pub(crate) flow: Option<(FlowId, u32)>,
}

/// The message of a refusal whose tag did not verify.
#[cfg(feature = "tracing")]
const FORGED: &str = "requestState refused: forged, or minted for another user, tool, \
                      arguments or server";

impl Seen {
    /// Emits the one event, and the one count, for a state refused with
    /// `error`.
    pub(crate) fn refused(&self, error: &StateError) {
        metrics::state_refused(error.reason());
        self.log(error);
    }

    #[cfg(feature = "tracing")]
    fn log(&self, error: &StateError) {
        use tracing::field::display;

        let reason = error.reason();
        let key_id = self.key_id.map(display);
        let flow_id = self.flow.map(|(flow_id, _)| display(flow_id));
        let round = self.flow.map(|(_, round)| round);
        match error {
            StateError::Replayed => tracing::warn!(
                name: "state_replayed", target: TARGET,
                reason, key_id, flow_id, round,
                "requestState replayed"
            ),
            StateError::ReplayGuard(guard_error) => tracing::error!(
                name: "replay_guard_failed", target: TARGET,
                reason, key_id, flow_id, round, guard_error = %guard_error,
                "replay guard failed; requestState refused"
            ),
            StateError::ReplayShareExceeded => tracing::warn!(
                name: "replay_share_exceeded", target: TARGET,
                reason, key_id, flow_id, round,
                "principal holds its whole share of the replay guard; requestState refused"
            ),
            StateError::GenerationChanged | StateError::NoGeneration => tracing::warn!(
                name: "state_generation_refused", target: TARGET,
                reason, key_id, flow_id, round,
                "requestState refused: {error}"
            ),
            StateError::MissingPrincipal => tracing::error!(
                name: "state_refused", target: TARGET,
                reason, key_id, flow_id, round,
                "requestState refused"
            ),
            StateError::Forged => tracing::warn!(
                name: "state_refused", target: TARGET,
                reason, key_id, flow_id, round,
                "{FORGED}"
            ),
            _ => tracing::warn!(
                name: "state_refused", target: TARGET,
                reason, key_id, flow_id, round,
                "requestState refused"
            ),
        }
    }

    #[cfg(not(feature = "tracing"))]
    fn log(&self, _: &StateError) {}
}

/// Stops `timer` on a replay guard call that ended as `consumed`.
pub(crate) fn guard_called(timer: GuardTimer, consumed: &Result<(), ReplayError>) {
    timer.stop(match consumed {
        Ok(()) => "recorded",
        Err(ReplayError::Replayed) => "replayed",
        Err(ReplayError::ShareExceeded { .. }) => "share_exceeded",
        Err(ReplayError::GenerationChanged | ReplayError::NoGeneration) => "generation",
        Err(_) => "failed",
    });
}
