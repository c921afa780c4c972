//! Feature `redis`: the replay guard shared by every instance of a server.
//!
//! The files, bottom-up: `error` ([`RedisConfigError`], and Redis failures
//! told without their text), `commit` (the group commit: concurrent calls'
//! keys gathered into batches), `watch` (what the guard has seen of Redis:
//! its instances' `run_id`, its `maxmemory-policy`; what it no longer
//! vouches for), `connection` (opening, reusing and replacing a
//! connection), `endpoint` (the URL, TLS and timeouts a connection is made
//! from: the task store connects through these two as well), `watcher`
//! (looking at Redis: on each new connection and every watch interval),
//! `batch` (one batch of `SET NX` and what its replies mean), `share` (a
//! principal's share), `guard` ([`RedisReplayGuard`] and its two faces),
//! `builder` ([`RedisGuardBuilder`], which checks the settings and makes the
//! guard).

mod batch;
mod builder;
mod commit;
mod connection;
mod endpoint;
mod error;
mod guard;
mod share;
mod watch;
mod watcher;

pub use builder::RedisGuardBuilder;
pub(crate) use connection::{Conn, Connector};
pub(crate) use endpoint::Endpoint;
pub use error::RedisConfigError;
pub use guard::RedisReplayGuard;
pub(crate) use guard::time_to_live_ms;
