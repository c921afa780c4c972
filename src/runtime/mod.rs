//! The write-once multi-round handler: [`Flow`] (once per server) and
//! [`Round`] (once per incoming call).
//!
//! The crate root re-exports [`Flow`], [`Call`], [`Round`], [`Reply`],
//! [`Stop`] and [`RoundEnd`]; here besides are the clocks a test pins
//! ([`Clock`], [`FixedClock`], [`SystemClock`]), [`AbortReason`], a handler's
//! mistake ([`Misuse`], kept on the internal error it becomes), and what an
//! async host opens a call into ([`Opening`], [`Opened`]; see
//! [`Flow::open_async`]), and whether a call may run on as a task
//! ([`TaskPhase`], [`Round::task`]), and a task's work done once
//! ([`Round::step`]).
//!
//! A handler runs top-down on every round, from the top each time. It reads
//! answers first; asks only for what is still missing; and finishes when all
//! is in (side effects: see [`Round::once`]):
//!
//! ```
//! use std::sync::Arc;
//!
//! use mrtr_guard::{Field, Flow, Form, KeyRing, MasterKey, Method, RoundEnd, StateCodec, Stop, Call};
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
//! let RoundEnd::InputRequired(asked) = flow.run(call(), handler)? else { unreachable!() };
//! let state = asked.request_state().unwrap_or_default().to_owned();
//!
//! // Round 2: the client answers and echoes the state.
//! let answers = mrtr_guard::wire::InputResponses::from_json(&json!({
//!     "ship": {"action": "accept", "content": {"trackingNumber": "1Z999"}}}))?;
//! let retry = Call::new(CallParams::new(Method::ToolsCall, "ShipOrder", meta.clone())
//!     .with_input_responses(answers)
//!     .with_request_state(state))
//!     .with_principal("ada");
//! assert_eq!(flow.run(retry, handler)?, RoundEnd::Complete("Shipped as 1Z999.".to_owned()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The files: `flow` (the codec and clock calls run with), `call` (one
// incoming call and its principal), `round/` (one round: opened, asked,
// completed), `reply` (what an ask gives, how a handler stops, how a round
// ends), `reask` (an invalid answer asked again), `budget` (how much of a
// state carried answers may take), `task` (whether a call may run on as a
// task, and the task a run is inside), `journal` (where a task's steps are
// recorded), `misuse` (a handler's mistakes), `clock` (where the time comes
// from).
mod budget;
mod call;
mod clock;
mod flow;
mod journal;
mod misuse;
mod reask;
mod reply;
mod round;
mod task;

pub use call::Call;
pub use clock::{Clock, FixedClock, SystemClock};
pub use flow::Flow;
#[cfg(feature = "server")]
pub(crate) use journal::{Journal, JournalFuture};
pub use misuse::Misuse;
#[cfg(feature = "server")]
pub(crate) use reask::{asks_again, reask_message};
pub use reply::{AbortReason, Reply, RoundEnd, Stop};
pub use round::{Opened, Opening, Round};
pub use task::TaskPhase;
#[cfg(any(feature = "tower", feature = "rmcp"))]
pub(crate) use task::TaskRun;
