//! Single use: a token's (flow id, round) may be consumed once.
//!
//! The TTL and the binding bound replay; they do not prevent it. A server whose
//! rounds must not run twice (a payment, a one-time redemption) gives its codec
//! a [`ReplayGuard`].
//!
//! The files: `guard` (the contract: [`ReplayGuard`], its async face and
//! the [`TokenUse`] they consume),
//! `error` ([`ReplayError`]), `principal` (the [`PrincipalKey`] a guard counts
//! shares by), and `memory` ([`MemoryReplayGuard`], one process). The guard
//! every instance of a server shares is on Redis, with the Redis client
//! (`crate::redis`, feature `redis`).

mod error;
mod guard;
mod memory;
mod principal;

pub use error::ReplayError;
pub use guard::{AsyncReplayGuard, ConsumeFuture, ReplayGuard, TokenUse};
pub use memory::MemoryReplayGuard;
pub use principal::PrincipalKey;
