//! `resultType` and `InputRequiredResult`.

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::wire::request::{InputRequest, InputRequests};

/// `resultType`, present on every 2026-07-28 result.
///
/// A client treats an absent `resultType` as `complete` and any value it does
/// not recognise as invalid; so does this type's `Deserialize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResultType {
    /// `"complete"`: the request is done.
    Complete,
    /// `"input_required"`: answer the `inputRequests` and retry.
    InputRequired,
}

impl ResultType {
    /// The wire string.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::InputRequired => "input_required",
        }
    }
}

/// `{"resultType": "input_required", "inputRequests": {...}, "requestState": "..."}`.
///
/// Every constructor yields a result with `inputRequests` (non-empty) or
/// `requestState` or both: the invalid `{"resultType":"input_required"}` cannot
/// be built, and does not deserialize.
///
/// ```
/// use mrtr_guard::wire::{InputRequest, InputRequiredResult, InputRequests, RootsRequest};
/// use serde_json::json;
///
/// let mut asks = InputRequests::new();
/// asks.insert("roots".into(), InputRequest::Roots(RootsRequest::new()));
/// let result = InputRequiredResult::new(asks, "opaque".into());
/// assert_eq!(result.to_json(), json!({
///     "resultType": "input_required",
///     "inputRequests": {"roots": {"method": "roots/list"}},
///     "requestState": "opaque"
/// }));
/// assert!(InputRequiredResult::from_requests(InputRequests::new()).is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequiredResult {
    input_requests: Option<InputRequests>,
    request_state: Option<String>,
}

impl InputRequiredResult {
    /// Requests and a state.
    #[must_use]
    pub fn new(input_requests: InputRequests, request_state: String) -> Self {
        Self {
            input_requests: Some(input_requests).filter(|r| !r.is_empty()),
            request_state: Some(request_state),
        }
    }

    /// Requests without a state; `None` when `input_requests` is empty.
    #[must_use]
    pub fn from_requests(input_requests: InputRequests) -> Option<Self> {
        (!input_requests.is_empty()).then_some(Self {
            input_requests: Some(input_requests),
            request_state: None,
        })
    }

    /// A state without requests (the client may retry at once: load shedding).
    #[must_use]
    pub fn from_state(request_state: String) -> Self {
        Self {
            input_requests: None,
            request_state: Some(request_state),
        }
    }

    /// The requests, if any.
    #[must_use]
    pub fn input_requests(&self) -> Option<&InputRequests> {
        self.input_requests.as_ref()
    }

    /// The request with this key.
    #[must_use]
    pub fn input_request(&self, key: &str) -> Option<&InputRequest> {
        self.input_requests.as_ref()?.get(key)
    }

    /// The state, if any.
    #[must_use]
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// The result as JSON.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let mut result = Map::new();
        result.insert(
            "resultType".into(),
            Value::from(ResultType::InputRequired.as_str()),
        );
        if let Some(requests) = &self.input_requests {
            let requests = requests
                .iter()
                .map(|(key, request)| (key.clone(), request.to_json()))
                .collect();
            result.insert("inputRequests".into(), Value::Object(requests));
        }
        if let Some(state) = &self.request_state {
            result.insert("requestState".into(), Value::from(state.as_str()));
        }
        Value::Object(result)
    }
}

/// The members of [`to_json`](InputRequiredResult::to_json), with each
/// request serialized as [`InputRequest`]'s `Serialize` writes it: a form's
/// fields in their declared order, which a `Value` would sort.
impl Serialize for InputRequiredResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("resultType", ResultType::InputRequired.as_str())?;
        if let Some(requests) = &self.input_requests {
            map.serialize_entry("inputRequests", requests)?;
        }
        if let Some(state) = &self.request_state {
            map.serialize_entry("requestState", state)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InputRequiredResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire {
            result_type: ResultType,
            #[serde(default)]
            input_requests: Option<InputRequests>,
            #[serde(default)]
            request_state: Option<String>,
        }
        let wire = Wire::deserialize(deserializer)?;
        if wire.result_type != ResultType::InputRequired {
            return Err(D::Error::custom("resultType is not input_required"));
        }
        match (wire.input_requests, wire.request_state) {
            (requests, Some(state)) => Ok(Self::new(requests.unwrap_or_default(), state)),
            (Some(requests), None) => Self::from_requests(requests)
                .ok_or_else(|| D::Error::custom("inputRequests is empty and requestState absent")),
            (None, None) => Err(D::Error::custom(
                "an input_required result needs inputRequests or requestState",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn neither_field_does_not_deserialize() {
        let parse = |v: Value| serde_json::from_value::<InputRequiredResult>(v);
        assert!(parse(json!({"resultType": "input_required"})).is_err());
        assert!(parse(json!({"resultType": "input_required", "inputRequests": {}})).is_err());
        assert!(parse(json!({"resultType": "complete", "requestState": "s"})).is_err());
        assert!(parse(json!({"requestState": "s"})).is_err());
        let state_only =
            parse(json!({"resultType": "input_required", "requestState": "s"})).unwrap();
        assert_eq!(state_only, InputRequiredResult::from_state("s".into()));
        assert_eq!(
            state_only.to_json(),
            json!({"resultType": "input_required", "requestState": "s"})
        );
    }

    #[test]
    fn result_type_strings() {
        assert_eq!(
            serde_json::to_value(ResultType::InputRequired).unwrap(),
            json!("input_required")
        );
        assert!(serde_json::from_value::<ResultType>(json!("task")).is_err());
        assert_eq!(ResultType::Complete.as_str(), "complete");
    }
}
