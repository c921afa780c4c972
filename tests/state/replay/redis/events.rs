//! Feature `tracing`: the events the guard emits when it sees Redis may
//! evict, or lost keys. They come from whichever thread looked (the guard's
//! own runtime, often), so the capture is the process' global subscriber,
//! and keeps only those events.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::sync::{Mutex, Once, PoisonError};

use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber, span};

/// One event of the guard's: name, level, target, and its `server` field.
type Seen = (&'static str, Level, &'static str, String);

static EVENTS: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

/// Installs the capture (once per test binary).
pub(super) fn listen() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        tracing::subscriber::set_global_default(Guards).unwrap();
    });
}

/// Whether the guard on `server` emitted `name` at `ERROR`, target
/// `mrtr_guard::state`.
pub(super) fn emitted(name: &str, server: &str) -> bool {
    EVENTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .any(|(seen, level, target, at)| {
            *seen == name
                && *level == Level::ERROR
                && *target == "mrtr_guard::state"
                && at == server
        })
}

/// Keeps the `replay_guard_*` events, ignores spans.
struct Guards;

impl Subscriber for Guards {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::sometimes()
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.name().starts_with("replay_guard_")
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::TRACE)
    }

    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }

    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}

    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}

    fn event(&self, event: &Event<'_>) {
        let metadata = event.metadata();
        if !metadata.name().starts_with("replay_guard_") {
            return;
        }
        let mut server = Server::default();
        event.record(&mut server);
        EVENTS.lock().unwrap_or_else(PoisonError::into_inner).push((
            metadata.name(),
            *metadata.level(),
            metadata.target(),
            server.0,
        ));
    }

    fn enter(&self, _: &span::Id) {}

    fn exit(&self, _: &span::Id) {}
}

#[derive(Default)]
struct Server(String);

impl Visit for Server {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "server" {
            value.clone_into(&mut self.0);
        }
    }

    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}
