//! Sessions bound to their principal, inside [`McpServer`](super::McpServer)'s
//! screen: `book` (who owns which session, what is open, the caps),
//! `service` (the tower service that checks every request against the
//! book), `watched` (a call's response body, which cancels the call when
//! its client goes away), `priming` (an event stream without the priming
//! events a client's revision does not know).

mod book;
mod priming;
mod service;
mod watched;

pub(crate) use book::{SessionBook, SessionLimits};
pub use priming::PrimingFilter;
pub(crate) use service::Serve;
pub use service::Sessions;
pub use watched::Watched;
