//! One round of a multi-round call.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::num::NonZeroU32;
use std::sync::OnceLock;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::form::Form;
use crate::form::{Answers, Field, Problem, Report, Verdict};
use crate::json::JsonDigest;
use crate::runtime::budget;
use crate::runtime::call::Call;
use crate::runtime::flow::Flow;
use crate::runtime::misuse::Misuse;
use crate::runtime::reask::reask_message;
use crate::runtime::reply::{self, AbortReason, Reply, RoundEnd, Stop};
use crate::state::{Binding, Claims, FlowId, MintError, ProvenAnswer, Reask, StateContents};
use crate::wire::Method;
use crate::wire::RpcError;
use crate::wire::{
    ClientCapabilities, CreateMessageResult, ElicitAction, ElicitRequest, InputRequest,
    InputRequests, InputRequiredResult, InputResponse, ListRootsResult, RootsRequest,
    SamplingRequest,
};

// `Flow`'s entry points live beside the round they open, so that `flow.rs`
// (the codec and the clock) needs nothing of this file.
impl Flow {
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
    /// while asking) ends with [`RoundEnd::Aborted`], to send as a tool error.
    ///
    /// # Errors
    ///
    /// As [`round`](Self::round) and [`Round::complete`], and any
    /// [`Stop::Error`] the handler returns.
    pub fn run<T, F>(&self, call: Call, handler: F) -> Result<RoundEnd<T>, RpcError>
    where
        F: FnOnce(&mut Round<'_>) -> Result<T, Stop>,
    {
        let mut round = self.round(call)?;
        let result = handler(&mut round);
        round.complete(result)
    }
}

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
///   question, with its own digest). An answer is invalid when any field it
///   gives is, required or optional: unlike [`Form::validate`], which drops
///   an invalid optional value and accepts the rest, a round never loses
///   what the user typed without telling them. A field (or every optional
///   field of a form) can opt back into dropping, for answers that are only
///   hints: [`Field::drop_if_invalid`],
///   [`FormBuilder::drop_invalid_optional`](crate::form::FormBuilder::drop_invalid_optional).
///   After [`MAX_INVALID`](Self::MAX_INVALID) invalid answers in a row to
///   one question the flow ends with
///   [`RoundEnd::Aborted`]; the count rides in the sealed state, so only a
///   new flow (round 1) starts it over. A missing answer neither counts nor
///   resets it.
/// - **Answers are bounded**: the answers one flow carries share
///   [`Flow::answer_budget`] bytes of the state. An answer that would take
///   them past it is invalid ([`Problem::TooLarge`]) and asked again, so no
///   answer a round accepts can make a later state too long to mint.
/// - **Forms that changed** (a deploy between two rounds changed a form or
///   its message, and so its digest): the answer proven for the old form is
///   not used, the new form is asked, and the old answer is not carried on.
/// - **Limits**: a flow that must ask again after its round cap or deadline
///   ends with [`RoundEnd::Aborted`]; a state that does not open is the
///   opaque `-32602` of [`Flow::round`].
/// - **Mistakes are loud**: [`Stop::Ask`] with nothing asked, or two
///   different questions under one key in one round, end the round with an
///   internal error naming the [`Misuse`].
///
/// The runtime never asks what the client did not declare in this request's
/// capabilities: such an ask returns [`Reply::Unsupported`] (and
/// [`require`](Self::require) fails with `-32021`).
///
/// `Debug` shows the method, target, round number, the keys and digests of
/// questions and answers, the re-ask counts and the effect names, never an
/// answer, the call's arguments or the application data.
pub struct Round<'f> {
    flow: &'f Flow,
    call: Call,
    /// The opened state's times, round and flow id; its contents are in
    /// the fields below.
    claims: Option<Claims<()>>,
    /// The questions the opened state says were asked.
    asked: BTreeMap<String, JsonDigest>,
    /// Which of them were re-asks, and after how many invalid answers.
    reasked: BTreeMap<String, Reask>,
    /// Answers proven by this round or an earlier one.
    proven: BTreeMap<String, ProvenAnswer>,
    /// What `proven` takes of the answer budget.
    proven_len: usize,
    /// The effects that ran in this flow, this round's included.
    ran: BTreeSet<String>,
    /// The application data as the claims hold it (JSON text; `None` for
    /// none): carried from state to state as it is, never parsed into a tree
    /// unless the handler reads it.
    app: App,
    /// What this round asks.
    next: Next,
    /// The digest of the call's arguments, when opening the state made it.
    arguments: Option<JsonDigest>,
    /// On round 1, the flow id drawn when the handler asked for it: the
    /// state this round mints carries it.
    fresh_id: OnceLock<FlowId>,
}

/// The application data a state carries: its JSON text, or none (`null`).
type App = Option<Box<RawValue>>;

/// What a round asks, and what went wrong while it asked.
#[derive(Debug, Default)]
struct Next {
    asks: InputRequests,
    /// Key -> digest of the `inputRequests` entry sent under it.
    questions: BTreeMap<String, JsonDigest>,
    /// Key -> the count of invalid answers a question asked now carries.
    reasks: BTreeMap<String, Reask>,
    /// Key -> the digest of the question the handler named under it.
    named: BTreeMap<String, JsonDigest>,
    /// What the asks this round could not send would have needed.
    missing: ClientCapabilities,
    /// A question whose answers kept failing validation.
    exhausted: Option<String>,
    /// The handler's first mistake.
    misuse: Option<Misuse>,
}

/// What the flow has for one question.
enum Found {
    /// The answer an earlier round, or this one, proved (in `proven`).
    Carried,
    /// A response in `inputResponses` to a question the state says was asked.
    Fresh,
    /// Nothing yet.
    Nothing,
    /// Another question was named under the key in this round.
    Misused,
}

/// A call whose `requestState`, if any, has been opened: what a [`Round`] is
/// made of. It borrows nothing, so the opening (which may wait on a replay
/// guard's store) can run on another thread.
#[derive(Debug)]
pub(crate) struct Opened {
    call: Call,
    claims: Option<Claims<App>>,
    /// The digest of the call's arguments, when opening the state made it.
    arguments: Option<JsonDigest>,
}

impl Opened {
    /// Verifies the call's state, if any, against its binding.
    pub(crate) fn new(flow: &Flow, call: Call) -> Result<Self, RpcError> {
        let Some(token) = call.params().request_state() else {
            return Ok(Self::without_state(call));
        };
        let digest = arguments_digest(&call);
        let binding = binding(&call, digest);
        let claims = flow
            .codec()
            .open_at::<App>(token, &binding, flow.clock().now())?;
        Ok(Self::with_claims(call, claims, digest))
    }

    /// [`new`](Self::new), with the replay guard's round trip awaited
    /// ([`StateCodec::open_at_async`](crate::state::StateCodec::open_at_async)).
    #[cfg_attr(
        not(feature = "rmcp"),
        expect(dead_code, reason = "used by the rmcp adapter")
    )]
    pub(crate) async fn new_async(flow: &Flow, call: Call) -> Result<Self, RpcError> {
        let Some(token) = call.params().request_state() else {
            return Ok(Self::without_state(call));
        };
        let digest = arguments_digest(&call);
        let binding = binding(&call, digest);
        let now = flow.clock().now();
        let claims = flow
            .codec()
            .open_at_async::<App>(token, &binding, now)
            .await?;
        Ok(Self::with_claims(call, claims, digest))
    }

    /// A round 1: no state, nothing bound yet.
    fn without_state(call: Call) -> Self {
        Self {
            call,
            claims: None,
            arguments: None,
        }
    }

    /// A call whose state opened for the arguments `digest` names.
    fn with_claims(call: Call, claims: Claims<App>, digest: JsonDigest) -> Self {
        Self {
            call,
            claims: Some(claims),
            arguments: Some(digest),
        }
    }
}

impl<'f> Round<'f> {
    pub(crate) fn open(flow: &'f Flow, call: Call) -> Result<Self, RpcError> {
        Ok(Self::from_opened(flow, Opened::new(flow, call)?))
    }

    /// The round of a call opened under `flow`.
    pub(crate) fn from_opened(flow: &'f Flow, opened: Opened) -> Self {
        let Opened {
            call,
            claims,
            arguments,
        } = opened;
        let (claims, contents) = match claims {
            Some(claims) => {
                let (claims, contents) = claims.into_parts();
                (Some(claims), contents)
            }
            None => (None, StateContents::new(None)),
        };
        let parts = contents.into_parts();
        let proven_len = parts
            .answers
            .iter()
            .map(|(key, proven)| budget::answer_len(key, proven.response()))
            .fold(0, usize::saturating_add);
        Self {
            flow,
            call,
            claims,
            asked: parts.questions,
            reasked: parts.reasks,
            proven: parts.answers,
            proven_len,
            ran: parts.ran_effects,
            app: parts.app,
            next: Next::default(),
            arguments,
            fresh_id: OnceLock::new(),
        }
    }

    /// How many invalid answers in a row end a flow: the third.
    pub const MAX_INVALID: u32 = reply::MAX_INVALID;

    /// The method called.
    #[must_use]
    pub fn method(&self) -> Method {
        self.call.params().method()
    }

    /// The tool or prompt name, or the resource URI.
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

    /// The authenticated principal, if any.
    #[must_use]
    pub fn principal(&self) -> Option<&str> {
        self.call.principal()
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
        if self.ran.contains(name) {
            return None;
        }
        self.ran.insert(name.to_owned());
        Some(effect())
    }

    /// Asks for `form` under `key`, or returns its answer: every outcome, for
    /// handlers that treat a decline or a cancel themselves.
    ///
    /// An invalid answer asks the form again, saying what to correct
    /// ([`Reply::Invalid`]); answers proven earlier are kept. An answer is
    /// invalid when any field it gives is invalid, optional ones included,
    /// unless that field [drops invalid values](Field::drop_if_invalid).
    pub fn form(&mut self, key: &str, form: &Form) -> Reply<Answers> {
        self.form_with(key, form, false)
    }

    /// [`form`](Self::form) that also accepts an answer the client sends
    /// without having been asked (for instance on round 1, with no state).
    ///
    /// <div class="warning">Off by default, and rarely right. An unsolicited
    /// answer is still validated against the form, but nothing shows that a
    /// user ever saw the form: a client, or a model driving it, can fill it
    /// in on its own. Use it only where that is acceptable (a test fixture,
    /// a form whose answer a caller may legitimately pre-fill).</div>
    pub fn form_unsolicited(&mut self, key: &str, form: &Form) -> Reply<Answers> {
        self.form_with(key, form, true)
    }

    /// The accepted answers to `form` under `key`, or a stop: [`Stop::Ask`]
    /// while unanswered or invalid, [`Stop::Declined`] / [`Stop::Cancelled`],
    /// and `-32021` when the client cannot show forms.
    ///
    /// # Errors
    ///
    /// The [`Stop`] described above; return it with `?`.
    pub fn require(&mut self, key: &str, form: &Form) -> Result<Answers, Stop> {
        match self.form(key, form) {
            Reply::Accepted(answers) => Ok(answers),
            Reply::Declined => Err(Stop::Declined {
                key: key.to_owned(),
            }),
            Reply::Cancelled => Err(Stop::Cancelled {
                key: key.to_owned(),
            }),
            Reply::Unsupported => Err(Stop::Error(RpcError::missing_capability(
                &ClientCapabilities::none().with_elicitation_form(),
            ))),
            Reply::Invalid(_) | Reply::Pending => Err(Stop::Ask),
        }
    }

    /// Asks the user to visit `url` (URL-mode elicitation), or returns the
    /// decision. `Accepted(())` is consent, not completion: check yourself
    /// that the out-of-band step finished, and ask under a new key if not.
    pub fn url(&mut self, key: &str, message: &str, url: &str) -> Reply<()> {
        let request = InputRequest::Elicitation(ElicitRequest::url(message, url));
        self.resolve(key, request, |response| match response {
            InputResponse::Elicit(result) => Some((
                elicit_response(result.action, None),
                match result.action {
                    ElicitAction::Accept => Reply::Accepted(()),
                    ElicitAction::Decline => Reply::Declined,
                    ElicitAction::Cancel => Reply::Cancelled,
                },
            )),
            _ => None,
        })
    }

    /// Asks the client to sample its model, or returns the sampled message.
    /// A message too long for the flow to carry is asked for again
    /// ([`Reply::Invalid`] with [`Problem::TooLarge`]).
    pub fn sample(&mut self, key: &str, request: &SamplingRequest) -> Reply<CreateMessageResult> {
        let request = InputRequest::Sampling(request.clone());
        self.resolve(key, request, |response| match response {
            InputResponse::Sampling(result) => Some((object(&result)?, Reply::Accepted(result))),
            _ => None,
        })
    }

    /// Asks the client for its roots, or returns them.
    pub fn roots(&mut self, key: &str) -> Reply<ListRootsResult> {
        let request = InputRequest::Roots(RootsRequest::new());
        self.resolve(key, request, |response| match response {
            InputResponse::Roots(result) => Some((object(&result)?, Reply::Accepted(result))),
            _ => None,
        })
    }

    /// Ends the round with the handler's result.
    ///
    /// - A [`Misuse`] found in this round: an internal error naming it
    ///   (whatever the handler returned).
    /// - [`Stop::Error`]: that error.
    /// - A question whose answers failed validation
    ///   [`MAX_INVALID`](Self::MAX_INVALID) times in a row:
    ///   [`RoundEnd::Aborted`].
    /// - [`Stop::Declined`] / [`Stop::Cancelled`]: the matching response.
    /// - `Ok(value)` with nothing asked in this round: [`RoundEnd::Complete`].
    /// - `Ok(value)` while questions were asked, or [`Stop::Ask`]: the
    ///   questions go out ([`RoundEnd::InputRequired`]); asks are never
    ///   dropped. If the flow may not ask again (its round cap or deadline
    ///   is reached), [`RoundEnd::Aborted`] says which.
    /// - [`Stop::Ask`] with no question asked: `-32021` naming what the
    ///   unsupported asks needed, if there were any; otherwise a
    ///   [`Misuse::NothingAsked`].
    ///
    /// # Errors
    ///
    /// A [`Stop::Error`] error; [`RpcError::missing_capability`] (`-32021`)
    /// for a [`Stop::Ask`] when every ask was unsupported; an internal error
    /// for a [`Misuse`] ([`RpcError::misuse`] says which) or when a state
    /// cannot be minted otherwise.
    pub fn complete<T>(mut self, result: Result<T, Stop>) -> Result<RoundEnd<T>, RpcError> {
        if let Some(misuse) = self.next.misuse.take() {
            return Err(misuse.into_error());
        }
        let result = match result {
            Err(Stop::Error(error)) => return Err(error),
            other => other,
        };
        if let Some(key) = self.next.exhausted.take() {
            return Ok(RoundEnd::Aborted(AbortReason::InvalidAnswers { key }));
        }
        match result {
            Err(Stop::Declined { key }) => Ok(RoundEnd::Declined { key }),
            Err(Stop::Cancelled { key }) => Ok(RoundEnd::Cancelled { key }),
            Ok(value) if self.next.asks.is_empty() => Ok(RoundEnd::Complete(value)),
            Err(_) if self.next.asks.is_empty() => Err(if self.next.missing.is_empty() {
                Misuse::NothingAsked.into_error()
            } else {
                RpcError::missing_capability(&self.next.missing)
            }),
            Ok(_) | Err(_) => self.input_required(),
        }
    }

    fn form_with(&mut self, key: &str, form: &Form, unsolicited: bool) -> Reply<Answers> {
        let request = |message: &str| {
            InputRequest::Elicitation(
                ElicitRequest::form(message, form.requested_schema())
                    .with_property_order(form.fields().iter().map(Field::name)),
            )
        };
        let digest = JsonDigest::from_bytes(
            form.request_digest(|| *JsonDigest::of(&request(form.message()).to_json()).as_bytes()),
        );
        let outcome = match self.find(key, &digest, unsolicited) {
            Found::Misused => return Reply::Pending,
            Found::Nothing => return self.ask(key, request(form.message()), digest),
            Found::Carried => {
                let outcome = self.proven.get(key).map_or(Verdict::Missing, |proven| {
                    form.validate_object(proven.response())
                });
                return match outcome {
                    Verdict::Accepted(answers) => Reply::Accepted(answers),
                    Verdict::Declined => Reply::Declined,
                    Verdict::Cancelled => Reply::Cancelled,
                    // ProvenAnswer once, so this does not happen; ask rather than trust.
                    Verdict::Invalid(_) | Verdict::Missing => {
                        self.ask(key, request(form.message()), digest)
                    }
                };
            }
            // Validated where it lies: the untrusted value is never copied.
            Found::Fresh => form.validate(self.response(key).unwrap_or(&Value::Null)),
        };
        let reask = |report: &Report| request(&reask_message(form, report));
        match outcome {
            Verdict::Accepted(answers) if asks_again(form, answers.report()) => {
                let report = answers.report().clone();
                self.invalid(key, digest, reask(&report), report)
            }
            Verdict::Accepted(answers) => {
                let content = match answers.to_json() {
                    Value::Object(content) => Some(content),
                    _ => None,
                };
                let response = elicit_response(ElicitAction::Accept, content);
                self.keep(key, digest, response, Reply::Accepted(answers), reask)
            }
            Verdict::Declined => {
                let response = elicit_response(ElicitAction::Decline, None);
                self.keep(key, digest, response, Reply::Declined, reask)
            }
            Verdict::Cancelled => {
                let response = elicit_response(ElicitAction::Cancel, None);
                self.keep(key, digest, response, Reply::Cancelled, reask)
            }
            Verdict::Invalid(report) => self.invalid(key, digest, reask(&report), report),
            Verdict::Missing => self.ask(key, request(form.message()), digest),
        }
    }

    /// The common path of the non-form asks: carried answer, else a fresh
    /// answer to an asked question (`read` turns it into what to carry and
    /// what to return, or `None` if it does not answer the question), else ask.
    fn resolve<T>(
        &mut self,
        key: &str,
        request: InputRequest,
        read: impl Fn(InputResponse) -> Option<(Map<String, Value>, Reply<T>)>,
    ) -> Reply<T> {
        let digest = JsonDigest::of(&request.to_json());
        let (response, carried) = match self.find(key, &digest, false) {
            Found::Misused => return Reply::Pending,
            Found::Carried => (
                self.proven
                    .get(key)
                    .map(|proven| InputResponse::from_object(proven.response())),
                true,
            ),
            Found::Fresh => {
                let responses = self.call.params().input_responses();
                (responses.and_then(|r| r.get(key)).cloned(), false)
            }
            Found::Nothing => (None, false),
        };
        match response.and_then(read) {
            Some((_, reply)) if carried => reply,
            Some((carry, reply)) => self.keep(key, digest, carry, reply, |_| request.clone()),
            None => self.ask(key, request, digest),
        }
    }

    /// Where the answer to the question `digest` under `key` is, if
    /// anywhere. An answer proven for another question under `key` is stale
    /// (its form changed since): it is dropped, and the question asked anew.
    fn find(&mut self, key: &str, digest: &JsonDigest, unsolicited: bool) -> Found {
        match self.next.named.get(key) {
            Some(named) if named != digest => {
                self.next.misuse.get_or_insert(Misuse::KeyReused {
                    key: key.to_owned(),
                });
                return Found::Misused;
            }
            Some(_) => {}
            None => {
                self.next.named.insert(key.to_owned(), *digest);
            }
        }
        if let Some(proven) = self.proven.get(key) {
            if proven.question() == digest {
                return Found::Carried;
            }
            self.drop_answer(key);
        }
        let asked =
            self.asked.get(key) == Some(digest) || self.reask_invalid(key, digest).is_some();
        if (asked || unsolicited) && self.response(key).is_some() {
            Found::Fresh
        } else {
            Found::Nothing
        }
    }

    /// The raw response under `key` in this call's `inputResponses`.
    fn response(&self, key: &str) -> Option<&Value> {
        self.call.params().input_responses()?.raw(key)
    }

    /// The invalid answers in a row the question `digest` under `key` has
    /// had, if the state says it was asked again after some.
    fn reask_invalid(&self, key: &str, digest: &JsonDigest) -> Option<NonZeroU32> {
        let reask = self.reasked.get(key)?;
        (reask.question() == digest && self.asked.contains_key(key)).then(|| reask.invalid())
    }

    /// Carries `response` as the answer to the question `digest` under `key`
    /// and returns `reply`; if the flow's answers cannot take it, asks again
    /// (`reask` makes the question, from the report that says why).
    fn keep<T>(
        &mut self,
        key: &str,
        digest: JsonDigest,
        response: Map<String, Value>,
        reply: Reply<T>,
        reask: impl FnOnce(&Report) -> InputRequest,
    ) -> Reply<T> {
        let len = budget::answer_len(key, &response);
        let total = self.proven_len.saturating_add(len);
        if total > self.flow.budget().answers {
            let report = Report::from_problem(Problem::TooLarge);
            return self.invalid(key, digest, reask(&report), report);
        }
        self.proven_len = total;
        self.proven
            .insert(key.to_owned(), ProvenAnswer::new(digest, response));
        reply
    }

    fn drop_answer(&mut self, key: &str) {
        if let Some(stale) = self.proven.remove(key) {
            let len = budget::answer_len(key, stale.response());
            self.proven_len = self.proven_len.saturating_sub(len);
        }
    }

    /// An invalid answer to the question `digest` under `key`: `request`
    /// asks it again, counting one more invalid answer, unless that makes
    /// [`MAX_INVALID`](Self::MAX_INVALID): then the flow ends.
    fn invalid<T>(
        &mut self,
        key: &str,
        digest: JsonDigest,
        request: InputRequest,
        report: Report,
    ) -> Reply<T> {
        let invalid = self
            .reask_invalid(key, &digest)
            .map_or(NonZeroU32::MIN, |n| n.saturating_add(1));
        if invalid.get() >= Self::MAX_INVALID {
            self.next.exhausted.get_or_insert_with(|| key.to_owned());
            return Reply::Invalid(report);
        }
        let sent = JsonDigest::of(&request.to_json());
        match self.send(key, request, sent) {
            Reply::Pending => {
                let reask = Reask::new(digest, invalid);
                self.next.reasks.insert(key.to_owned(), reask);
                Reply::Invalid(report)
            }
            other => other,
        }
    }

    /// Asks the question `digest` under `key` as `request` says it; a count
    /// of invalid answers it has is kept.
    fn ask<T>(&mut self, key: &str, request: InputRequest, digest: JsonDigest) -> Reply<T> {
        let reply = self.send(key, request, digest);
        if let (Reply::Pending, Some(invalid)) = (&reply, self.reask_invalid(key, &digest)) {
            let reask = Reask::new(digest, invalid);
            self.next.reasks.insert(key.to_owned(), reask);
        }
        reply
    }

    /// Puts `request` into this round's `inputRequests` under `key`, and
    /// `sent`, its digest, into the next state, if the client can be asked.
    fn send<T>(&mut self, key: &str, request: InputRequest, sent: JsonDigest) -> Reply<T> {
        if !request.allowed_by(self.capabilities()) {
            self.next.missing = self
                .next
                .missing
                .clone()
                .union(&request.required_capabilities());
            return Reply::Unsupported;
        }
        self.next.asks.insert(key.to_owned(), request);
        self.next.questions.insert(key.to_owned(), sent);
        Reply::Pending
    }

    fn input_required<T>(self) -> Result<RoundEnd<T>, RpcError> {
        let own = budget::own_len(
            &self.next.questions,
            &self.next.reasks,
            &self.ran,
            &self.app,
        );
        let max = self.flow.budget().own;
        if own > max {
            return Err(Misuse::StateTooLarge { len: own, max }.into_error());
        }
        let mut contents = StateContents::new(self.app);
        for (key, digest) in self.next.questions {
            contents = contents.question_digest(key, digest);
        }
        for (key, proven) in self.proven {
            contents = contents.answer(key, proven);
        }
        for (key, reask) in self.next.reasks {
            contents = contents.reask(key, reask);
        }
        for name in self.ran {
            contents = contents.ran_effect(name);
        }
        let arguments = self
            .arguments
            .unwrap_or_else(|| arguments_digest(&self.call));
        let binding = binding(&self.call, arguments);
        let codec = self.flow.codec();
        let now = self.flow.clock().now();
        let token = match (&self.claims, self.fresh_id.get()) {
            (None, Some(id)) => codec.start_flow_at(*id, &binding, &contents, now),
            (None, None) => codec.start_at(&binding, &contents, now),
            (Some(claims), _) => codec.next_at(&binding, claims, &contents, now),
        };
        match token {
            Ok(token) => Ok(RoundEnd::InputRequired(InputRequiredResult::new(
                self.next.asks,
                token,
            ))),
            Err(MintError::TooManyRounds { max_rounds }) => {
                Ok(RoundEnd::Aborted(AbortReason::TooManyRounds { max_rounds }))
            }
            Err(MintError::FlowExpired) => Ok(RoundEnd::Aborted(AbortReason::DeadlinePassed)),
            Err(_) => Err(RpcError::internal_error()),
        }
    }
}

/// Whether an answer [`Form::validate`] accepted dropped the invalid value
/// of a field that is asked again instead
/// ([`Field::drop_if_invalid`] not set): in a round, nothing the user typed
/// is lost without their being told.
fn asks_again(form: &Form, report: &Report) -> bool {
    report
        .issues()
        .iter()
        .any(|issue| !form.field(issue.field()).is_some_and(Field::drops_invalid))
}

/// The call's binding: its principal (or none, anonymous), method, target
/// and arguments digest.
fn binding(call: &Call, arguments: JsonDigest) -> Binding<'_> {
    let params = call.params();
    Binding::from_digest(
        call.principal(),
        params.method(),
        params.target(),
        arguments,
    )
}

/// The binding's digest of the call's arguments (canonical form + SHA-256): made at
/// most once per round.
fn arguments_digest(call: &Call) -> JsonDigest {
    JsonDigest::of_arguments(call.params().arguments())
}

/// An elicitation response as a round carries it: the action, and the
/// checked content when a form was accepted (the object [`ElicitResult`](crate::wire::ElicitResult)
/// serializes to, built in place rather than through `serde`).
fn elicit_response(
    action: ElicitAction,
    content: Option<Map<String, Value>>,
) -> Map<String, Value> {
    let action = match action {
        ElicitAction::Accept => "accept",
        ElicitAction::Decline => "decline",
        ElicitAction::Cancel => "cancel",
    };
    let mut response = Map::new();
    response.insert("action".to_owned(), Value::from(action));
    if let Some(content) = content {
        response.insert("content".to_owned(), Value::Object(content));
    }
    response
}

/// A response type as the JSON object it serializes to.
fn object<T: Serialize>(response: &T) -> Option<Map<String, Value>> {
    match serde_json::to_value(response).ok()? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

impl fmt::Debug for Round<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Round")
            .field("method", &self.method())
            .field("target", &self.target())
            .field("number", &self.number())
            .field("asked", &self.asked)
            .field("reasked", &self.reasked)
            .field("proven", &self.proven)
            .field("ran", &self.ran)
            .field("asking", &self.next.questions)
            .field("reasking", &self.next.reasks)
            .field("missing", &self.next.missing)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::wire::ElicitResult;

    /// The carried response built in place is the object `ElicitResult`
    /// serializes to, for every action, with and without content.
    #[test]
    fn elicit_response_is_what_elicit_result_serializes_to() {
        let content = json!({"trackingNumber": "1Z999", "n": 3});
        let content = content.as_object().cloned();
        for action in [
            ElicitAction::Accept,
            ElicitAction::Decline,
            ElicitAction::Cancel,
        ] {
            for content in [None, content.clone()] {
                let result = ElicitResult {
                    action,
                    content: content.clone(),
                };
                assert_eq!(
                    Value::Object(elicit_response(action, content)),
                    serde_json::to_value(&result).ok().unwrap_or_default()
                );
            }
        }
    }
}
