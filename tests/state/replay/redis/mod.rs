//! The Redis replay guard against real `redis-server`s (feature `redis`;
//! `tls`, feature `redis-tls`),
//! one file per rule: `single_use`, `shares`, `commit`, `connection`,
//! `timeouts`, `eviction`, `losses`, `generations` (what a loss costs, timed),
//! `replicas`, `scripts` (sent by SHA1, their text to a node without
//! them), `events`, `cluster`. `support`
//! says which servers they run against and holds the fixtures they share;
//! `scripted` starts the servers a test restarts.

mod cluster;
mod commit;
mod connection;
#[cfg(feature = "tracing")]
mod events;
mod eviction;
mod generations;
mod losses;
mod replicas;
mod scripted;
pub(crate) mod scripts;
mod shares;
mod single_use;
pub(crate) mod support;
mod timeouts;
#[cfg(feature = "redis-tls")]
mod tls;
