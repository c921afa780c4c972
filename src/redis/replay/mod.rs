//! The replay guard on the Redis client: [`RedisReplayGuard`], the
//! [`ReplayGuard`](crate::state::ReplayGuard) shared by every instance of a
//! server.
//!
//! The files, bottom-up: `error` (the client's failure as a
//! [`ReplayError`](crate::state::ReplayError)), `commit` (the group commit:
//! concurrent calls' keys gathered into batches), `batch` (one batch of
//! `SET NX` and what its replies mean), `share` (a principal's share),
//! `guard` ([`RedisReplayGuard`], its two faces and its watcher),
//! `builder` ([`RedisReplayGuardBuilder`], which checks the settings and
//! makes the guard).

mod batch;
mod builder;
mod commit;
mod error;
mod guard;
mod share;

pub use builder::RedisReplayGuardBuilder;
pub use guard::RedisReplayGuard;
