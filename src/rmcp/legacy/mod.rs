//! Clients of the previous revision (`2025-11-25`) on the same tools:
//! [`Legacy`].
//!
//! The server handler [`Legacy`] documents the whole path. One file per
//! job: `wrapper` holds the type and its settings, `handler` its
//! `ServerHandler` (what runs rounds, what goes to the wrapped handler),
//! `rounds` a legacy call run round after round, `request` the
//! server-initiated requests that carry the questions, `error` how a call
//! ends when the session cannot go on.

mod error;
mod handler;
mod request;
mod rounds;
mod wrapper;

pub(crate) use request::session_capabilities;
pub(crate) use rounds::LegacyRetry;
pub use wrapper::{DEFAULT_ANSWER_TIMEOUT, LEGACY_MAX_ROUNDS, Legacy};
