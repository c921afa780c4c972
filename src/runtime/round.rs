//! One round of a multi-round call.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::RpcError;
use crate::form::Form;
use crate::form::{Answers, Outcome};
use crate::runtime::{Call, Flow, Reply, Response, Stop};
use crate::state::{Binding, Claims, Contents, JsonDigest, Method, MintError, Proven, StateError};
use crate::wire::{
    ClientCapabilities, CreateMessageResult, ElicitAction, ElicitRequest, ElicitResult,
    InputRequest, InputRequests, InputRequiredResult, InputResponse, ListRootsResult, RootsRequest,
    SamplingRequest,
};

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
/// The runtime never asks what the client did not declare in this request's
/// capabilities: such an ask returns [`Reply::Unsupported`] (and
/// [`require`](Self::require) fails with `-32021`).
///
/// `Debug` shows the method, target, round number and the keys and digests
/// of questions and answers, never an answer, the call's arguments or the
/// application data.
pub struct Round<'f> {
    flow: &'f Flow,
    call: Call,
    /// The opened state's times, round and flow id; its contents are in
    /// `asked`, `proven` and `app`.
    claims: Option<Claims<()>>,
    /// The questions the opened state says were asked.
    asked: BTreeMap<String, JsonDigest>,
    /// Answers proven by this round or an earlier one.
    proven: BTreeMap<String, Proven>,
    asks: InputRequests,
    questions: BTreeMap<String, JsonDigest>,
    /// What the asks this round could not send would have needed.
    missing: ClientCapabilities,
    app: Value,
    /// The digest of the call's arguments, when opening the state made it.
    arguments: Option<JsonDigest>,
}

/// A call whose `requestState`, if any, has been opened: what a [`Round`] is
/// made of. It borrows nothing, so the opening (which may wait on a replay
/// guard's store) can run on another thread.
#[derive(Debug)]
pub(crate) struct Opened {
    call: Call,
    claims: Option<Claims<Value>>,
    /// The digest of the call's arguments, when opening the state made it.
    arguments: Option<JsonDigest>,
}

impl Opened {
    /// Verifies the call's state, if any, against its binding.
    pub(crate) fn new(flow: &Flow, call: Call) -> Result<Self, RpcError> {
        let mut arguments = None;
        let claims = match call.params().request_state() {
            None => None,
            Some(token) => {
                let binding = binding(&call, arguments_digest(&call));
                arguments = Some(*binding.arguments());
                Some(
                    flow.codec()
                        .open_at::<Value>(token, &binding, flow.clock().now())?,
                )
            }
        };
        Ok(Self {
            call,
            claims,
            arguments,
        })
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
            None => (None, Contents::new(Value::Null)),
        };
        let (asked, proven, app) = contents.into_parts();
        Self {
            flow,
            call,
            claims,
            asked,
            proven,
            asks: InputRequests::new(),
            questions: BTreeMap::new(),
            missing: ClientCapabilities::none(),
            app,
            arguments,
        }
    }

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
        if self.app.is_null() {
            return None;
        }
        serde_json::from_value(self.app.clone()).ok()
    }

    /// Sets the application state carried (sealed) to the next round. It is
    /// authenticated like the rest of the state, but remember that in signed
    /// mode the client can read it.
    ///
    /// # Errors
    ///
    /// [`RpcError::internal_error`] when `value` does not serialize to JSON.
    pub fn set_app<T: Serialize>(&mut self, value: &T) -> Result<(), RpcError> {
        self.app = serde_json::to_value(value).map_err(|_| RpcError::internal_error())?;
        Ok(())
    }

    /// Asks for `form` under `key`, or returns its answer: every outcome, for
    /// handlers that treat a decline or a cancel themselves.
    ///
    /// An invalid answer asks the form again ([`Reply::Invalid`]); answers
    /// proven earlier are kept.
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
            Reply::Unsupported => Err(Stop::Failed(RpcError::missing_capability(
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
        self.resolve(key, request, false, |response| match response {
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
    pub fn sample(&mut self, key: &str, request: &SamplingRequest) -> Reply<CreateMessageResult> {
        let request = InputRequest::Sampling(request.clone());
        self.resolve(key, request, false, |response| match response {
            InputResponse::Sampling(result) => Some((object(&result)?, Reply::Accepted(result))),
            _ => None,
        })
    }

    /// Asks the client for its roots, or returns them.
    pub fn roots(&mut self, key: &str) -> Reply<ListRootsResult> {
        let request = InputRequest::Roots(RootsRequest::new());
        self.resolve(key, request, false, |response| match response {
            InputResponse::Roots(result) => Some((object(&result)?, Reply::Accepted(result))),
            _ => None,
        })
    }

    /// Ends the round with the handler's result.
    ///
    /// - `Ok(value)` with nothing asked in this round: [`Response::Complete`].
    /// - `Ok(value)` while questions were asked, or [`Stop::Ask`]: the
    ///   questions go out ([`Response::InputRequired`]); asks are never
    ///   dropped.
    /// - [`Stop::Ask`] with no question asked: `-32021` naming what the
    ///   unsupported asks needed, if there were any; otherwise a state alone
    ///   (the client retries at once: load shedding).
    /// - [`Stop::Declined`] / [`Stop::Cancelled`]: the matching response.
    /// - [`Stop::Failed`]: that error.
    ///
    /// # Errors
    ///
    /// A [`Stop::Failed`] error; [`RpcError::missing_capability`] (`-32021`)
    /// for a [`Stop::Ask`] when every ask was unsupported;
    /// [`RpcError::invalid_request_state`] when the flow may not ask again
    /// (its round cap or deadline is reached; [`RpcError::state_error`] says
    /// which); [`RpcError::internal_error`]
    /// when a state cannot be minted otherwise.
    pub fn complete<T>(self, result: Result<T, Stop>) -> Result<Response<T>, RpcError> {
        match result {
            Err(Stop::Failed(error)) => Err(error),
            Err(Stop::Declined { key }) => Ok(Response::Declined { key }),
            Err(Stop::Cancelled { key }) => Ok(Response::Cancelled { key }),
            Ok(value) if self.asks.is_empty() => Ok(Response::Complete(value)),
            Err(Stop::Ask) if self.asks.is_empty() && !self.missing.is_empty() => {
                Err(RpcError::missing_capability(&self.missing))
            }
            Ok(_) | Err(Stop::Ask) => self.input_required().map(Response::InputRequired),
        }
    }

    fn form_with(&mut self, key: &str, form: &Form, unsolicited: bool) -> Reply<Answers> {
        let request = || InputRequest::Elicitation(ElicitRequest::from_form(form));
        let digest = JsonDigest::from_bytes(
            form.request_digest(|| *JsonDigest::of(&request().to_json()).as_bytes()),
        );
        if let Some(carried) = self.carried(key, &digest) {
            let outcome = form.validate(&Value::Object(carried.clone()));
            return match outcome {
                Outcome::Accepted(answers) => Reply::Accepted(answers),
                Outcome::Declined => Reply::Declined,
                Outcome::Cancelled => Reply::Cancelled,
                // Proven once, so this does not happen; ask rather than trust.
                Outcome::Invalid(_) | Outcome::Missing => self.ask(key, request(), digest),
            };
        }
        let Some(raw) = self.answer_for(key, &digest, unsolicited).cloned() else {
            return self.ask(key, request(), digest);
        };
        match form.validate(&raw) {
            Outcome::Accepted(answers) => {
                let content = match answers.to_json() {
                    Value::Object(content) => Some(content),
                    _ => None,
                };
                self.prove(key, &digest, elicit_response(ElicitAction::Accept, content));
                Reply::Accepted(answers)
            }
            Outcome::Declined => {
                self.prove(key, &digest, elicit_response(ElicitAction::Decline, None));
                Reply::Declined
            }
            Outcome::Cancelled => {
                self.prove(key, &digest, elicit_response(ElicitAction::Cancel, None));
                Reply::Cancelled
            }
            Outcome::Invalid(report) => match self.ask(key, request(), digest) {
                Reply::Pending => Reply::Invalid(report),
                other => other,
            },
            Outcome::Missing => self.ask(key, request(), digest),
        }
    }

    /// The common path of the non-form asks: carried answer, else a fresh
    /// answer to an asked question (`read` turns it into what to carry and
    /// what to return, or `None` if it does not answer the question), else ask.
    fn resolve<T>(
        &mut self,
        key: &str,
        request: InputRequest,
        unsolicited: bool,
        read: impl Fn(InputResponse) -> Option<(Map<String, Value>, Reply<T>)>,
    ) -> Reply<T> {
        let digest = JsonDigest::of(&request.to_json());
        if let Some(carried) = self.carried(key, &digest) {
            if let Some((_, reply)) = read(InputResponse::from_object(carried)) {
                return reply;
            }
            return self.ask(key, request, digest);
        }
        let response = self
            .answer_for(key, &digest, unsolicited)
            .and_then(|_| self.call.params().input_responses()?.get(key).cloned());
        match response.and_then(read) {
            Some((carry, reply)) => {
                self.prove(key, &digest, carry);
                reply
            }
            None => self.ask(key, request, digest),
        }
    }

    /// The response carried under `key`, if it answers this exact question.
    fn carried(&self, key: &str, digest: &JsonDigest) -> Option<&Map<String, Value>> {
        let proven = self.proven.get(key)?;
        (proven.question() == digest).then(|| proven.response())
    }

    /// The raw response under `key`, if the state says this exact question
    /// was asked under it (or the ask accepts unsolicited answers).
    fn answer_for(&self, key: &str, digest: &JsonDigest, unsolicited: bool) -> Option<&Value> {
        let asked = self.asked.get(key).is_some_and(|asked| asked == digest);
        if !asked && !unsolicited {
            return None;
        }
        self.call.params().input_responses()?.raw(key)
    }

    fn prove(&mut self, key: &str, digest: &JsonDigest, response: Map<String, Value>) {
        self.proven
            .insert(key.to_owned(), Proven::new(*digest, response));
    }

    fn ask<T>(&mut self, key: &str, request: InputRequest, digest: JsonDigest) -> Reply<T> {
        if !request.allowed_by(self.capabilities()) {
            self.missing = self.missing.clone().union(&request.required_capabilities());
            return Reply::Unsupported;
        }
        self.asks.insert(key.to_owned(), request);
        self.questions.insert(key.to_owned(), digest);
        Reply::Pending
    }

    fn input_required(self) -> Result<InputRequiredResult, RpcError> {
        let mut contents = Contents::new(self.app);
        for (key, digest) in self.questions {
            contents = contents.question_digest(key, digest);
        }
        for (key, proven) in self.proven {
            contents = contents.answer(key, proven);
        }
        let arguments = self
            .arguments
            .unwrap_or_else(|| arguments_digest(&self.call));
        let binding = binding(&self.call, arguments);
        let codec = self.flow.codec();
        let now = self.flow.clock().now();
        let token = match &self.claims {
            None => codec.start_at(&binding, &contents, now),
            Some(claims) => codec.next_at(&binding, claims, &contents, now),
        }
        .map_err(|error| match error {
            MintError::TooManyRounds { .. } => RpcError::from(StateError::TooManyRounds),
            MintError::FlowExpired => RpcError::from(StateError::FlowExpired),
            _ => RpcError::internal_error(),
        })?;
        Ok(InputRequiredResult::new(self.asks, token))
    }
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
/// checked content when a form was accepted.
fn elicit_response(
    action: ElicitAction,
    content: Option<Map<String, Value>>,
) -> Map<String, Value> {
    object(&ElicitResult { action, content }).unwrap_or_default()
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
            .field("proven", &self.proven)
            .field("asking", &self.questions)
            .field("missing", &self.missing)
            .finish_non_exhaustive()
    }
}
