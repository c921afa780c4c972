//! Clients of the session revisions (`2025-11-25`, `2025-06-18`) on the
//! same tools: [`Legacy`].
//!
//! The server handler [`Legacy`] documents the whole path. One file per
//! job: `wrapper` holds the type and its settings, `handler` its
//! `ServerHandler` (what runs rounds, what goes to the wrapped handler),
//! `rounds` a legacy call run round after round, `request` the
//! server-initiated requests that carry the questions, `revision` a form in
//! the shape the session's revision defines, `error` how a call ends when
//! the session cannot go on.

mod error;
mod handler;
mod request;
mod revision;
mod rounds;
mod wrapper;

pub(crate) use request::session_capabilities;
pub(crate) use rounds::LegacyRetry;
pub use wrapper::{DEFAULT_ANSWER_TIMEOUT, LEGACY_MAX_ROUNDS, Legacy};
