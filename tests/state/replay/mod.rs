//! The replay guards, one module per guard: the memory guard (`memory`, and
//! `restart`: across a real process restart), and the Redis guard against
//! real `redis-server`s (`redis/`, feature `redis`).

mod memory;
#[cfg(feature = "redis")]
pub(crate) mod redis;
mod restart;
