//! [`Policy`]: the limits every token is held to.

use time::Duration;

use crate::state::error::ConfigError;

/// Limits every token is held to. The defaults suit an interactive form:
///
/// | setting | default |
/// | --- | --- |
/// | [`ttl`](Self::ttl): how long one round's token opens | 10 minutes |
/// | [`flow_ttl`](Self::flow_ttl): the whole flow's deadline, fixed at round 1 | 30 minutes |
/// | [`skew`](Self::skew): how far in the future `issued_at` may be | 60 seconds |
/// | [`max_rounds`](Self::max_rounds): how often one flow may ask | 10 |
/// | [`max_token_len`](Self::max_token_len): characters, checked before decoding | 8192 |
///
/// Times are whole seconds; fractions are dropped.
///
/// ```
/// use mrtr_guard::Policy;
/// use time::Duration;
///
/// let policy = Policy::default().with_ttl(Duration::minutes(5)).with_max_rounds(4);
/// assert_eq!(policy.ttl(), Duration::minutes(5));
/// assert_eq!(policy.flow_ttl(), Duration::minutes(30));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    ttl: Duration,
    flow_ttl: Duration,
    skew: Duration,
    max_rounds: u32,
    max_token_len: usize,
}

impl Policy {
    /// The default round TTL: 10 minutes.
    pub const DEFAULT_TTL: Duration = Duration::minutes(10);
    /// The default flow deadline: 30 minutes after round 1.
    pub const DEFAULT_FLOW_TTL: Duration = Duration::minutes(30);
    /// The default clock skew: 60 seconds.
    pub const DEFAULT_SKEW: Duration = Duration::seconds(60);
    /// The default round cap: 10.
    pub const DEFAULT_MAX_ROUNDS: u32 = 10;
    /// The default maximum token length: 8 KiB of text.
    pub const DEFAULT_MAX_TOKEN_LEN: usize = 8 * 1024;
    /// The smallest maximum token length a codec accepts.
    pub const MIN_MAX_TOKEN_LEN: usize = 256;

    /// Sets how long each round's token opens after it is minted.
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets how long a whole flow may take, from its first token.
    #[must_use]
    pub fn with_flow_ttl(mut self, flow_ttl: Duration) -> Self {
        self.flow_ttl = flow_ttl;
        self
    }

    /// Sets how far in the future a token's issue time may lie (clocks of
    /// several instances differ).
    #[must_use]
    pub fn with_skew(mut self, skew: Duration) -> Self {
        self.skew = skew;
        self
    }

    /// Sets how often one flow may ask (return `input_required`).
    #[must_use]
    pub fn with_max_rounds(mut self, max_rounds: u32) -> Self {
        self.max_rounds = max_rounds;
        self
    }

    /// Sets the longest token accepted, in characters.
    #[must_use]
    pub fn with_max_token_len(mut self, max_token_len: usize) -> Self {
        self.max_token_len = max_token_len;
        self
    }

    /// How long each round's token opens.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// How long a whole flow may take.
    pub fn flow_ttl(&self) -> Duration {
        self.flow_ttl
    }

    /// The allowed clock skew.
    pub fn skew(&self) -> Duration {
        self.skew
    }

    /// How often one flow may ask.
    pub fn max_rounds(&self) -> u32 {
        self.max_rounds
    }

    /// The longest token accepted, in characters.
    pub fn max_token_len(&self) -> usize {
        self.max_token_len
    }

    /// Refuses settings out of range, naming the first.
    pub(super) fn check(&self) -> Result<(), ConfigError> {
        if self.ttl.whole_seconds() < 1 {
            return Err(ConfigError::TtlTooShort);
        }
        if self.flow_ttl.whole_seconds() < 1 {
            return Err(ConfigError::FlowTtlTooShort);
        }
        if self.skew.is_negative() {
            return Err(ConfigError::NegativeSkew);
        }
        if self.max_rounds == 0 {
            return Err(ConfigError::ZeroRounds);
        }
        if self.max_token_len < Self::MIN_MAX_TOKEN_LEN {
            return Err(ConfigError::MaxTokenLenTooSmall {
                min: Self::MIN_MAX_TOKEN_LEN,
            });
        }
        Ok(())
    }

    /// The policy with every time cut to whole seconds, as tokens carry them.
    pub(super) fn whole_seconds(self) -> Self {
        Self {
            ttl: Duration::seconds(self.ttl.whole_seconds()),
            flow_ttl: Duration::seconds(self.flow_ttl.whole_seconds()),
            skew: Duration::seconds(self.skew.whole_seconds()),
            ..self
        }
    }
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            ttl: Self::DEFAULT_TTL,
            flow_ttl: Self::DEFAULT_FLOW_TTL,
            skew: Self::DEFAULT_SKEW,
            max_rounds: Self::DEFAULT_MAX_ROUNDS,
            max_token_len: Self::DEFAULT_MAX_TOKEN_LEN,
        }
    }
}
