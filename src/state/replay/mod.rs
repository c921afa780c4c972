//! Single use: a token's (flow id, round) may be consumed once.
//!
//! The TTL and the binding bound replay; they do not prevent it. A server whose
//! rounds must not run twice (a payment, a one-time redemption) gives its codec
//! a [`ReplayGuard`].
//!
//! The files: `guard` (the contract: [`ReplayGuard`], its async face and
//! the [`TokenUse`] they consume),
//! `error` ([`ReplayError`]), `principal` (the [`PrincipalKey`] a guard counts
//! shares by), then one implementation each: `memory`
//! ([`MemoryReplayGuard`], one process) and `redis/` (`RedisReplayGuard`,
//! feature `redis`, shared by every instance of a server).

mod error;
mod guard;
mod memory;
mod principal;
#[cfg(feature = "redis")]
mod redis;

#[cfg(feature = "redis")]
pub(crate) use self::redis::{Conn, Connector, Endpoint, time_to_live_ms};
#[cfg(feature = "redis")]
pub use self::redis::{RedisConfigError, RedisGuardBuilder, RedisReplayGuard};
pub use error::ReplayError;
pub use guard::{AsyncReplayGuard, ConsumeFuture, ReplayGuard, TokenUse};
pub use memory::MemoryReplayGuard;
pub use principal::PrincipalKey;
