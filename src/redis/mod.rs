//! Feature `redis`: one Redis client, and the contracts it implements for a
//! server that runs as several instances: the replay guard
//! ([`RedisReplayGuard`], the [`ReplayGuard`](crate::state::ReplayGuard)
//! contract), the task store ([`RedisTaskStore`], the
//! [`TaskStore`](crate::task::TaskStore) contract) and the connection store
//! ([`RedisConnectionStore`], the
//! [`ConnectionStore`](crate::connect::ConnectionStore) contract). The
//! contracts, and their in-process implementations, stay beside their
//! callers (`state`, `task`, `connect`).
//!
//! The client's files, bottom-up: `error` ([`RedisConfigError`], and
//! [`RedisUnavailable`]: a Redis failure told without its text), `layout`
//! (every key either contract writes, under one prefix rule, and how long
//! it lives: `docs/REDIS.md` is its document), `watch` (what the client has seen of Redis:
//! its instances' `run_id`, its `maxmemory-policy`; what it no longer
//! vouches for), `connection` (opening, reusing and replacing a connection),
//! `endpoint` (the URL, TLS and timeouts a connection is made from),
//! `generation` (the generation of Redis' memory, kept beside the keys, per
//! group of flows), `lua` (the scripts, sent by their SHA1),
//! `watcher` (looking at Redis: on each new connection and when a contract
//! looks again), `settings` (what every builder on the client sets alike,
//! checked once, its setters written once). Then one folder per contract, each on the client and
//! none on another: `replay/` (the replay guard), `task/` (the task
//! store) and `connect/` (the connection store).

mod connect;
mod connection;
mod endpoint;
mod error;
mod generation;
mod layout;
mod lua;
mod replay;
mod settings;
mod task;
mod watch;
mod watcher;

pub use connect::{RedisConnectionStore, RedisConnectionStoreBuilder};
pub use error::{RedisConfigError, RedisUnavailable};
pub use replay::{RedisReplayGuard, RedisReplayGuardBuilder};
pub use task::{RedisTaskStore, RedisTaskStoreBuilder};
