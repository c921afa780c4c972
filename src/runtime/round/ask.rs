//! Asking: each ask method of a [`Round`] finds the answer the flow has
//! for its question (carried, or fresh and checked), else puts the question
//! into this round's `inputRequests`; an invalid answer is asked again,
//! counted, until the flow gives up on it.

use std::num::NonZeroU32;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::form::{Answers, Field, Form, Problem, Report, Verdict};
use crate::json::JsonDigest;
use crate::runtime::budget;
use crate::runtime::misuse::Misuse;
use crate::runtime::reask::{InvalidAnswer, asks_again, reask_message};
use crate::runtime::reply::{Reply, Stop};
use crate::runtime::round::view::Round;
use crate::state::{Claims, ProvenAnswer, Reask};
use crate::wire::{
    ClientCapabilities, CreateMessageResult, ElicitAction, ElicitRequest, InputRequest,
    InputResponse, ListRootsResult, RootsRequest, RpcError, SamplingRequest,
};

impl Round<'_> {
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
    /// For a secret or a third party's authorization, use
    /// [`connect`](Self::connect), which proves the user who opens the URL
    /// is the caller and checks completion.
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
                let outcome = self.answers.get(key).map_or(Verdict::Missing, |proven| {
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
                self.answers
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
    pub(super) fn find(&mut self, key: &str, digest: &JsonDigest, unsolicited: bool) -> Found {
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
        if let Some(proven) = self.answers.get(key) {
            if proven.question() == digest {
                return Found::Carried;
            }
            self.drop_answer(key);
        }
        let asked =
            self.questions.get(key) == Some(digest) || self.reask_invalid(key, digest).is_some();
        if (asked || unsolicited) && self.response(key).is_some() {
            Found::Fresh
        } else {
            Found::Nothing
        }
    }

    /// The raw response under `key` in this call's `inputResponses`.
    pub(super) fn response(&self, key: &str) -> Option<&Value> {
        self.call.params().input_responses()?.raw(key)
    }

    /// The invalid answers in a row the question `digest` under `key` has
    /// had, if the state says it was asked again after some.
    fn reask_invalid(&self, key: &str, digest: &JsonDigest) -> Option<NonZeroU32> {
        let reask = self.reasks.get(key)?;
        (reask.question() == digest && self.questions.contains_key(key)).then(|| reask.invalid())
    }

    /// Carries `response` as the answer to the question `digest` under `key`
    /// and returns `reply`; if the flow's answers cannot take it, asks again
    /// (`reask` makes the question, from the report that says why).
    pub(super) fn keep<T>(
        &mut self,
        key: &str,
        digest: JsonDigest,
        response: Map<String, Value>,
        reply: Reply<T>,
        reask: impl FnOnce(&Report) -> InputRequest,
    ) -> Reply<T> {
        let len = budget::answer_len(key, &response);
        let total = self.answers_len.saturating_add(len);
        if total > self.flow.budget().answers {
            let report = Report::from_problem(Problem::TooLarge);
            return self.invalid(key, digest, reask(&report), report);
        }
        self.answers_len = total;
        self.answers
            .insert(key.to_owned(), ProvenAnswer::new(digest, response));
        reply
    }

    pub(super) fn drop_answer(&mut self, key: &str) {
        if let Some(stale) = self.answers.remove(key) {
            let len = budget::answer_len(key, stale.response());
            self.answers_len = self.answers_len.saturating_sub(len);
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
            self.tell_invalid(key, invalid, false, &report);
            return Reply::Invalid(report);
        }
        let sent = JsonDigest::of(&request.to_json());
        match self.send(key, request, sent) {
            Reply::Pending => {
                let reask = Reask::new(digest, invalid);
                self.next.reasks.insert(key.to_owned(), reask);
                self.tell_invalid(key, invalid, true, &report);
                Reply::Invalid(report)
            }
            other => other,
        }
    }

    /// Tells the operator of the invalid answer under `key`, once a round.
    fn tell_invalid(&mut self, key: &str, invalid: NonZeroU32, asked_again: bool, report: &Report) {
        if !self.next.invalid.insert(key.to_owned()) {
            return;
        }
        InvalidAnswer {
            key,
            flow_id: self
                .claims
                .as_ref()
                .map(Claims::flow_id)
                .or_else(|| self.fresh_id.get().copied()),
            round: self.number(),
            invalid: invalid.get(),
            asked_again,
            report,
        }
        .record();
    }

    /// Asks the question `digest` under `key` as `request` says it; a count
    /// of invalid answers it has is kept.
    pub(super) fn ask<T>(
        &mut self,
        key: &str,
        request: InputRequest,
        digest: JsonDigest,
    ) -> Reply<T> {
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
}

/// What the flow has for one question.
pub(super) enum Found {
    /// The answer an earlier round, or this one, proved (in `answers`).
    Carried,
    /// A response in `inputResponses` to a question the state says was asked.
    Fresh,
    /// Nothing yet.
    Nothing,
    /// Another question was named under the key in this round.
    Misused,
}

/// An elicitation response as a round carries it: the action, and the
/// checked content when a form was accepted (the object [`ElicitResult`](crate::wire::ElicitResult)
/// serializes to, built in place rather than through `serde`).
pub(super) fn elicit_response(
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
