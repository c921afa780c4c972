//! The replay guards, one module per guard: the memory guard, and the Redis
//! guard against real `redis-server`s (feature `redis`).

mod memory;
#[cfg(feature = "redis")]
pub(crate) mod redis;
