//! The write-once multi-round handler: [`Flow`] (once per server) and
//! [`Round`] (once per incoming call).
//!
//! The crate root re-exports [`Flow`], [`Call`], [`Round`], [`Reply`],
//! [`Stop`] and [`Response`]; here besides are the clocks a test pins
//! ([`Clock`], [`FixedClock`], [`SystemClock`]), [`Failure`] and a handler's
//! mistake ([`Misuse`], kept on the internal error it becomes).
//!
//! A handler runs top-down on every round, from the top each time. It reads
//! answers first; asks only for what is still missing; and finishes when all
//! is in (side effects: see [`Round::once`]):
//!
//! ```
//! use std::sync::Arc;
//!
//! use mrtr_guard::{Field, Flow, Form, KeyRing, MasterKey, Method, Response, StateCodec, Stop, Call};
//! use mrtr_guard::runtime::FixedClock;
//! use mrtr_guard::wire::{CallParams, ClientCapabilities, RequestMeta};
//! use serde_json::json;
//! use time::OffsetDateTime;
//!
//! let key = MasterKey::from_bytes(&[7; 32])?;
//! let codec = StateCodec::builder("https://mcp.example.com/mcp", KeyRing::new(key)).build()?;
//! let flow = Flow::new(codec);
//! let ship = Form::builder("Where should we ship?")
//!     .field(Field::string("trackingNumber").required())
//!     .build()?;
//!
//! // The handler: the same code serves every round.
//! let handler = |round: &mut mrtr_guard::Round<'_>| -> Result<String, Stop> {
//!     let answers = round.require("ship", &ship)?;
//!     Ok(format!("Shipped as {}.", answers.str("trackingNumber")?))
//! };
//!
//! // Round 1: no state, so the form is asked.
//! let meta = RequestMeta::new("2026-07-28", ClientCapabilities::none().with_elicitation_form());
//! let call = || Call::new(CallParams::new(Method::ToolsCall, "ShipOrder", meta.clone())).with_principal("ada");
//! let Response::InputRequired(asked) = flow.run(call(), handler)? else { unreachable!() };
//! let state = asked.request_state().unwrap_or_default().to_owned();
//!
//! // Round 2: the client answers and echoes the state.
//! let answers = mrtr_guard::wire::InputResponses::from_json(&json!({
//!     "ship": {"action": "accept", "content": {"trackingNumber": "1Z999"}}}))?;
//! let retry = Call::new(CallParams::new(Method::ToolsCall, "ShipOrder", meta.clone())
//!     .with_input_responses(answers)
//!     .with_request_state(state))
//!     .with_principal("ada");
//! assert_eq!(flow.run(retry, handler)?, Response::Complete("Shipped as 1Z999.".to_owned()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod budget;
mod clock;
mod misuse;
mod reask;
mod reply;
mod round;

use std::sync::Arc;

pub use clock::{Clock, FixedClock, SystemClock};
pub use misuse::Misuse;
pub use reply::{Failure, Reply, Response, Stop};
#[cfg(feature = "rmcp")]
pub(crate) use round::Opened;
pub use round::Round;

use crate::state::StateCodec;
use crate::wire::CallParams;
use crate::wire::RpcError;
use budget::Budget;

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

    /// Replaces the clock (tests pin time with a [`FixedClock`]).
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

    /// Starts handling one call: verifies its `requestState`, if any, against
    /// the call's principal, method, target and arguments.
    ///
    /// A call without `requestState` is round 1, whatever `inputResponses` it
    /// carries.
    ///
    /// # Errors
    ///
    /// [`RpcError::invalid_request_state`] when the state does not open, for
    /// any reason (forged, bound to another call or user, expired, past the
    /// flow's deadline or round cap, replayed). The client gets that one
    /// error; the reason stays on it for the server
    /// ([`RpcError::state_error`]), and with feature `tracing` the codec
    /// has emitted an event for it.
    ///
    /// ```
    /// # use mrtr_guard::{Call, Flow, KeyRing, MasterKey, Method, StateCodec};
    /// # use mrtr_guard::wire::{CallParams, ClientCapabilities, RequestMeta};
    /// use mrtr_guard::{RpcError, StateError};
    /// # let codec = StateCodec::builder("https://mcp.example.com", KeyRing::new(MasterKey::from_bytes(&[7; 32])?)).build()?;
    /// # let flow = Flow::new(codec);
    /// # let meta = RequestMeta::new("2026-07-28", ClientCapabilities::none());
    /// let call = Call::new(CallParams::new(Method::ToolsCall, "ShipOrder", meta)
    ///     .with_request_state("not-a-token"))
    ///     .with_principal("ada");
    /// let error = flow.round(call).unwrap_err();
    /// assert_eq!(error.state_error(), Some(&StateError::Malformed)); // for your logs
    /// assert_eq!(error.to_json(), RpcError::invalid_request_state().to_json()); // for the client
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn round(&self, call: Call) -> Result<Round<'_>, RpcError> {
        Round::open(self, call)
    }

    /// Runs a synchronous handler for one call: [`round`](Self::round), the
    /// handler, [`Round::complete`].
    ///
    /// <div class="warning">
    ///
    /// `handler` runs from the top in every round of the flow: once for the
    /// first call, and again for each retry that brings answers. Code before
    /// the asks it depends on runs each time. Keep side effects after the
    /// asks, or run them through [`Round::once`], which runs an effect once
    /// per flow (its exact terms, with and without a replay guard, are in
    /// its docs).
    ///
    /// </div>
    ///
    /// A flow that cannot go on for a reason the user should hear (answers
    /// that kept failing validation, the round cap or the deadline reached
    /// while asking) ends with [`Response::Failed`], to send as a tool error.
    ///
    /// # Errors
    ///
    /// As [`round`](Self::round) and [`Round::complete`], and any
    /// [`Stop::Failed`] the handler returns.
    pub fn run<T, F>(&self, call: Call, handler: F) -> Result<Response<T>, RpcError>
    where
        F: FnOnce(&mut Round<'_>) -> Result<T, Stop>,
    {
        let mut round = self.round(call)?;
        let result = handler(&mut round);
        round.complete(result)
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

/// One incoming call: its parsed params and the principal your
/// authentication established for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    params: CallParams,
    principal: Option<String>,
}

impl Call {
    /// An anonymous call (tokens for it open only on a codec built with
    /// [`allow_anonymous`](crate::state::CodecBuilder::allow_anonymous)).
    #[must_use]
    pub fn new(params: CallParams) -> Self {
        Self {
            params,
            principal: None,
        }
    }

    /// Sets the authenticated principal: a stable user id from your
    /// authentication layer, never a value the client reports about itself.
    #[must_use]
    pub fn with_principal(mut self, principal: impl Into<String>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// The params.
    #[must_use]
    pub fn params(&self) -> &CallParams {
        &self.params
    }

    /// The principal, if any.
    #[must_use]
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }
}
