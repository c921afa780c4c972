//! Why a replay guard refused a token.

use std::fmt;

/// Why a replay guard refused a token.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplayError {
    /// The token was used before.
    Replayed,
    /// The guard holds as many live entries as its capacity allows.
    Full {
        /// The guard's capacity.
        capacity: usize,
    },
    /// The token's principal holds as many live entries as its share of
    /// the guard allows: refused before it crowds out other principals.
    ShareExceeded {
        /// The most live entries one principal may hold.
        share: usize,
    },
    /// The guard's store could not be reached or answered in error.
    Unavailable(String),
    /// The token was minted under another generation of the guard's memory
    /// ([`Generation`](crate::state::Generation)): the guard lost what it
    /// recorded since (a restart, a failover, an eviction), so the token
    /// may have been used already. Its flow starts over.
    GenerationChanged,
    /// The token carries no generation: minted before generations existed,
    /// by a codec without this guard, or before the guard learnt its
    /// generation. Its flow starts over.
    NoGeneration,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Replayed => f.write_str("requestState was already used"),
            Self::Full { capacity } => write!(
                f,
                "replay guard is full ({capacity} live entries); refusing rather than forgetting"
            ),
            Self::ShareExceeded { share } => write!(
                f,
                "the principal holds its whole share of the replay guard ({share} live entries)"
            ),
            Self::Unavailable(why) => write!(f, "replay guard unavailable: {why}"),
            Self::GenerationChanged => {
                f.write_str("the guard lost its memory (generation changed)")
            }
            Self::NoGeneration => f.write_str(
                "requestState carries no replay-guard generation (minted by an older \
                 version, or without this guard): the guard cannot vouch for it",
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        assert_eq!(
            ReplayError::Replayed.to_string(),
            "requestState was already used"
        );
        assert_eq!(
            ReplayError::Full { capacity: 3 }.to_string(),
            "replay guard is full (3 live entries); refusing rather than forgetting"
        );
        assert_eq!(
            ReplayError::GenerationChanged.to_string(),
            "the guard lost its memory (generation changed)"
        );
    }
}
