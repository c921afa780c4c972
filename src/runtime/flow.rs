//! [`Flow`]: the codec and the clock a server runs multi-round calls with.

use std::sync::Arc;

use crate::runtime::budget::Budget;
use crate::runtime::clock::{Clock, SystemClock};
use crate::state::StateCodec;

/// Everything a server needs to run multi-round calls: the `requestState`
/// codec (with its key ring, policy, audience and optional replay guard) and a
/// clock. Build one per server and share it.
#[derive(Debug)]
pub struct Flow {
    codec: StateCodec,
    clock: Arc<dyn Clock>,
    /// The shares of a state, from the codec's mode and maximum length.
    budget: Budget,
}

impl Flow {
    /// A flow over `codec`, on the system clock.
    #[must_use]
    pub fn new(codec: StateCodec) -> Self {
        let budget = Budget::new(codec.mode(), codec.policy());
        Self {
            codec,
            clock: Arc::new(SystemClock),
            budget,
        }
    }

    /// Replaces the clock (tests pin time with a [`FixedClock`](crate::runtime::FixedClock)).
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The codec.
    #[must_use]
    pub fn codec(&self) -> &StateCodec {
        &self.codec
    }

    /// How many bytes of a state the answers one flow carries may take
    /// together: the guarantee that no answer a round accepts makes a later
    /// state too long to mint.
    ///
    /// A token of the codec's [`max_token_len`](crate::state::Policy::max_token_len)
    /// characters holds `floor(3 * max_token_len / 4)` bytes, of which the
    /// header and tag take 45 (sealed) or 37 (signed); the claims' fixed
    /// members take at most 131. Of the rest, the answers get three
    /// quarters, counting each as its key and its response as JSON plus 58
    /// bytes (`docs/FORMAT.md` §5.4); the other quarter is for the state's
    /// own part (questions, re-asks, effect names, application data), which
    /// the round checks when it mints ([`Misuse::StateTooLarge`](crate::runtime::Misuse::StateTooLarge)).
    ///
    /// ```
    /// # use mrtr_guard::{Flow, KeyRing, MasterKey, StateCodec};
    /// # let codec = StateCodec::builder("https://mcp.example.com", KeyRing::new(MasterKey::from_bytes(&[7; 32])?)).build()?;
    /// // The default policy (8192 characters), sealed: (6144 - 45 - 131) * 3 / 4.
    /// assert_eq!(Flow::new(codec).answer_budget(), 4476);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn answer_budget(&self) -> usize {
        self.budget.answers
    }

    pub(crate) fn budget(&self) -> Budget {
        self.budget
    }

    pub(crate) fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }
}
