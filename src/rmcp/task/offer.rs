//! What the task host tells a tool's round, and what the round tells it
//! back, through the request's HTTP parts (which the `ToolCall` extractor
//! copies): whether the call may become a task, and whether its state was
//! refused as a replay.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::runtime::TaskPhase;

/// The call's [`TaskPhase`], as the host decided it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TaskOffer(pub(crate) TaskPhase);

/// Set when the call's state opened for its caller and call but was refused
/// as already used: the host may then answer with what the first use
/// answered.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReplayNoted(Arc<AtomicBool>);

impl ReplayNoted {
    pub(crate) fn note(&self) {
        self.0.store(true, Ordering::Release);
    }

    #[cfg_attr(
        not(feature = "server"),
        expect(dead_code, reason = "the task host (feature server) reads it")
    )]
    pub(crate) fn is_noted(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// The phase the host set on `parts`, if any (none: the call runs to its
/// end in the call).
pub(crate) fn task_phase(parts: Option<&http::request::Parts>) -> TaskPhase {
    parts
        .and_then(|parts| parts.extensions.get::<TaskOffer>())
        .map_or(TaskPhase::Synchronous, |offer| offer.0)
}

/// Tells the host, if it listens, that the call's state was a replay.
pub(crate) fn note_replay(parts: Option<&http::request::Parts>) {
    if let Some(noted) = parts.and_then(|parts| parts.extensions.get::<ReplayNoted>()) {
        noted.note();
    }
}
