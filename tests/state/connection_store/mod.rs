//! The connection stores' one contract suite (`contract`), run on every
//! store: `memory`, and `redis` (feature `redis`, against the server the
//! replay guard's tests use).

mod contract;
mod memory;
#[cfg(feature = "redis")]
mod redis;
