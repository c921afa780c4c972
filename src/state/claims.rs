//! What a token carries inside: times, the flow's position, the questions
//! still open, the answers already proven, the runtime's bookkeeping (re-asks
//! and effects that ran), and the application's own data. How they are
//! written as JSON is in `claims_json.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::json::JsonDigest;
use crate::state::generation::Generation;

/// A random 16-byte identifier shared by every token of one flow.
///
/// Not secret. The replay guard records it with the round number. It
/// serializes (with `serde`) as the claims spell it: unpadded base64url.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowId([u8; 16]);

impl FlowId {
    /// The id's bytes.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    pub(crate) fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }

    /// A fresh id from the OS generator; `None` when it fails.
    pub(crate) fn random() -> Option<Self> {
        let mut bytes = [0u8; 16];
        crate::state::keys::fill_random(&mut bytes).ok()?;
        Some(Self(bytes))
    }
}

/// Lower-case hexadecimal, written in one piece (the Redis guard's key
/// holds it, once per retry), not one formatted write per byte.
impl fmt::Display for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", u128::from_be_bytes(self.0))
    }
}

impl fmt::Debug for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FlowId({self})")
    }
}

/// An answer an earlier round proved: the digest of the question it answers
/// (as [`StateContents::question`] records one) and the response that round
/// accepted, a JSON object in the shape of an `inputResponses` entry (for
/// instance `{"action": "accept", "content": {...}}`).
///
/// `Debug` shows the question's digest, never the response.
///
/// ```
/// use mrtr_guard::json::JsonDigest;
/// use mrtr_guard::state::ProvenAnswer;
/// use serde_json::json;
///
/// let ask = json!({"method": "elicitation/create", "params": {"message": "Email?"}});
/// let response = json!({"action": "accept", "content": {"email": "ada@example.com"}});
/// let answer = ProvenAnswer::new(JsonDigest::of(&ask), response.as_object().cloned().unwrap_or_default());
/// assert_eq!(answer.question(), &JsonDigest::of(&ask));
/// assert!(!format!("{answer:?}").contains("ada@"));
/// ```
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProvenAnswer {
    /// The digest of the `inputRequests` entry answered.
    #[serde(rename = "q")]
    question: JsonDigest,
    /// The accepted response.
    #[serde(rename = "r")]
    response: Map<String, Value>,
}

impl ProvenAnswer {
    /// The answer `response` to the question whose `inputRequests` entry has
    /// the digest `question`.
    pub fn new(question: JsonDigest, response: Map<String, Value>) -> Self {
        Self { question, response }
    }

    /// The digest of the question answered.
    pub fn question(&self) -> &JsonDigest {
        &self.question
    }

    /// The accepted response.
    pub fn response(&self) -> &Map<String, Value> {
        &self.response
    }
}

impl fmt::Debug for ProvenAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProvenAnswer")
            .field("question", &self.question)
            .finish_non_exhaustive()
    }
}

/// A question asked again because its answers failed validation: the digest
/// of the question as it was first asked (a re-ask's own message, and so its
/// digest, differs) and how many invalid answers in a row it has had.
///
/// `Debug` shows both; neither holds an answer.
///
/// ```
/// use std::num::NonZeroU32;
///
/// use mrtr_guard::json::JsonDigest;
/// use mrtr_guard::state::Reask;
/// use serde_json::json;
///
/// let ask = json!({"method": "elicitation/create", "params": {"message": "Email?"}});
/// let reask = Reask::new(JsonDigest::of(&ask), NonZeroU32::MIN);
/// assert_eq!(reask.invalid().get(), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reask {
    /// The digest of the `inputRequests` entry first asked under the key.
    #[serde(rename = "q")]
    question: JsonDigest,
    /// Invalid answers in a row, at least 1.
    #[serde(rename = "n")]
    invalid: NonZeroU32,
}

impl Reask {
    /// The question whose first `inputRequests` entry has the digest
    /// `question`, after `invalid` invalid answers in a row.
    pub fn new(question: JsonDigest, invalid: NonZeroU32) -> Self {
        Self { question, invalid }
    }

    /// The digest of the question as first asked.
    pub fn question(&self) -> &JsonDigest {
        &self.question
    }

    /// How many invalid answers in a row the question has had.
    pub fn invalid(&self) -> NonZeroU32 {
        self.invalid
    }
}

/// What the server puts into a new token: the questions it is asking now,
/// the answers it has proven so far, the questions among them that are
/// re-asks after invalid answers, the names of the effects that already ran
/// in this flow, the results of its steps, and its own data.
///
/// `Debug` shows the question keys and digests, the answer keys, the re-asks,
/// the effect names and the step names, never an answer, a step's result or
/// the application data.
///
/// ```
/// use mrtr_guard::StateContents;
/// use mrtr_guard::json::JsonDigest;
/// use mrtr_guard::state::ProvenAnswer;
/// use serde_json::json;
///
/// let ask = json!({"method": "elicitation/create", "params": {"message": "Ship?"}});
/// let email = json!({"method": "elicitation/create", "params": {"message": "Email?"}});
/// let response = json!({"action": "accept", "content": {"email": "ada@example.com"}});
/// let contents = StateContents::new(json!({"cart": 17}))
///     .question("ship", &ask)
///     .answer("email", ProvenAnswer::new(JsonDigest::of(&email), response.as_object().cloned().unwrap_or_default()));
/// assert_eq!(contents.questions()["ship"], JsonDigest::of(&ask));
/// assert!(!format!("{contents:?}").contains("ada@"));
/// ```
#[derive(Clone, PartialEq)]
pub struct StateContents<A> {
    /// Question key -> digest of the `inputRequests` entry asked under it.
    pub(super) questions: BTreeMap<String, JsonDigest>,
    /// Answer key -> the question it answers and the accepted response.
    pub(super) answers: BTreeMap<String, ProvenAnswer>,
    /// Question key -> the question first asked and its invalid answers.
    pub(super) reasks: BTreeMap<String, Reask>,
    /// Names of the effects that ran in this flow.
    pub(super) ran_effects: BTreeSet<String>,
    /// Step name -> the result the step returned, in this flow.
    pub(super) steps: BTreeMap<String, Value>,
    pub(super) app: A,
}

/// [`StateContents`] moved out, member by member.
pub(crate) struct Parts<A> {
    pub(crate) questions: BTreeMap<String, JsonDigest>,
    pub(crate) answers: BTreeMap<String, ProvenAnswer>,
    pub(crate) reasks: BTreeMap<String, Reask>,
    pub(crate) ran_effects: BTreeSet<String>,
    pub(crate) steps: BTreeMap<String, Value>,
    pub(crate) app: A,
}

impl<A> StateContents<A> {
    /// StateContents holding only the application's data.
    pub fn new(app: A) -> Self {
        Self {
            questions: BTreeMap::new(),
            answers: BTreeMap::new(),
            reasks: BTreeMap::new(),
            ran_effects: BTreeSet::new(),
            steps: BTreeMap::new(),
            app,
        }
    }

    /// Records that the `inputRequests` entry `request` is asked under `key`.
    /// Only its digest is stored.
    #[must_use]
    pub fn question(self, key: impl Into<String>, request: &Value) -> Self {
        self.question_digest(key, JsonDigest::of(request))
    }

    /// Records a question by the digest of its `inputRequests` entry.
    #[must_use]
    pub fn question_digest(mut self, key: impl Into<String>, digest: JsonDigest) -> Self {
        self.questions.insert(key.into(), digest);
        self
    }

    /// Carries an answer that an earlier round proved.
    #[must_use]
    pub fn answer(mut self, key: impl Into<String>, answer: ProvenAnswer) -> Self {
        self.answers.insert(key.into(), answer);
        self
    }

    /// Records that the question asked under `key` is a re-ask after invalid
    /// answers. A token opens only if `key` is also one of its
    /// [`questions`](Self::questions).
    #[must_use]
    pub fn reask(mut self, key: impl Into<String>, reask: Reask) -> Self {
        self.reasks.insert(key.into(), reask);
        self
    }

    /// Records that the effect `name` ran in this flow.
    #[must_use]
    pub fn ran_effect(mut self, name: impl Into<String>) -> Self {
        self.ran_effects.insert(name.into());
        self
    }

    /// Records that the step `name` returned `result` in this flow
    /// ([`Round::step`](crate::Round::step)): a later round gets it instead
    /// of doing the step again.
    #[must_use]
    pub fn step(mut self, name: impl Into<String>, result: Value) -> Self {
        self.steps.insert(name.into(), result);
        self
    }

    /// The questions, by `inputRequests` key.
    pub fn questions(&self) -> &BTreeMap<String, JsonDigest> {
        &self.questions
    }

    /// The carried answers, by key.
    pub fn answers(&self) -> &BTreeMap<String, ProvenAnswer> {
        &self.answers
    }

    /// The re-asks among the questions, by key.
    pub fn reasks(&self) -> &BTreeMap<String, Reask> {
        &self.reasks
    }

    /// The names of the effects that ran in this flow.
    pub fn ran_effects(&self) -> &BTreeSet<String> {
        &self.ran_effects
    }

    /// The results of the flow's steps, by name.
    pub fn steps(&self) -> &BTreeMap<String, Value> {
        &self.steps
    }

    /// The application's data.
    pub fn app(&self) -> &A {
        &self.app
    }

    /// Every member, moved out.
    pub(crate) fn into_parts(self) -> Parts<A> {
        Parts {
            questions: self.questions,
            answers: self.answers,
            reasks: self.reasks,
            ran_effects: self.ran_effects,
            steps: self.steps,
            app: self.app,
        }
    }
}

impl<A> fmt::Debug for StateContents<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateContents")
            .field("questions", &self.questions)
            .field("answers", &self.answers)
            .field("reasks", &self.reasks)
            .field("ran_effects", &self.ran_effects)
            .field("steps", &self.steps.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The verified contents of a token. Only [`StateCodec::open_at`](crate::state::StateCodec::open_at)
/// makes one, after the tag, the binding, the times and the round cap checked out.
///
/// `Debug` shows the times, round, flow id, questions and answer keys, never
/// an answer or the application data.
#[derive(Clone, PartialEq)]
pub struct Claims<A> {
    pub(super) meta: Meta,
    pub(super) contents: StateContents<A>,
}

/// The claims the codec sets: times and the flow's position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    pub(crate) issued_at: OffsetDateTime,
    pub(crate) expires_at: OffsetDateTime,
    pub(crate) deadline: OffsetDateTime,
    pub(crate) round: u32,
    pub(crate) flow_id: FlowId,
    /// The replay guard's generation when the token was minted (`gen`).
    pub(crate) generation: Option<Generation>,
}

impl<A> Claims<A> {
    /// When the token was minted.
    pub fn issued_at(&self) -> OffsetDateTime {
        self.meta.issued_at
    }

    /// When the token stops opening (not included): at most the round TTL
    /// after minting, and never after the flow's deadline.
    pub fn expires_at(&self) -> OffsetDateTime {
        self.meta.expires_at
    }

    /// The flow's absolute deadline, fixed by its first token.
    pub fn deadline(&self) -> OffsetDateTime {
        self.meta.deadline
    }

    /// How many times this flow has asked, counting the ask that minted this
    /// token: 1 for the first.
    pub fn round(&self) -> u32 {
        self.meta.round
    }

    /// The flow's id.
    pub fn flow_id(&self) -> FlowId {
        self.meta.flow_id
    }

    /// The generation of the replay guard's memory the token was minted
    /// under (claim `gen`), when the minting codec had a guard with
    /// generations.
    pub fn generation(&self) -> Option<Generation> {
        self.meta.generation
    }

    /// The questions the minting round asked, by `inputRequests` key.
    pub fn questions(&self) -> &BTreeMap<String, JsonDigest> {
        self.contents.questions()
    }

    /// Answers proven by earlier rounds.
    pub fn answers(&self) -> &BTreeMap<String, ProvenAnswer> {
        self.contents.answers()
    }

    /// The questions the minting round asked again after invalid answers.
    pub fn reasks(&self) -> &BTreeMap<String, Reask> {
        self.contents.reasks()
    }

    /// The effects that ran in this flow.
    pub fn ran_effects(&self) -> &BTreeSet<String> {
        self.contents.ran_effects()
    }

    /// The results of the flow's steps, by name.
    pub fn steps(&self) -> &BTreeMap<String, Value> {
        self.contents.steps()
    }

    /// The application's data.
    pub fn app(&self) -> &A {
        &self.contents.app
    }

    /// The carried contents, to build the next token from.
    pub fn into_contents(self) -> StateContents<A> {
        self.contents
    }

    /// The contents moved out, and the claims left with only their times,
    /// round and flow id (enough for [`StateCodec::next`](crate::state::StateCodec::next)).
    pub(crate) fn into_parts(self) -> (Claims<()>, StateContents<A>) {
        let meta = Claims {
            meta: self.meta,
            contents: StateContents::new(()),
        };
        (meta, self.contents)
    }

    #[cfg(test)]
    pub(crate) fn meta(&self) -> &Meta {
        &self.meta
    }
}

impl<A> fmt::Debug for Claims<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Claims")
            .field("meta", &self.meta)
            .field("contents", &self.contents)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::FlowId;

    #[test]
    fn a_flow_id_displays_as_lower_case_hex() {
        let id = FlowId::from_bytes([
            0x00, 0x01, 0x0f, 0x10, 0x7f, 0x80, 0xab, 0xcd, 0xef, 0xfe, 0xff, 0x2a, 0x3c, 0x4d,
            0x5e, 0x69,
        ]);
        assert_eq!(id.to_string(), "00010f107f80abcdeffeff2a3c4d5e69");
        assert_eq!(
            format!("{id:?}"),
            "FlowId(00010f107f80abcdeffeff2a3c4d5e69)"
        );
    }
}
