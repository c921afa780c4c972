//! The fleet record: what the instances sharing a task store must agree on
//! (the audience, the mode, the key they seal with; no secret), kept in the
//! store, so that an instance that disagrees is refused before it serves a
//! task, not when another instance's task is answered on it and fails.
//!
//! Each instance reads the record at start-up
//! ([`McpServerBuilder::check_fleet`](crate::rmcp::McpServerBuilder::check_fleet),
//! and before its first task), refuses when the audience or the mode
//! differs or its key ring lacks the key the record names, and otherwise
//! writes its own (so a key rotated in everywhere becomes the fleet's).

use serde::{Deserialize, Serialize};

use crate::state::{KeyId, StateCodec};
use crate::task::TaskStore;

/// What the record holds.
#[derive(Serialize, Deserialize)]
struct FleetRecord {
    audience: String,
    mode: String,
    /// The active key's id, 8 hex digits.
    key: String,
}

impl FleetRecord {
    fn of(codec: &StateCodec) -> Self {
        Self {
            audience: codec.audience().to_owned(),
            mode: format!("{:?}", codec.mode()).to_lowercase(),
            key: hex(codec.keys().active_id()),
        }
    }
}

fn hex(id: KeyId) -> String {
    id.to_bytes()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The key id `text` (8 hex digits) names.
fn key_id(text: &str) -> Option<KeyId> {
    if text.len() != 8 || !text.is_ascii() {
        return None;
    }
    let value = u32::from_str_radix(text, 16).ok()?;
    Some(KeyId::from_bytes(value.to_be_bytes()))
}

/// Why an instance does not join the fleet (`ServerConfigError`'s
/// `Fleet*` variants say it to the user).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Disagreement {
    Audience,
    Mode,
    Key,
    Unreadable,
    Unavailable,
}

impl Disagreement {
    /// What to change, naming the setting.
    pub(crate) fn message(self) -> &'static str {
        match self {
            Self::Audience => {
                "the instances sharing this task store use another audience: build every \
                 instance's StateCodec with the same audience (a task created on one is \
                 answered on another); if the whole fleet moved, delete the store's fleet \
                 record (on Redis the key <prefix>:fleet)"
            }
            Self::Mode => {
                "the instances sharing this task store use another Mode (sealed or signed): \
                 give every instance's CodecBuilder the same mode"
            }
            Self::Key => {
                "this instance's KeyRing lacks the key the instances sharing this task store \
                 seal with: add it (KeyRing::with_verify_only) before this instance joins"
            }
            Self::Unreadable => {
                "the task store's fleet record is not one mrtr-guard writes: another program \
                 shares the store or its key prefix; give it a prefix of its own"
            }
            Self::Unavailable => {
                "the task store failed while its fleet record was read or written: check that \
                 it is reachable (its health_check says why), then start again"
            }
        }
    }
}

/// Checks `codec` against the fleet record in `store`, then records it.
///
/// # Errors
///
/// The [`Disagreement`] naming the setting that differs, or
/// [`Disagreement::Unavailable`] when the store failed.
pub(crate) async fn agree(store: &dyn TaskStore, codec: &StateCodec) -> Result<(), Disagreement> {
    let mine = FleetRecord::of(codec);
    let kept = store.fleet().await.map_err(|_| Disagreement::Unavailable)?;
    if let Some(kept) = kept {
        let theirs: FleetRecord =
            serde_json::from_slice(&kept).map_err(|_| Disagreement::Unreadable)?;
        let refused = if theirs.audience != mine.audience {
            Some(Disagreement::Audience)
        } else if theirs.mode != mine.mode {
            Some(Disagreement::Mode)
        } else if !key_id(&theirs.key).is_some_and(|id| codec.keys().contains(id)) {
            Some(Disagreement::Key)
        } else {
            None
        };
        if let Some(refused) = refused {
            log_disagrees(&theirs, &mine, refused);
            return Err(refused);
        }
    }
    let record = serde_json::to_vec(&mine).map_err(|_| Disagreement::Unavailable)?;
    store
        .set_fleet(&record)
        .await
        .map_err(|_| Disagreement::Unavailable)
}

#[cfg(feature = "tracing")]
fn log_disagrees(theirs: &FleetRecord, mine: &FleetRecord, refused: Disagreement) {
    tracing::error!(
        name: "fleet_disagrees", target: "mrtr_guard::rmcp",
        fleet_audience = %theirs.audience, audience = %mine.audience,
        fleet_mode = %theirs.mode, mode = %mine.mode,
        fleet_key = %theirs.key, key = %mine.key,
        "{}", refused.message()
    );
}

#[cfg(not(feature = "tracing"))]
fn log_disagrees(_theirs: &FleetRecord, _mine: &FleetRecord, _refused: Disagreement) {}
