//! `mrtr_guard::state`: the codec's policy at each boundary, its properties,
//! how long the in-memory replay guard remembers, and the Redis replay guard
//! (feature `redis`). One module per concern; shared fixtures are
//! `mrtr-guard-test-support` (tests/support/).

mod policy;
mod props;
#[cfg(feature = "redis")]
mod redis_guard;
mod replay_retention;
