//! What can go wrong when opening, minting or configuring tokens.

use std::fmt;

use crate::state::replay::ReplayError;
use crate::wire::RpcError;

/// Why a `requestState` did not open.
///
/// Each variant names one reason, for logs and metrics ([`reason`](Self::reason)).
/// The client is told none of them: every variant maps to the same JSON-RPC
/// error ([`RpcError::invalid_request_state`](crate::wire::RpcError::invalid_request_state)).
/// A wrong tag and a wrong binding are one variant, [`Forged`](Self::Forged),
/// on purpose: they cannot be told apart without the key, and should not be.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateError {
    /// Longer than the policy's maximum; refused before decoding.
    TooLarge,
    /// Not strict unpadded URL-safe base64, or too short for its version.
    Malformed,
    /// An unknown version byte, or a mode this codec does not accept.
    UnsupportedVersion,
    /// The key id names no key in the ring.
    UnknownKey,
    /// The tag does not verify: the token was changed, or it was minted for
    /// another principal, method, target, arguments or audience.
    Forged,
    /// The token is authentic but its claims do not parse into the
    /// application's type (the type changed while tokens were in flight).
    BadClaims,
    /// The round's time to live has passed.
    Expired,
    /// Issued further in the future than the allowed clock skew.
    NotYetValid,
    /// The flow's absolute deadline has passed.
    FlowExpired,
    /// The flow asked more often than the policy allows.
    TooManyRounds,
    /// The token was already used (only with a replay guard).
    Replayed,
    /// The replay guard could not record the token, so it was refused.
    ReplayGuard(ReplayError),
    /// The token's principal holds its whole share of the replay guard
    /// ([`ReplayError::ShareExceeded`]): refused so that one principal
    /// cannot crowd out the others.
    ReplayShareExceeded,
    /// The binding has no principal (or an empty one), and the codec was not
    /// built for anonymous use. A server bug, not a client's.
    MissingPrincipal,
    /// The token was minted under another generation of the replay guard's
    /// memory ([`ReplayError::GenerationChanged`]): the guard lost what it
    /// recorded since, so it cannot tell whether the token was used. Its
    /// flow starts over.
    GenerationChanged,
    /// The token carries no replay-guard generation
    /// ([`ReplayError::NoGeneration`]): minted by an older version of this
    /// crate, by a codec without the guard, or before the guard learnt its
    /// generation. Its flow starts over.
    NoGeneration,
}

impl StateError {
    /// A short, stable, snake-case name for logs and metrics.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::TooLarge => "too_large",
            Self::Malformed => "malformed",
            Self::UnsupportedVersion => "unsupported_version",
            Self::UnknownKey => "unknown_key",
            Self::Forged => "forged",
            Self::BadClaims => "bad_claims",
            Self::Expired => "expired",
            Self::NotYetValid => "not_yet_valid",
            Self::FlowExpired => "flow_expired",
            Self::TooManyRounds => "too_many_rounds",
            Self::Replayed => "replayed",
            Self::ReplayGuard(_) => "replay_guard_failed",
            Self::ReplayShareExceeded => "replay_share_exceeded",
            Self::MissingPrincipal => "missing_principal",
            Self::GenerationChanged => "generation_changed",
            Self::NoGeneration => "no_generation",
        }
    }
}

impl StateError {
    /// The codec's reading of a replay guard's refusal.
    pub(crate) fn from_replay(error: ReplayError) -> Self {
        match error {
            ReplayError::Replayed => Self::Replayed,
            ReplayError::ShareExceeded { .. } => Self::ReplayShareExceeded,
            ReplayError::GenerationChanged => Self::GenerationChanged,
            ReplayError::NoGeneration => Self::NoGeneration,
            other => Self::ReplayGuard(other),
        }
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLarge => f.write_str("requestState is longer than the policy allows"),
            Self::Malformed => {
                f.write_str("requestState is not a well-formed token (strict unpadded base64url)")
            }
            Self::UnsupportedVersion => {
                f.write_str("requestState has a version or mode this codec does not accept")
            }
            Self::UnknownKey => {
                f.write_str("requestState names a key id that is not in the key ring")
            }
            Self::Forged => f.write_str(
                "requestState does not verify: altered, or minted for another request or principal",
            ),
            Self::BadClaims => f.write_str(
                "requestState is authentic but its claims do not fit the application type",
            ),
            Self::Expired => f.write_str("requestState has expired"),
            Self::NotYetValid => {
                f.write_str("requestState was issued in the future beyond the allowed skew")
            }
            Self::FlowExpired => f.write_str("the flow's deadline has passed"),
            Self::TooManyRounds => {
                f.write_str("the flow has used more rounds than the policy allows")
            }
            Self::Replayed => f.write_str("requestState was already used"),
            Self::ReplayGuard(_) => f.write_str("the replay guard could not record requestState"),
            Self::ReplayShareExceeded => f.write_str(
                "the principal holds its whole share of the replay guard; requestState refused",
            ),
            Self::MissingPrincipal => f.write_str(
                "the binding has no principal; bind the authenticated caller \
                 (Binding::new), or build the codec with allow_anonymous() for tools that \
                 need no authentication",
            ),
            Self::GenerationChanged => {
                f.write_str("the guard lost its memory (generation changed)")
            }
            Self::NoGeneration => f.write_str(
                "requestState carries no replay-guard generation (minted by an older version, \
                 or without this guard); its flow starts over",
            ),
        }
    }
}

impl std::error::Error for StateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::ReplayGuard(inner) => Some(inner),
            _ => None,
        }
    }
}

/// Why a token could not be minted. These are the server's problems, not the
/// client's: nothing here is sent on the wire.
#[derive(Debug)]
#[non_exhaustive]
pub enum MintError {
    /// The binding has no principal (or an empty one), and the codec was not
    /// built for anonymous use.
    MissingPrincipal,
    /// The flow has already asked as often as the policy allows.
    TooManyRounds {
        /// The policy's round cap.
        max_rounds: u32,
    },
    /// The flow's deadline has passed; it cannot ask again.
    FlowExpired,
    /// The token would be longer than the policy's maximum, so no verifier
    /// with the same policy would open it. Carry less.
    TooLarge {
        /// The token's length in characters.
        len: usize,
        /// The policy's maximum.
        max: usize,
    },
    /// The application data did not serialize to JSON.
    Serialize(serde_json::Error),
    /// The operating system's random number generator failed.
    Rng,
    /// A time computed from `now` and the policy is outside the supported range.
    TimeOutOfRange,
    /// The cipher refused the input (longer than XChaCha20-Poly1305 allows).
    Encrypt,
}

impl fmt::Display for MintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingPrincipal => f.write_str(
                "the binding has no principal; bind the authenticated caller \
                 (Binding::new), or build the codec with allow_anonymous() for tools that \
                 need no authentication",
            ),
            Self::TooManyRounds { max_rounds } => {
                write!(
                    f,
                    "the flow has already asked {max_rounds} times, the policy's maximum"
                )
            }
            Self::FlowExpired => f.write_str("the flow's deadline has passed"),
            Self::TooLarge { len, max } => write!(
                f,
                "the token would be {len} characters, over the policy's maximum of {max}; \
                 carry less in the state, or raise Policy::with_max_token_len"
            ),
            Self::Serialize(_) => f.write_str("application data did not serialize to JSON"),
            Self::Rng => f.write_str("the operating system's random number generator failed"),
            Self::TimeOutOfRange => {
                f.write_str("token times fall outside the supported date range")
            }
            Self::Encrypt => f.write_str("the cipher refused the claims"),
        }
    }
}

impl std::error::Error for MintError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Serialize(inner) => Some(inner),
            _ => None,
        }
    }
}

/// Why a codec could not be built from its settings.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// The audience (the server's identity) is empty.
    EmptyAudience,
    /// The audience is not an absolute `http://` or `https://` URL with a
    /// host (the MCP endpoint, as clients reach it).
    InvalidAudience,
    /// The round TTL is shorter than one second.
    TtlTooShort,
    /// The flow deadline is shorter than one second.
    FlowTtlTooShort,
    /// The clock skew is negative.
    NegativeSkew,
    /// The round cap is zero: no flow could ever ask.
    ZeroRounds,
    /// The maximum token length is below what the smallest token needs.
    MaxTokenLenTooSmall {
        /// The smallest maximum accepted.
        min: usize,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyAudience => f.write_str(
                "the audience is empty; give StateCodec::builder the MCP endpoint's URL, \
                 as clients reach it (e.g. https://mcp.example.com/mcp)",
            ),
            Self::InvalidAudience => f.write_str(
                "the audience is not an absolute http(s) URL; give StateCodec::builder the \
                 MCP endpoint's URL with scheme and host, as clients reach it \
                 (e.g. https://mcp.example.com/mcp)",
            ),
            Self::TtlTooShort => f.write_str(
                "the round ttl is under one second; give Policy::with_ttl at least one \
                 second (the default is 10 minutes)",
            ),
            Self::FlowTtlTooShort => f.write_str(
                "the flow deadline is under one second; give Policy::with_flow_ttl at least \
                 one second (the default is 30 minutes)",
            ),
            Self::NegativeSkew => f.write_str(
                "the clock skew is negative; give Policy::with_skew zero or more \
                 (the default is 60 seconds)",
            ),
            Self::ZeroRounds => f.write_str(
                "the round cap is 0, so no flow could ask; give Policy::with_max_rounds \
                 at least 1 (the default is 10)",
            ),
            Self::MaxTokenLenTooSmall { min } => write!(
                f,
                "the maximum token length is too small for any token; give \
                 Policy::with_max_token_len at least {min} characters (the default is 8192)"
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

// `wire` names no state type: the conversion to the wire error and its typed
// accessor live here; the `RpcError` keeps the `StateError` as its cause.

impl From<&StateError> for RpcError {
    /// Every reason maps to the same wire error: the client learns nothing
    /// about why its token failed. The server keeps the reason
    /// ([`state_error`](RpcError::state_error)).
    fn from(error: &StateError) -> Self {
        Self::invalid_request_state().with_cause(error.clone())
    }
}

impl From<StateError> for RpcError {
    fn from(error: StateError) -> Self {
        Self::invalid_request_state().with_cause(error)
    }
}

impl RpcError {
    /// Why the call's `requestState` was refused, when that is what this
    /// error reports: for the server's logs and metrics
    /// ([`StateError::reason`]), never for the client.
    ///
    /// ```
    /// use mrtr_guard::{RpcError, StateError};
    ///
    /// let error = RpcError::from(StateError::Expired);
    /// assert_eq!(error.state_error().map(StateError::reason), Some("expired"));
    /// // The client sees what every bad state gets.
    /// assert_eq!(error.to_json(), RpcError::invalid_request_state().to_json());
    /// assert_eq!(RpcError::invalid_request_state().state_error(), None);
    /// ```
    pub fn state_error(&self) -> Option<&StateError> {
        self.cause()
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use super::*;

    #[test]
    fn every_state_error_is_the_same_wire_error() {
        let expected = serde_json::json!({"code": -32602,
            "message": "Invalid or expired requestState",
            "data": {"reason": "invalid_request_state"}});
        for error in [
            StateError::Forged,
            StateError::Expired,
            StateError::TooLarge,
            StateError::Replayed,
        ] {
            let wire = RpcError::from(&error);
            assert_eq!(wire.to_json(), expected);
            assert_eq!(wire, RpcError::invalid_request_state());
            assert_eq!(wire.state_error(), Some(&error));
            assert_eq!(RpcError::from(error.clone()).state_error(), Some(&error));
            let source = std::error::Error::source(&wire).map(ToString::to_string);
            assert_eq!(source, Some(error.to_string()));
        }
        assert_eq!(RpcError::invalid_request_state().state_error(), None);
    }

    #[test]
    fn reasons_are_distinct_snake_case() {
        let all = [
            StateError::TooLarge,
            StateError::Malformed,
            StateError::UnsupportedVersion,
            StateError::UnknownKey,
            StateError::Forged,
            StateError::BadClaims,
            StateError::Expired,
            StateError::NotYetValid,
            StateError::FlowExpired,
            StateError::TooManyRounds,
            StateError::Replayed,
            StateError::ReplayGuard(ReplayError::Full { capacity: 1 }),
            StateError::ReplayShareExceeded,
            StateError::MissingPrincipal,
        ];
        let mut reasons: Vec<_> = all.iter().map(StateError::reason).collect();
        assert!(
            reasons
                .iter()
                .all(|r| r.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        );
        reasons.sort_unstable();
        reasons.dedup();
        assert_eq!(reasons.len(), all.len());
        for error in &all {
            let text = error.to_string();
            assert!(
                text.chars().next().is_some_and(char::is_lowercase),
                "{text}"
            );
        }
    }

    #[test]
    fn golden_messages() {
        assert_eq!(StateError::Expired.to_string(), "requestState has expired");
        assert_eq!(
            StateError::Forged.to_string(),
            "requestState does not verify: altered, or minted for another request or principal"
        );
    }
}
