//! [`Round`]: the handler's view of one call, what it reads of the call
//! and the flow, and the effects it runs once.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::OnceLock;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::json::JsonDigest;
use crate::runtime::call::Call;
use crate::runtime::flow::Flow;
use crate::runtime::misuse::Misuse;
use crate::runtime::reply;
use crate::runtime::task::TaskPhase;
use crate::state::{Claims, FlowId, ProvenAnswer, Reask};
use crate::wire::{ClientCapabilities, InputRequests, Method, RpcError};

/// The handler's view of one incoming call.
///
/// Each ask method ([`form`](Self::form), [`require`](Self::require),
/// [`url`](Self::url), [`sample`](Self::sample), [`roots`](Self::roots))
/// names its question with a key and returns the answer if the flow has one.
/// An answer counts only if the verified `requestState` says this exact
/// question (digest of its `inputRequests` entry) was asked under that key,
/// or an earlier round proved it; everything else in `inputResponses` is
/// ignored. Questions without an answer are collected, and all of them go out
/// in one `InputRequiredResult` with a freshly minted state that carries the
/// proven answers and the application state forward, sealed.
///
/// <div class="warning">
///
/// **The handler runs again from the top in every round.** Everything before
/// the last ask it reaches runs once per round: a side effect there (an
/// email, a payment, a write) happens again each time the client answers.
/// Put effects after the asks they depend on, or wrap them in
/// [`once`](Self::once), which runs an effect once per flow.
///
/// </div>
///
/// What a flow keeps between rounds, and how it ends:
///
/// - **Invalid answers** are asked again, the form's message followed by
///   what to correct, field by field, never the submitted value (a new
///   question, with its own digest). Which answers are invalid here (an
///   invalid optional value too), and the opt-out for answers that are only
///   hints: [`Field::drop_if_invalid`](crate::form::Field::drop_if_invalid).
///   After [`MAX_INVALID`](Self::MAX_INVALID) invalid answers in a row to
///   one question the flow ends with
///   [`RoundEnd::Aborted`](crate::runtime::RoundEnd::Aborted); the count rides in the sealed state, so only a
///   new flow (round 1) starts it over. A missing answer neither counts nor
///   resets it.
/// - **Answers are bounded**: the answers one flow carries share
///   [`Flow::answer_budget`] bytes of the state. An answer that would take
///   them past it is invalid ([`Problem::TooLarge`](crate::form::Problem::TooLarge)) and asked again, so no
///   answer a round accepts can make a later state too long to mint.
/// - **Forms that changed** (a deploy between two rounds changed a form or
///   its message, and so its digest): the answer proven for the old form is
///   not used, the new form is asked, and the old answer is not carried on.
/// - **Limits**: a flow that must ask again after its round cap or deadline
///   ends with [`RoundEnd::Aborted`](crate::runtime::RoundEnd::Aborted); a state that does not open is the
///   opaque `-32602` of [`Flow::round`].
/// - **Mistakes are loud**: [`Stop::Ask`](crate::runtime::Stop::Ask) with nothing asked, or two
///   different questions under one key in one round, end the round with an
///   internal error naming the [`Misuse`].
///
/// The runtime never asks what the client did not declare in this request's
/// capabilities: such an ask returns [`Reply::Unsupported`](crate::runtime::Reply::Unsupported) (and
/// [`require`](Self::require) fails with `-32021`).
///
/// `Debug` shows the method, target, round number, the keys and digests of
/// questions and answers, the re-ask counts and the effect names, never an
/// answer, the call's arguments or the application data.
pub struct Round<'f> {
    pub(super) flow: &'f Flow,
    pub(super) call: Call,
    /// The opened state's times, round and flow id; its contents are in
    /// the fields below.
    pub(super) claims: Option<Claims<()>>,
    /// The questions the opened state says were asked.
    pub(super) questions: BTreeMap<String, JsonDigest>,
    /// Which of them were re-asks, and after how many invalid answers.
    pub(super) reasks: BTreeMap<String, Reask>,
    /// Answers proven by this round or an earlier one.
    pub(super) answers: BTreeMap<String, ProvenAnswer>,
    /// What `answers` takes of the answer budget.
    pub(super) answers_len: usize,
    /// The effects that ran in this flow, this round's included.
    pub(super) ran_effects: BTreeSet<String>,
    /// The steps done in this task (its journal's) or flow, by name: their
    /// results, this round's included.
    pub(super) steps: BTreeMap<String, Value>,
    /// The application data as the claims hold it (JSON text; `None` for
    /// none): carried from state to state as it is, never parsed into a tree
    /// unless the handler reads it.
    pub(super) app: App,
    /// What this round asks.
    pub(super) next: Next,
    /// The digest of the call's arguments, when opening the state made it.
    pub(super) arguments_digest: Option<JsonDigest>,
    /// On round 1, the flow id drawn when the handler asked for it: the
    /// state this round mints carries it.
    pub(super) fresh_id: OnceLock<FlowId>,
}

/// The application data a state carries: its JSON text, or none (`null`).
pub(super) type App = Option<Box<RawValue>>;

/// What a round asks, and what went wrong while it asked.
#[derive(Debug, Default)]
pub(super) struct Next {
    pub(super) asks: InputRequests,
    /// Key -> digest of the `inputRequests` entry sent under it.
    pub(super) questions: BTreeMap<String, JsonDigest>,
    /// Key -> the count of invalid answers a question asked now carries.
    pub(super) reasks: BTreeMap<String, Reask>,
    /// Key -> the digest of the question the handler named under it.
    pub(super) named: BTreeMap<String, JsonDigest>,
    /// What the asks this round could not send would have needed.
    pub(super) missing: ClientCapabilities,
    /// A question whose answers kept failing validation.
    pub(super) exhausted: Option<String>,
    /// The keys whose answer was invalid in this round, each told to the
    /// operator once.
    pub(super) invalid: BTreeSet<String>,
    /// The handler's first mistake.
    pub(super) misuse: Option<Misuse>,
}

impl Round<'_> {
    /// How many invalid answers in a row end a flow: the third.
    pub const MAX_INVALID: u32 = reply::MAX_INVALID;

    /// The method called.
    #[must_use]
    pub fn method(&self) -> Method {
        self.call.params().method()
    }

    /// The call's target ([`Method::target_key`]).
    #[must_use]
    pub fn target(&self) -> &str {
        self.call.params().target()
    }

    /// The call's arguments (bound into the state: they cannot change
    /// between rounds).
    #[must_use]
    pub fn arguments(&self) -> Option<&Value> {
        self.call.params().arguments()
    }

    /// The authenticated principal, or `None` when the call is anonymous
    /// (only possible when the codec
    /// [allows anonymous states](crate::state::CodecBuilder::allow_anonymous)).
    /// Where the mount guarantees one,
    /// [`principal_or_anonymous`](Self::principal_or_anonymous) spares the
    /// `Option`.
    #[must_use]
    pub fn principal(&self) -> Option<&str> {
        self.call.principal()
    }

    /// The authenticated principal, or `""` when the call is anonymous. The
    /// codec binds no state to an empty principal (and `McpServer` refuses
    /// one where the codec needs a principal), so `""` stands for anonymous
    /// only. Behind a codec that refuses anonymous states, this is the
    /// caller's principal.
    ///
    /// ```
    /// # use mrtr_guard::{Call, Flow, KeyRing, MasterKey, Method, StateCodec};
    /// # use mrtr_guard::wire::{CallParams, ClientCapabilities, RequestMeta};
    /// # let key = KeyRing::new(MasterKey::from_bytes(&[7; 32])?);
    /// # let codec = StateCodec::builder("https://mcp.example.com/mcp", key).allow_anonymous().build()?;
    /// # let flow = Flow::new(codec);
    /// # let meta = RequestMeta::new("2026-07-28", ClientCapabilities::none());
    /// let call = || Call::new(CallParams::new(Method::ToolsCall, "ShipOrder", meta.clone()));
    /// assert_eq!(flow.round(call().with_principal("ada"))?.principal_or_anonymous(), "ada");
    /// assert_eq!(flow.round(call())?.principal_or_anonymous(), "");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn principal_or_anonymous(&self) -> &str {
        self.call.principal().unwrap_or_default()
    }

    /// The capabilities this request declares.
    #[must_use]
    pub fn capabilities(&self) -> &ClientCapabilities {
        self.call.params().meta().capabilities()
    }

    /// Which round this is: 1 without state, then 2, 3, ...
    #[must_use]
    pub fn number(&self) -> u32 {
        self.claims
            .as_ref()
            .map_or(1, |claims| claims.round().saturating_add(1))
    }

    /// Whether this call carried no state.
    #[must_use]
    pub fn is_first(&self) -> bool {
        self.claims.is_none()
    }

    /// The application state an earlier round set, if any and if it fits `T`.
    #[must_use]
    pub fn app<T: DeserializeOwned>(&self) -> Option<T> {
        let app = self.app.as_deref().filter(|app| app.get() != "null")?;
        serde_json::from_str(app.get()).ok()
    }

    /// Sets the application state carried (sealed) to the next round. It is
    /// authenticated like the rest of the state, but remember that in signed
    /// mode the client can read it.
    ///
    /// # Errors
    ///
    /// [`RpcError::internal_error`] when `value` does not serialize to JSON.
    pub fn set_app<T: Serialize>(&mut self, value: &T) -> Result<(), RpcError> {
        let app = serde_json::value::to_raw_value(value).map_err(|_| RpcError::internal_error())?;
        self.app = Some(app);
        Ok(())
    }

    /// The flow's identifier: the same in every round of one flow, and
    /// different for every flow. Build idempotency keys from it (with the
    /// effect's name: `format!("{id}:send-invoice")`), so that the system
    /// an effect writes to can refuse a repeat that [`once`](Self::once)
    /// alone does not stop.
    ///
    /// It is the flow id of the sealed state: 128 bits from the OS random
    /// generator, drawn on round 1 (when first asked for, and then carried in
    /// the state this round mints), so it cannot be guessed or made to
    /// collide with another flow's. It is not secret: in signed mode the
    /// client can read it from its state, and the replay guard and the
    /// `tracing` events record it. `Display` gives 32 hex digits. On round
    /// 1 the id lives only in the state the round mints: a round 1 that
    /// ends in an error mints none, and the client's retry is a new flow,
    /// with a new id.
    ///
    /// # Errors
    ///
    /// On round 1 only, [`RpcError::internal_error`] when the OS random
    /// generator fails.
    pub fn flow_id(&self) -> Result<FlowId, RpcError> {
        if let Some(claims) = &self.claims {
            return Ok(claims.flow_id());
        }
        if let Some(id) = self.fresh_id.get() {
            return Ok(*id);
        }
        let id = FlowId::random().ok_or_else(RpcError::internal_error)?;
        Ok(*self.fresh_id.get_or_init(|| id))
    }

    /// Runs the rest of the handler as a task (the Tasks extension,
    /// SEP-2663), where the host allows it: the long work of a tool goes
    /// after this call. Write `round.task()?;`.
    ///
    /// - When the client declared the extension and the tool may run as a
    ///   task, the call ends here with [`Stop::Task`](crate::runtime::Stop::Task):
    ///   the host creates the task, answers the call with it, and runs the
    ///   handler again inside the task, from the top, with the answers
    ///   the flow has so far (asks before this call are ordinary rounds,
    ///   before the task).
    /// - Inside the task, and when the call runs to its end in the call (a
    ///   client that did not declare the extension, a host that runs no
    ///   tasks), it returns `Ok` at once: the handler goes on, and its asks
    ///   park their questions on the task, or are ordinary rounds.
    ///
    /// Which it is, is the call's [`TaskPhase`](crate::runtime::TaskPhase).
    ///
    /// # Errors
    ///
    /// [`Stop::Task`](crate::runtime::Stop::Task) where the call becomes a
    /// task here; a handler that calls this for a tool its server did not
    /// declare as one that may run as a task ends the round with an internal
    /// error ([`Misuse::TaskNotDeclared`]).
    pub fn task(&mut self) -> Result<(), reply::Stop> {
        match self.call.task_phase() {
            TaskPhase::Synchronous | TaskPhase::Inside => Ok(()),
            TaskPhase::Offered => Err(reply::Stop::Task),
            TaskPhase::NotDeclared => {
                self.next.misuse.get_or_insert(Misuse::TaskNotDeclared);
                Err(reply::Stop::Task)
            }
        }
    }

    /// Whether this run is a task's (its asks park their questions on
    /// the task).
    #[must_use]
    pub fn is_task(&self) -> bool {
        self.call.task_phase() == TaskPhase::Inside
    }

    /// Runs `effect` once per flow: in the first round that reaches this
    /// call, and never again in a round that carries a state minted after
    /// it. Returns its result when it ran, `None` when an earlier round ran
    /// it. `name` tells the effects of one handler apart.
    ///
    /// What it guarantees: the rounds after the one that ran the effect,
    /// each on the state the round before it minted, do not run it again.
    /// What it does not,
    /// without a [`ReplayGuard`](crate::state::ReplayGuard) on the codec:
    /// that the effect runs at most once. The marker that it ran travels in
    /// the state this round mints, so:
    ///
    /// - an effect in a round that completes runs once (no later round);
    /// - an effect followed by an ask runs once if the client comes back with
    ///   the state that ask sends; a round that ends in an error mints no
    ///   state, so the effect runs again when the client retries with the
    ///   state it had;
    /// - **a state from before the effect, presented again, runs it again**
    ///   (a client may replay any state it holds within its TTL), unless
    ///   the codec has a replay guard, which refuses a state the second time;
    /// - **a new flow (a call without state) runs it again**: to the runtime
    ///   it is another request, even with the same arguments.
    ///
    /// Without a guard, make the effect idempotent where it lands: pass an
    /// idempotency key made from [`flow_id`](Self::flow_id) and `name` to
    /// the payment, mail or database call, so that a replayed state repeats
    /// the call but not its effect. Against the same request made twice as
    /// two flows, only a key of your own (an order number) helps.
    ///
    /// The marker holds `name` only, never the result; effect names take
    /// part of the state's own share ([`Flow::answer_budget`]).
    pub fn once<R>(&mut self, name: &str, effect: impl FnOnce() -> R) -> Option<R> {
        if self.ran_effects.contains(name) {
            return None;
        }
        self.ran_effects.insert(name.to_owned());
        Some(effect())
    }
}

impl Round<'_> {
    /// [`once`](Self::once) over an effect that can fail: `Ok(Some(result))`
    /// when it ran and succeeded, `Ok(None)` when an earlier round ran it,
    /// and its error when it failed, in which case it counts as not run (a
    /// later round of the flow runs it again). `?` passes the error on.
    ///
    /// ```
    /// # use mrtr_guard::{Call, Flow, KeyRing, MasterKey, Method, RpcError, StateCodec};
    /// # use mrtr_guard::wire::{CallParams, ClientCapabilities, RequestMeta};
    /// # let key = KeyRing::new(MasterKey::from_bytes(&[7; 32])?);
    /// # let flow = Flow::new(StateCodec::builder("https://mcp.example.com/mcp", key).build()?);
    /// # let meta = RequestMeta::new("2026-07-28", ClientCapabilities::none());
    /// # let mut round = flow.round(Call::new(CallParams::new(Method::ToolsCall, "Pay", meta)).with_principal("ada"))?;
    /// let charge = |fail: bool| move || if fail { Err(RpcError::internal_error_because("card declined")) } else { Ok(42) };
    /// assert!(round.try_once("charge", charge(true)).is_err()); // failed: not marked as run
    /// assert_eq!(round.try_once("charge", charge(false))?, Some(42));
    /// assert_eq!(round.try_once("charge", charge(false))?, None); // ran already
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The effect's error.
    pub fn try_once<R, E>(
        &mut self,
        name: &str,
        effect: impl FnOnce() -> Result<R, E>,
    ) -> Result<Option<R>, E> {
        match self.once(name, effect).transpose() {
            Err(error) => {
                self.ran_effects.remove(name);
                Err(error)
            }
            ran => ran,
        }
    }
}

impl fmt::Debug for Round<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Round")
            .field("method", &self.method())
            .field("target", &self.target())
            .field("number", &self.number())
            .field("asked", &self.questions)
            .field("reasked", &self.reasks)
            .field("proven", &self.answers)
            .field("ran", &self.ran_effects)
            .field("asking", &self.next.questions)
            .field("reasking", &self.next.reasks)
            .field("missing", &self.next.missing)
            .finish_non_exhaustive()
    }
}
