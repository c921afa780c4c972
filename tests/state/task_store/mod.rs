//! The task stores' one contract suite (`contract`), run on every store:
//! `memory`, and `redis` (feature `redis`: one node, TLS, Redis Cluster,
//! against the servers the replay guard's tests use), with `run` to drive
//! their futures.

mod contract;
mod memory;
#[cfg(feature = "redis")]
mod redis;
mod run;
