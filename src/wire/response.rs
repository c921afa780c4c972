//! `inputResponses`: the client's answers, untrusted.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::de::IntoDeserializer;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire::error::RpcError;

/// The `inputResponses` of a retry: one answer per key, each a JSON object.
///
/// Only the shape is checked here (an object of objects); whether an answer
/// fits the question is the runtime's business, and only for questions the
/// verified state says were asked. Unknown keys are kept but never read.
///
/// ```
/// use mrtr_guard::wire::{InputResponse, InputResponses};
/// use serde_json::json;
///
/// let responses = InputResponses::from_json(&json!({
///     "ship": {"action": "accept", "content": {"trackingNumber": "1Z999"}},
///     "roots": {"roots": [{"uri": "file:///home/ada"}]}
/// }))?;
/// assert!(matches!(responses.get("ship"), Some(InputResponse::Elicit(_))));
/// assert!(matches!(responses.get("roots"), Some(InputResponse::Roots(_))));
///
/// // Not an object, or a value that is not an object: -32602.
/// assert_eq!(InputResponses::from_json(&json!({"ship": 12345})).unwrap_err().code(), -32602);
/// assert_eq!(InputResponses::from_json(&json!(null)).unwrap_err().code(), -32602);
/// # Ok::<(), mrtr_guard::RpcError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct InputResponses {
    raw: Map<String, Value>,
    /// `raw` classified, made on the first [`get`](Self::get): the form path
    /// reads `raw` where it lies, and a key no question reads is never parsed.
    parsed: OnceLock<BTreeMap<String, InputResponse>>,
}

/// Equal when the raw responses are (the classification is a function of them).
impl PartialEq for InputResponses {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl InputResponses {
    /// No responses.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads an untrusted `inputResponses` value.
    ///
    /// # Errors
    ///
    /// [`RpcError::invalid_input_responses`] when `value` is not an object or
    /// one of its values is not an object.
    pub fn from_json(value: &Value) -> Result<Self, RpcError> {
        Self::checked(value).map(|raw| Self::from_checked(raw.clone()))
    }

    /// Reads an untrusted `inputResponses` object (what an SDK that parsed
    /// the request already holds).
    ///
    /// # Errors
    ///
    /// [`RpcError::invalid_input_responses`] when one of its values is not
    /// an object.
    pub fn from_map(raw: Map<String, Value>) -> Result<Self, RpcError> {
        if !raw.values().all(Value::is_object) {
            return Err(RpcError::invalid_input_responses());
        }
        Ok(Self::from_checked(raw))
    }

    /// An untrusted `inputResponses` value, checked as
    /// [`from_json`](Self::from_json) checks it, in place.
    pub(crate) fn checked(value: &Value) -> Result<&Map<String, Value>, RpcError> {
        value
            .as_object()
            .filter(|raw| raw.values().all(Value::is_object))
            .ok_or_else(RpcError::invalid_input_responses)
    }

    /// A map [`checked`](Self::checked) already.
    pub(crate) fn from_checked(raw: Map<String, Value>) -> Self {
        Self {
            raw,
            parsed: OnceLock::new(),
        }
    }

    /// The answer under `key`, classified.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&InputResponse> {
        self.parsed
            .get_or_init(|| {
                self.raw
                    .iter()
                    .filter_map(|(key, value)| {
                        let object = value.as_object()?;
                        Some((key.clone(), InputResponse::from_object(object)))
                    })
                    .collect()
            })
            .get(key)
    }

    /// The raw JSON object under `key`.
    #[must_use]
    pub fn raw(&self, key: &str) -> Option<&Value> {
        self.raw.get(key)
    }

    /// Whether there are no responses.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// The keys answered.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.raw.keys().map(String::as_str)
    }
}

/// One `inputResponses` value, classified by the keys it holds: `action` makes
/// an [`ElicitResult`], `roots` a [`ListRootsResult`], `model`/`role` a
/// [`CreateMessageResult`]. A value with keys of two kinds, or of none, or
/// that does not parse as its kind, is [`Unrecognized`](Self::Unrecognized):
/// it answers no question.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputResponse {
    /// An answer to `elicitation/create`.
    Elicit(ElicitResult),
    /// An answer to `sampling/createMessage`.
    Sampling(CreateMessageResult),
    /// An answer to `roots/list`.
    Roots(ListRootsResult),
    /// An object that is none of the above.
    Unrecognized,
}

impl InputResponse {
    /// Classifies one response object (see the type's docs).
    pub(crate) fn from_object(object: &Map<String, Value>) -> Self {
        let elicit = object.contains_key("action");
        let roots = object.contains_key("roots");
        let sampling = object.contains_key("model") || object.contains_key("role");
        // Read where it lies: the untrusted object is not copied first.
        fn read<'a, T: Deserialize<'a>>(object: &'a Map<String, Value>) -> Option<T> {
            T::deserialize(object.into_deserializer()).ok()
        }
        let parsed = match (elicit, roots, sampling) {
            (true, false, false) => read(object).map(Self::Elicit),
            (false, true, false) => read::<ListRootsResult>(object)
                .filter(ListRootsResult::is_valid)
                .map(Self::Roots),
            (false, false, true) => read(object).map(Self::Sampling),
            _ => None,
        };
        parsed.unwrap_or(Self::Unrecognized)
    }
}

/// The user's decision on an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted (form mode) or consented (URL mode).
    Accept,
    /// The user explicitly refused.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// An `ElicitResult`: `{"action": ..., "content": {...}}`.
///
/// `action` must be exactly `"accept"`, `"decline"` or `"cancel"`. Form
/// content is validated by [`Form::validate`](crate::form::Form::validate), which
/// reads the raw value; this type serves URL mode (where content is ignored)
/// and inspection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// The decision.
    pub action: ElicitAction,
    /// The submitted form content (accept in form mode only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

/// A `CreateMessageResult`: the client's sampled message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// `"assistant"` (or `"user"`).
    pub role: String,
    /// The content block(s), as sent.
    pub content: Value,
    /// The model that produced it.
    pub model: String,
    /// Why sampling stopped (an open string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// The text of a single text content block, if that is what came back.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        let block = match &self.content {
            Value::Array(blocks) => blocks.first()?,
            block => block,
        };
        if block.get("type")?.as_str()? == "text" {
            block.get("text")?.as_str()
        } else {
            None
        }
    }
}

/// A `ListRootsResult`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The client's roots.
    pub roots: Vec<Root>,
}

impl ListRootsResult {
    fn is_valid(&self) -> bool {
        self.roots
            .iter()
            .all(|root| root.uri.starts_with("file://"))
    }
}

/// One root: a `file://` URI and an optional name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn one(value: Value) -> InputResponse {
        InputResponses::from_json(&json!({"k": value}))
            .unwrap()
            .get("k")
            .cloned()
            .unwrap()
    }

    #[test]
    fn classified_by_key_presence() {
        assert_eq!(
            one(json!({"action": "decline"})),
            InputResponse::Elicit(ElicitResult {
                action: ElicitAction::Decline,
                content: None
            })
        );
        let sampled = one(
            json!({"role": "assistant", "content": {"type": "text", "text": "Paris"},
                                 "model": "m", "stopReason": "endTurn"}),
        );
        let InputResponse::Sampling(sampled) = sampled else {
            panic!("{sampled:?}")
        };
        assert_eq!(sampled.text(), Some("Paris"));
        assert!(matches!(
            one(json!({"roots": [{"uri": "file:///r", "name": "R"}]})),
            InputResponse::Roots(_)
        ));
        // Two kinds at once, none, wrong case, or a non-file root: recognised as nothing.
        for value in [
            json!({"action": "accept", "roots": []}),
            json!({"data": "wrong"}),
            json!({"action": "ACCEPT"}),
            json!({"roots": [{"uri": "https://x.example"}]}),
            json!({"role": "assistant"}),
        ] {
            assert_eq!(one(value.clone()), InputResponse::Unrecognized, "{value}");
        }
    }

    #[test]
    fn malformed_shapes_are_invalid_params() {
        for value in [
            json!(null),
            json!("x"),
            json!([]),
            json!({"k": 12345}),
            json!({"k": [1]}),
        ] {
            let error = InputResponses::from_json(&value).unwrap_err();
            assert_eq!(error, RpcError::invalid_input_responses(), "{value}");
        }
    }
}
