//! Clients of the session revisions (`2025-11-25`, `2025-06-18`) on the
//! same tools: a call from such a session runs its rounds in process, each
//! round's input requests sent over the session
//! ([`McpHandler`](crate::rmcp::McpHandler) routes such calls here and
//! documents the whole path).
//!
//! The files: `rounds` (a legacy call run round after round, and its
//! settings), `request` (the server-initiated requests that carry the
//! questions), `revision` (a form in the shape the session's revision
//! defines), `error` (how a call ends when the session cannot go on).

mod error;
mod request;
mod revision;
mod rounds;

pub(crate) use request::session_capabilities;
pub use rounds::{DEFAULT_ANSWER_TIMEOUT, LEGACY_MAX_ROUNDS};
pub(crate) use rounds::{LegacyRounds, from_legacy_session};
