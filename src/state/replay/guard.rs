//! The contract of a replay guard: single use, a token's (flow id, round)
//! consumed once.
//!
//! Two faces, one guard: [`ReplayGuard`] is what a codec holds and what sync
//! callers ([`StateCodec::open_at`](crate::state::StateCodec::open_at)) use; a
//! guard that can answer without holding a thread (the memory guard, the Redis
//! guard on its multiplexed connection) also hands out an [`AsyncReplayGuard`]
//! through [`ReplayGuard::as_async`], which
//! [`StateCodec::open_at_async`](crate::state::StateCodec::open_at_async) (and
//! the [`rmcp`](crate::rmcp) adapter through it) awaits. A guard without one is
//! run on tokio's blocking pool by the adapter. One trait object in the codec
//! keeps the builder and the runtime to one kind of guard; the async face is
//! an addition, not a second kind of codec.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use time::{Duration, OffsetDateTime};

use crate::state::claims::FlowId;
use crate::state::generation::Generation;
use crate::state::replay::error::ReplayError;
use crate::state::replay::principal::PrincipalKey;

/// Records which tokens were used.
///
/// [`consume`](Self::consume) is called only for a token whose tag, binding,
/// times and round checked out. It must be atomic: of two concurrent calls
/// with the same flow id and round, exactly one succeeds. When the guard
/// cannot tell (its store is down or full), it must fail closed with an
/// error, never accept.
///
/// The codec describes the token in a [`TokenUse`]: its `retain_until` is
/// the token's expiry plus its policy's
/// [`skew`](crate::state::Policy::skew): an instance whose clock runs up to
/// the skew behind the one that consumed the token still opens it until
/// then, so the entry must live at least that long.
///
/// # Generations
///
/// A guard whose memory can be lost (a process restarted, a store
/// restarted empty or failed over) names each memory it has a
/// [`Generation`]: the codec asks for the current one when it mints
/// ([`generation`](Self::generation)), the token carries it, and
/// [`TokenUse::generation`] hands it back on consume. A guard refuses a
/// token of another generation ([`ReplayError::GenerationChanged`]) or of
/// none ([`ReplayError::NoGeneration`]) in the same atomic step that
/// records it: its use may have been recorded in a memory that is gone.
/// No clock takes part. A guard without generations (the default
/// `generation` is `None`) ignores the field.
pub trait ReplayGuard: Send + Sync + fmt::Debug {
    /// Marks the token's (flow id, round) as used by its principal until
    /// its `retain_until`, after which no instance within the skew opens
    /// the token and the entry may be forgotten. `now` is the caller's
    /// clock, which may differ from other callers' and may step backwards.
    ///
    /// A guard that bounds each principal's share of it
    /// ([`MemoryReplayGuard::principal_share`](crate::state::MemoryReplayGuard::principal_share))
    /// counts the entry against the principal; one that does not ignores it.
    ///
    /// # Errors
    ///
    /// [`ReplayError::Replayed`] when the pair was consumed before;
    /// [`ReplayError::Full`] or [`ReplayError::Unavailable`] when the guard
    /// cannot record it; [`ReplayError::ShareExceeded`] when `principal`
    /// holds its whole share.
    fn consume(&self, token: TokenUse, now: OffsetDateTime) -> Result<(), ReplayError>;

    /// The generation of the guard's memory that will record `flow_id`'s
    /// rounds, now: the codec writes it into every token of the flow it
    /// mints (see [Generations](#generations)). A guard may keep one
    /// generation for all flows, or one per part of its store (the Redis
    /// guard: per group of slots). `None` (the default) for a guard without
    /// generations, or one that has not learnt its generation yet (its
    /// tokens are then minted without one, and a guard with generations
    /// refuses them).
    fn generation(&self, flow_id: FlowId) -> Option<Generation> {
        let _ = flow_id;
        None
    }

    /// The guard's non-blocking face, when it has one. The default, `None`,
    /// says that `consume` may block on I/O: async callers then run it off
    /// their runtime's workers (the [`rmcp`](crate::rmcp) adapter uses
    /// tokio's blocking pool).
    fn as_async(&self) -> Option<&dyn AsyncReplayGuard> {
        None
    }
}

/// What [`AsyncReplayGuard::consume`] returns.
pub type ConsumeFuture<'a> = Pin<Box<dyn Future<Output = Result<(), ReplayError>> + Send + 'a>>;

/// A replay guard that answers without holding a thread while it waits:
/// reached through [`ReplayGuard::as_async`]. Same contract as
/// [`ReplayGuard::consume`]: atomic, fail closed.
///
/// A type with both faces has two methods named `consume`: with both
/// traits in scope, call one as `ReplayGuard::consume(&guard, ..)`.
pub trait AsyncReplayGuard: Send + Sync + fmt::Debug {
    /// [`ReplayGuard::consume`], awaited.
    ///
    /// # Errors
    ///
    /// The future resolves to the errors of [`ReplayGuard::consume`].
    fn consume(&self, token: TokenUse, now: OffsetDateTime) -> ConsumeFuture<'_>;
}

/// The token a replay guard is asked to consume: what it records, and what
/// it may check before it vouches for the token.
///
/// Built by the codec from a token whose tag, binding, times and round
/// checked out. Fields may be added; a guard reads the ones it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TokenUse {
    /// Whom the guard counts the entry against (never the principal itself).
    pub principal: PrincipalKey,
    /// The token's flow.
    pub flow_id: FlowId,
    /// The token's round.
    pub round: u32,
    /// When the token was minted, by the minting instance's clock (whole
    /// seconds, rounded down): its [`issued_at`](crate::state::Claims::issued_at).
    pub issued_at: OffsetDateTime,
    /// The policy's [`skew`](crate::state::Policy::skew): how far the
    /// minting instance's clock may run from the caller's.
    pub skew: Duration,
    /// Until when the entry must be kept: the token's expiry plus the skew.
    pub retain_until: OffsetDateTime,
    /// The generation of the guard memory the token was minted under (its
    /// claim `gen`); `None` when it carries none.
    pub generation: Option<Generation>,
}

impl TokenUse {
    /// Describes a token to consume (see the fields).
    pub fn new(
        principal: PrincipalKey,
        flow_id: FlowId,
        round: u32,
        issued_at: OffsetDateTime,
        skew: Duration,
        retain_until: OffsetDateTime,
    ) -> Self {
        Self {
            principal,
            flow_id,
            round,
            issued_at,
            skew,
            retain_until,
            generation: None,
        }
    }

    /// The same use, of a token minted under `generation`.
    #[must_use]
    pub fn with_generation(mut self, generation: Option<Generation>) -> Self {
        self.generation = generation;
        self
    }
}
