//! One round of a multi-round call.

use std::collections::BTreeMap;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::RpcError;
use crate::form::Form;
use crate::form::{Answers, Outcome};
use crate::runtime::{Call, Flow, Reply, Response, Stop};
use crate::state::{Binding, Claims, Contents, JsonDigest, Method, MintError, StateError};
use crate::wire::{
    ClientCapabilities, CreateMessageResult, ElicitAction, ElicitRequest, InputRequest,
    InputRequests, InputRequiredResult, InputResponse, ListRootsResult, RootsRequest,
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
#[derive(Debug)]
pub struct Round<'f> {
    flow: &'f Flow,
    call: Call,
    /// The opened state's times, round and flow id; its contents are in
    /// `asked`, `proven` and `app`.
    claims: Option<Claims<()>>,
    /// The questions the opened state says were asked.
    asked: BTreeMap<String, JsonDigest>,
    /// Proven answers: key -> {"q": question digest, "r": answer}.
    proven: BTreeMap<String, Value>,
    asks: InputRequests,
    questions: BTreeMap<String, JsonDigest>,
    /// What the asks this round could not send would have needed.
    missing: ClientCapabilities,
    app: Value,
    /// The digest of the call's arguments, when opening the state made it.
    arguments: Option<JsonDigest>,
}

impl<'f> Round<'f> {
    pub(crate) fn open(flow: &'f Flow, call: Call) -> Result<Self, RpcError> {
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
        let (claims, contents) = match claims {
            Some(claims) => {
                let (claims, contents) = claims.into_parts();
                (Some(claims), contents)
            }
            None => (None, Contents::new(Value::Null)),
        };
        let (asked, proven, app) = contents.into_parts();
        Ok(Self {
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
        })
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
            InputResponse::Elicit(result) => Some(match result.action {
                ElicitAction::Accept => (json!({"action": "accept"}), Reply::Accepted(())),
                ElicitAction::Decline => (json!({"action": "decline"}), Reply::Declined),
                ElicitAction::Cancel => (json!({"action": "cancel"}), Reply::Cancelled),
            }),
            _ => None,
        })
    }

    /// Asks the client to sample its model, or returns the sampled message.
    pub fn sample(&mut self, key: &str, request: &SamplingRequest) -> Reply<CreateMessageResult> {
        let request = InputRequest::Sampling(request.clone());
        self.resolve(key, request, false, |response| match response {
            InputResponse::Sampling(result) => {
                let carried = serde_json::to_value(&result).ok()?;
                Some((carried, Reply::Accepted(result)))
            }
            _ => None,
        })
    }

    /// Asks the client for its roots, or returns them.
    pub fn roots(&mut self, key: &str) -> Reply<ListRootsResult> {
        let request = InputRequest::Roots(RootsRequest::new());
        self.resolve(key, request, false, |response| match response {
            InputResponse::Roots(result) => {
                let carried = serde_json::to_value(&result).ok()?;
                Some((carried, Reply::Accepted(result)))
            }
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
        let request = || {
            InputRequest::Elicitation(ElicitRequest::form(form.message(), form.requested_schema()))
        };
        let digest = JsonDigest::from_bytes(
            form.request_digest(|| *JsonDigest::of(&request().to_json()).as_bytes()),
        );
        if let Some(carried) = self.carried(key, &digest) {
            return match form.validate(&carried) {
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
                let content = answers.to_json();
                self.prove(
                    key,
                    &digest,
                    json!({"action": "accept", "content": content}),
                );
                Reply::Accepted(answers)
            }
            Outcome::Declined => {
                self.prove(key, &digest, json!({"action": "decline"}));
                Reply::Declined
            }
            Outcome::Cancelled => {
                self.prove(key, &digest, json!({"action": "cancel"}));
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
        read: impl Fn(InputResponse) -> Option<(Value, Reply<T>)>,
    ) -> Reply<T> {
        let digest = JsonDigest::of(&request.to_json());
        let classify = |value: &Value| {
            crate::wire::InputResponses::from_json(&json!({ "k": value }))
                .ok()
                .and_then(|responses| responses.get("k").cloned())
        };
        if let Some(carried) = self.carried(key, &digest) {
            if let Some((_, reply)) = classify(&carried).and_then(&read) {
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

    /// The answer carried under `key`, if it answers this exact question.
    fn carried(&self, key: &str, digest: &JsonDigest) -> Option<Value> {
        let entry = self.proven.get(key)?;
        (entry.get("q")?.as_str()? == hex(digest)).then(|| entry.get("r").cloned())?
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

    fn prove(&mut self, key: &str, digest: &JsonDigest, answer: Value) {
        let mut entry = Map::new();
        entry.insert("q".into(), Value::from(hex(digest)));
        entry.insert("r".into(), answer);
        self.proven.insert(key.to_owned(), Value::Object(entry));
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
        for (key, answer) in self.proven {
            contents = contents.answer(key, answer);
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

/// The binding's digest of the call's arguments (JCS + SHA-256): made at
/// most once per round.
fn arguments_digest(call: &Call) -> JsonDigest {
    JsonDigest::of_arguments(call.params().arguments())
}

fn hex(digest: &JsonDigest) -> String {
    let digit = |n: u8| char::from_digit(u32::from(n), 16).unwrap_or('0');
    let mut out = String::with_capacity(64);
    for byte in digest.as_bytes() {
        out.push(digit(byte >> 4));
        out.push(digit(byte & 0x0f));
    }
    out
}
