//! Sessions bound to their principal, inside [`McpServer`](super::McpServer)'s
//! screen: `book` (who owns which session, what is open, the caps),
//! `service` (the tower service that checks every request against the
//! book), `watched` (a call's response body, which cancels the call when
//! its client goes away).

mod book;
mod service;
mod watched;

pub(crate) use book::{SessionBook, SessionLimits};
pub use service::Sessions;
pub use watched::Watched;
