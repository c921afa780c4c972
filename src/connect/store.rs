//! The contract of a connection store: sealed connections, one per
//! (owner, name), until they expire.
//!
//! A store keeps bytes it cannot read: every connection is sealed with the
//! connector's key and bound to its principal and name before it gets
//! here, and the owner is a [`PrincipalKey`] (an HMAC of the principal),
//! never the principal itself.

use std::error::Error;
use std::fmt;

use time::OffsetDateTime;

use crate::state::PrincipalKey;

/// Keeps sealed connections.
///
/// Calls are synchronous, as [`ReplayGuard::consume`](crate::state::ReplayGuard::consume)
/// is: a store on the network blocks its caller for one round trip.
pub trait ConnectionStore: Send + Sync + fmt::Debug {
    /// Keeps `sealed` as `owner`'s connection `name` until `expires_at`,
    /// replacing any connection of that name the owner had.
    ///
    /// # Errors
    ///
    /// [`ConnectionStoreError`] when the store cannot keep it.
    fn put(
        &self,
        owner: PrincipalKey,
        name: &str,
        sealed: Vec<u8>,
        expires_at: OffsetDateTime,
    ) -> Result<(), ConnectionStoreError>;

    /// `owner`'s connection `name`, unless it expired by `now`.
    ///
    /// # Errors
    ///
    /// [`ConnectionStoreError`] when the store cannot tell.
    fn find(
        &self,
        owner: PrincipalKey,
        name: &str,
        now: OffsetDateTime,
    ) -> Result<Option<Vec<u8>>, ConnectionStoreError>;

    /// Forgets `owner`'s connection `name` (the user disconnected).
    ///
    /// # Errors
    ///
    /// [`ConnectionStoreError`] when the store cannot tell.
    fn remove(&self, owner: PrincipalKey, name: &str) -> Result<(), ConnectionStoreError>;
}

/// Why a connection store failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectionStoreError {
    /// The store holds as many connections as it may.
    Full,
    /// The store could not be reached or did not answer; the text says why
    /// (never a connection's bytes).
    Unavailable(String),
}

impl fmt::Display for ConnectionStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full => f.write_str("the connection store is full"),
            Self::Unavailable(why) => write!(f, "the connection store is unavailable: {why}"),
        }
    }
}

impl Error for ConnectionStoreError {}
