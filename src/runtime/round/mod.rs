//! One round of a multi-round call, a file per phase: `open` verifies the
//! call's state and makes the [`Round`], `ask` finds answers and collects
//! questions, `connect` asks for a connection through a connect link,
//! `complete` ends the round and mints the next state; `view` holds the round
//! and what the handler reads of it; `step` does a piece of a task's work
//! once, its result journaled.

mod ask;
mod complete;
mod connect;
mod open;
mod step;
mod view;

pub use open::{Opened, Opening};
pub use view::Round;
