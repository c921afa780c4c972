//! `ClientCapabilities`, as the client declares them in every request's `_meta`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::wire::error::RpcError;

/// The capabilities a client declared on one request
/// (`_meta["io.modelcontextprotocol/clientCapabilities"]`).
///
/// Read them on every request: a server must not infer capabilities from an
/// earlier request, not even from an earlier round of the same flow. The
/// accessors answer the questions the runtime asks before it asks the client
/// anything:
///
/// - `elicitation: {}` means form mode only; URL mode needs `elicitation.url`;
///   `elicitation: {"url": {}}` alone means URL mode only.
/// - tool-enabled sampling needs `sampling.tools`; context inclusion needs
///   `sampling.context`.
///
/// A member that is present but not a JSON object declares nothing.
///
/// ```
/// use mrtr_guard::wire::ClientCapabilities;
/// use serde_json::json;
///
/// let caps = ClientCapabilities::from_json(&json!({"elicitation": {}, "sampling": {}}))?;
/// assert!(caps.elicitation_form());
/// assert!(!caps.elicitation_url());
/// assert!(caps.sampling());
/// assert!(!caps.roots());
/// assert_eq!(ClientCapabilities::none().with_roots().to_json(), json!({"roots": {}}));
/// # Ok::<(), mrtr_guard::RpcError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClientCapabilities(Map<String, Value>);

impl ClientCapabilities {
    /// No optional capability: `{}`.
    #[must_use]
    pub fn none() -> Self {
        Self(Map::new())
    }

    /// Reads a capabilities object.
    ///
    /// # Errors
    ///
    /// [`RpcError::invalid_params`](RpcError::invalid_params) when
    /// `value` is not a JSON object.
    pub fn from_json(value: &Value) -> Result<Self, RpcError> {
        match value {
            Value::Object(map) => Ok(Self(map.clone())),
            _ => Err(RpcError::invalid_params(
                "clientCapabilities must be an object",
            )),
        }
    }

    /// The capabilities as JSON.
    #[must_use]
    pub fn to_json(&self) -> Value {
        Value::Object(self.0.clone())
    }

    /// Whether form-mode elicitation may be sent.
    #[must_use]
    pub fn elicitation_form(&self) -> bool {
        match self.member("elicitation") {
            Some(elicitation) => {
                elicitation.is_empty() || elicitation.get("form").is_some_and(Value::is_object)
            }
            None => false,
        }
    }

    /// Whether URL-mode elicitation may be sent.
    #[must_use]
    pub fn elicitation_url(&self) -> bool {
        self.member("elicitation")
            .is_some_and(|e| e.get("url").is_some_and(Value::is_object))
    }

    /// Whether `sampling/createMessage` may be sent.
    #[must_use]
    pub fn sampling(&self) -> bool {
        self.member("sampling").is_some()
    }

    /// Whether sampling requests may carry `tools` / `toolChoice`.
    #[must_use]
    pub fn sampling_tools(&self) -> bool {
        self.member("sampling")
            .is_some_and(|s| s.get("tools").is_some_and(Value::is_object))
    }

    /// Whether sampling requests may ask for context other than `"none"`.
    #[must_use]
    pub fn sampling_context(&self) -> bool {
        self.member("sampling")
            .is_some_and(|s| s.get("context").is_some_and(Value::is_object))
    }

    /// Whether `roots/list` may be sent.
    #[must_use]
    pub fn roots(&self) -> bool {
        self.member("roots").is_some()
    }

    /// Whether every capability `required` declares is declared here too
    /// (objects compared member by member, recursively).
    #[must_use]
    pub fn covers(&self, required: &Self) -> bool {
        fn covers(have: &Map<String, Value>, need: &Map<String, Value>) -> bool {
            need.iter().all(|(key, need)| match (have.get(key), need) {
                (Some(Value::Object(have)), Value::Object(need)) => covers(have, need),
                (Some(have), need) => have == need,
                (None, _) => false,
            })
        }
        covers(&self.0, &required.0)
    }

    /// Adds `elicitation: {"form": {}}` (form mode). Naming the mode keeps
    /// it when URL mode is added too, and lets a `requiredCapabilities` tell
    /// a URL-only client what it lacks.
    #[must_use]
    pub fn with_elicitation_form(mut self) -> Self {
        if let Some(elicitation) = self.object("elicitation") {
            elicitation.insert("form".into(), Value::Object(Map::new()));
        }
        self
    }

    /// Adds `elicitation: {"url": {}}` (URL mode).
    #[must_use]
    pub fn with_elicitation_url(mut self) -> Self {
        if let Some(elicitation) = self.object("elicitation") {
            elicitation.insert("url".into(), Value::Object(Map::new()));
        }
        self
    }

    /// Adds `sampling: {}`.
    #[must_use]
    pub fn with_sampling(mut self) -> Self {
        self.object("sampling");
        self
    }

    /// Adds `sampling: {"tools": {}}`.
    #[must_use]
    pub fn with_sampling_tools(mut self) -> Self {
        if let Some(sampling) = self.object("sampling") {
            sampling.insert("tools".into(), Value::Object(Map::new()));
        }
        self
    }

    /// Adds `sampling: {"context": {}}` (`includeContext` other than
    /// `"none"`).
    #[must_use]
    pub fn with_sampling_context(mut self) -> Self {
        if let Some(sampling) = self.object("sampling") {
            sampling.insert("context".into(), Value::Object(Map::new()));
        }
        self
    }

    /// Adds `roots: {}`.
    #[must_use]
    pub fn with_roots(mut self) -> Self {
        self.object("roots");
        self
    }

    /// Joins two sets of capabilities (for `requiredCapabilities` naming
    /// several).
    #[must_use]
    pub fn union(mut self, other: &Self) -> Self {
        fn merge(into: &mut Map<String, Value>, from: &Map<String, Value>) {
            for (key, value) in from {
                match (into.get_mut(key), value) {
                    (Some(Value::Object(into)), Value::Object(from)) => merge(into, from),
                    (Some(_), _) => {}
                    (None, value) => {
                        into.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        merge(&mut self.0, &other.0);
        self
    }

    /// Whether nothing is declared.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn member(&self, name: &str) -> Option<&Map<String, Value>> {
        self.0.get(name).and_then(Value::as_object)
    }

    /// The member `name` as an object, created when absent or not an object.
    fn object(&mut self, name: &str) -> Option<&mut Map<String, Value>> {
        let slot = self
            .0
            .entry(name)
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        slot.as_object_mut()
    }
}

// The error for missing capabilities lives with the capabilities, so that
// `error.rs` needs nothing of this file.
impl RpcError {
    /// `-32021`: the request cannot be served without capabilities the client
    /// did not declare; `data.requiredCapabilities` names them. HTTP 400.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    /// use mrtr_guard::wire::ClientCapabilities;
    /// use serde_json::json;
    ///
    /// let error = RpcError::missing_capability(&ClientCapabilities::none().with_sampling());
    /// assert_eq!(error.to_json(), json!({"code": -32021,
    ///     "message": "Missing required client capability",
    ///     "data": {"requiredCapabilities": {"sampling": {}}}}));
    /// ```
    pub fn missing_capability(required: &ClientCapabilities) -> Self {
        Self::new(
            Self::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability",
            Some(json!({"requiredCapabilities": required.to_json()})),
            400,
        )
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn caps(value: Value) -> ClientCapabilities {
        ClientCapabilities::from_json(&value).unwrap()
    }

    #[test]
    fn elicitation_modes_follow_the_spec() {
        let empty = caps(json!({"elicitation": {}}));
        assert!(empty.elicitation_form() && !empty.elicitation_url());
        let url_only = caps(json!({"elicitation": {"url": {}}}));
        assert!(!url_only.elicitation_form() && url_only.elicitation_url());
        let both = caps(json!({"elicitation": {"form": {}, "url": {}}}));
        assert!(both.elicitation_form() && both.elicitation_url());
        let none = caps(json!({"sampling": {}}));
        assert!(!none.elicitation_form() && !none.elicitation_url());
        let bogus = caps(json!({"elicitation": true, "roots": 1}));
        assert!(!bogus.elicitation_form() && !bogus.roots());
    }

    #[test]
    fn sampling_sub_capabilities() {
        let plain = caps(json!({"sampling": {}}));
        assert!(plain.sampling() && !plain.sampling_tools() && !plain.sampling_context());
        let full = caps(json!({"sampling": {"tools": {}, "context": {}}}));
        assert!(full.sampling_tools() && full.sampling_context());
    }

    #[test]
    fn builders_keep_both_elicitation_modes() {
        for caps in [
            ClientCapabilities::none()
                .with_elicitation_form()
                .with_elicitation_url(),
            ClientCapabilities::none()
                .with_elicitation_url()
                .with_elicitation_form(),
        ] {
            assert!(
                caps.elicitation_form() && caps.elicitation_url(),
                "{caps:?}"
            );
        }
        let context = ClientCapabilities::none().with_sampling_context();
        assert!(context.sampling_context() && !context.sampling_tools());
    }

    #[test]
    fn builders_union_and_covers() {
        let required = ClientCapabilities::none()
            .with_elicitation_url()
            .union(&ClientCapabilities::none().with_sampling());
        assert_eq!(
            required.to_json(),
            json!({"elicitation": {"url": {}}, "sampling": {}})
        );
        assert!(
            caps(json!({"elicitation": {"url": {}, "form": {}}, "sampling": {"tools": {}}}))
                .covers(&required)
        );
        assert!(!caps(json!({"elicitation": {}, "sampling": {}})).covers(&required));
        assert!(ClientCapabilities::from_json(&json!([])).is_err());
    }
}
