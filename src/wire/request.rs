//! `inputRequests`: what a server asks the client to do before it retries.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value, json};

use crate::wire::capabilities::ClientCapabilities;

/// The `inputRequests` map: server-chosen keys, one request each.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// One embedded request of `inputRequests`: `{"method": ..., "params": ...}`,
/// with no `jsonrpc` and no `id`.
///
/// The method is the tag; the elicitation mode is told apart by its `mode`
/// key (absent or `"form"` is form mode, `"url"` is URL mode, anything else is
/// refused).
///
/// ```
/// use mrtr_guard::wire::{ElicitRequest, InputRequest};
/// use serde_json::json;
///
/// let ask = InputRequest::Elicitation(ElicitRequest::url(
///     "Please set your API key",
///     "https://mcp.example.com/ui/set_api_key",
/// ));
/// assert_eq!(
///     serde_json::to_value(&ask)?,
///     json!({"method": "elicitation/create", "params": {
///         "mode": "url", "message": "Please set your API key",
///         "url": "https://mcp.example.com/ui/set_api_key"}})
/// );
/// assert_eq!(serde_json::from_value::<InputRequest>(serde_json::to_value(&ask)?)?, ask);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicitation(ElicitRequest),
    /// `sampling/createMessage` (deprecated by SEP-2577, still functional).
    Sampling(SamplingRequest),
    /// `roots/list` (deprecated by SEP-2577, still functional).
    Roots(RootsRequest),
}

impl InputRequest {
    /// The JSON-RPC method name.
    #[must_use]
    pub fn method(&self) -> &'static str {
        match self {
            Self::Elicitation(_) => "elicitation/create",
            Self::Sampling(_) => "sampling/createMessage",
            Self::Roots(_) => "roots/list",
        }
    }

    /// The capabilities a client must declare to receive this request, down
    /// to the sub-capability: `elicitation.form` or `elicitation.url`, and
    /// `sampling.tools` / `sampling.context` when the sampling request uses
    /// tools or an `includeContext` other than `"none"`.
    #[must_use]
    pub fn required_capabilities(&self) -> ClientCapabilities {
        let none = ClientCapabilities::none();
        match self {
            Self::Elicitation(ElicitRequest::Form { .. }) => none.with_elicitation_form(),
            Self::Elicitation(ElicitRequest::Url { .. }) => none.with_elicitation_url(),
            Self::Sampling(sampling) => {
                let mut caps = none.with_sampling();
                if sampling.uses_tools() {
                    caps = caps.with_sampling_tools();
                }
                if sampling.uses_context() {
                    caps = caps.with_sampling_context();
                }
                caps
            }
            Self::Roots(_) => none.with_roots(),
        }
    }

    /// Whether a client with `capabilities` may receive this request.
    #[must_use]
    pub fn allowed_by(&self, capabilities: &ClientCapabilities) -> bool {
        match self {
            Self::Elicitation(ElicitRequest::Form { .. }) => capabilities.elicitation_form(),
            Self::Elicitation(ElicitRequest::Url { .. }) => capabilities.elicitation_url(),
            Self::Sampling(sampling) => {
                capabilities.sampling()
                    && (!sampling.uses_tools() || capabilities.sampling_tools())
                    && (!sampling.uses_context() || capabilities.sampling_context())
            }
            Self::Roots(_) => capabilities.roots(),
        }
    }

    /// The request as its `inputRequests` JSON entry.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let params = match self {
            Self::Elicitation(ElicitRequest::Form {
                message,
                requested_schema,
                ..
            }) => Some(
                json!({"mode": "form", "message": message, "requestedSchema": requested_schema}),
            ),
            Self::Elicitation(ElicitRequest::Url { message, url }) => {
                Some(json!({"mode": "url", "message": message, "url": url}))
            }
            Self::Sampling(sampling) => Some(Value::Object(sampling.params.clone())),
            Self::Roots(_) => None,
        };
        let mut entry = Map::new();
        entry.insert("method".into(), Value::from(self.method()));
        if let Some(params) = params {
            entry.insert("params".into(), params);
        }
        Value::Object(entry)
    }

    fn from_json(value: &Value) -> Result<Self, String> {
        let entry = value
            .as_object()
            .ok_or("an input request must be an object")?;
        let method = entry
            .get("method")
            .and_then(Value::as_str)
            .ok_or("an input request needs a string method")?;
        let params = entry.get("params");
        let object = |what: &str| -> Result<&Map<String, Value>, String> {
            params
                .and_then(Value::as_object)
                .ok_or_else(|| format!("{what} needs params"))
        };
        let string = |params: &Map<String, Value>, key: &str| -> Result<String, String> {
            params
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("elicitation params need a string {key}"))
        };
        match method {
            "elicitation/create" => {
                let params = object("elicitation/create")?;
                match params.get("mode").map(|m| m.as_str()) {
                    None | Some(Some("form")) => Ok(Self::Elicitation(ElicitRequest::Form {
                        message: string(params, "message")?,
                        requested_schema: params
                            .get("requestedSchema")
                            .filter(|s| s.is_object())
                            .cloned()
                            .ok_or("form elicitation needs a requestedSchema object")?,
                        property_order: Vec::new(),
                    })),
                    Some(Some("url")) => Ok(Self::Elicitation(ElicitRequest::Url {
                        message: string(params, "message")?,
                        url: string(params, "url")?,
                    })),
                    Some(_) => Err("unknown elicitation mode".into()),
                }
            }
            "sampling/createMessage" => {
                let params = object("sampling/createMessage")?;
                if !params.get("messages").is_some_and(Value::is_array)
                    || !params.get("maxTokens").is_some_and(Value::is_number)
                {
                    return Err("sampling params need messages and maxTokens".into());
                }
                Ok(Self::Sampling(SamplingRequest {
                    params: params.clone(),
                }))
            }
            "roots/list" => match params {
                None | Some(Value::Object(_)) => Ok(Self::Roots(RootsRequest::new())),
                Some(_) => Err("roots/list params must be an object".into()),
            },
            _ => Err("unknown input request method".into()),
        }
    }
}

/// As [`InputRequest::to_json`], except that a form's properties come in
/// its `property_order`.
impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Self::Elicitation(ElicitRequest::Form {
            message,
            requested_schema,
            property_order,
        }) = self
        else {
            return self.to_json().serialize(serializer);
        };
        let schema = OrderedSchema {
            schema: requested_schema,
            order: property_order,
        };
        let mut params = Map::new();
        params.insert("mode".into(), Value::from("form"));
        params.insert("message".into(), Value::from(message.as_str()));
        let mut entry = serializer.serialize_map(Some(2))?;
        entry.serialize_entry("method", self.method())?;
        entry.serialize_entry("params", &FormParams { params, schema })?;
        entry.end()
    }
}

/// A form request's params: `mode` and `message`, then the schema.
struct FormParams<'a> {
    params: Map<String, Value>,
    schema: OrderedSchema<'a>,
}

impl Serialize for FormParams<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.params.len().saturating_add(1)))?;
        for (key, value) in &self.params {
            map.serialize_entry(key, value)?;
        }
        map.serialize_entry("requestedSchema", &self.schema)?;
        map.end()
    }
}

/// A schema `Value` written `type` first, then its other keys, with the
/// members of `properties` in `order` (names it does not list follow).
pub(crate) struct OrderedSchema<'a> {
    schema: &'a Value,
    order: &'a [String],
}

impl<'a> OrderedSchema<'a> {
    /// `schema`, to be written with its properties in `order`.
    #[cfg(feature = "tower")]
    pub(crate) fn new(schema: &'a Value, order: &'a [String]) -> Self {
        Self { schema, order }
    }
}

impl Serialize for OrderedSchema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Value::Object(schema) = self.schema else {
            return self.schema.serialize(serializer);
        };
        let keys = schema.keys().filter(|k| *k != "type");
        let keys = schema
            .get_key_value("type")
            .map(|(k, _)| k)
            .into_iter()
            .chain(keys);
        let mut map = serializer.serialize_map(Some(schema.len()))?;
        for key in keys {
            match schema.get(key) {
                Some(Value::Object(properties)) if key == "properties" => {
                    map.serialize_entry(
                        key,
                        &InOrder {
                            map: properties,
                            order: self.order,
                        },
                    )?;
                }
                Some(value) => map.serialize_entry(key, value)?,
                None => {}
            }
        }
        map.end()
    }
}

/// An object's members, the names in `order` first.
struct InOrder<'a> {
    map: &'a Map<String, Value>,
    order: &'a [String],
}

impl Serialize for InOrder<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let listed = self
            .order
            .iter()
            .filter(|name| self.map.contains_key(*name));
        let rest = self.map.keys().filter(|name| !self.order.contains(*name));
        let mut map = serializer.serialize_map(Some(self.map.len()))?;
        for name in listed.chain(rest) {
            if let Some(value) = self.map.get(name) {
                map.serialize_entry(name, value)?;
            }
        }
        map.end()
    }
}

/// The `_meta` key of an `rmcp` input-required result under which the
/// `rmcp` adapter leaves each form's property order (`{askKey: [names]}`),
/// for `ScreenLayer` to apply: `rmcp` 3.11 writes every embedded request's
/// params through a `serde_json::Value`, which sorts them.
#[cfg(feature = "tower")]
pub(crate) const PROPERTY_ORDER_META: &str = "dev.mrtr-guard/propertyOrder";

impl PartialEq for ElicitRequest {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (
                Self::Form {
                    message,
                    requested_schema,
                    ..
                },
                Self::Form {
                    message: other_message,
                    requested_schema: other_schema,
                    ..
                },
            ) => message == other_message && requested_schema == other_schema,
            (
                Self::Url { message, url },
                Self::Url {
                    message: other_message,
                    url: other_url,
                },
            ) => message == other_message && url == other_url,
            _ => false,
        }
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_json(&value).map_err(D::Error::custom)
    }
}

/// The params of an `elicitation/create` input request.
///
/// Two requests are equal when they ask the same: a form's
/// `property_order` is how it is shown, not what it asks, and is left out.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ElicitRequest {
    /// Form mode: the client shows a form built from `requested_schema`.
    /// The runtime builds it from a form, in the form's field order
    /// ([`ElicitRequest::with_property_order`]).
    Form {
        /// What the user is asked.
        message: String,
        /// The restricted JSON Schema of the form.
        requested_schema: Value,
        /// The order the schema's `properties` are written in when this
        /// request is serialized (a `Value` sorts its keys): these names
        /// first, then any others as the `Value` lists them. Empty for a
        /// request parsed from a `Value`.
        property_order: Vec<String>,
    },
    /// URL mode: the client opens `url` (with consent) for an out-of-band
    /// interaction, such as entering a secret that must not pass through it.
    ///
    /// There is no `elicitationId`: MCP 2026-07-28 removed it (with
    /// `notifications/elicitation/complete`). To correlate the page with the
    /// flow, carry your own identifier in the state
    /// ([`Round::set_app`](crate::runtime::Round::set_app)).
    Url {
        /// What the user is asked.
        message: String,
        /// The page to open.
        url: String,
    },
}

impl ElicitRequest {
    /// A form-mode request; its properties are written in the order the
    /// `Value` lists them (sorted), unless
    /// [`with_property_order`](Self::with_property_order) says otherwise.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> Self {
        Self::Form {
            message: message.into(),
            requested_schema,
            property_order: Vec::new(),
        }
    }

    /// The same form-mode request, its `requested_schema` properties written
    /// in `order` (names the schema does not have are skipped; properties
    /// `order` leaves out follow, sorted). The runtime gives a form's
    /// declaration order.
    ///
    /// ```
    /// use mrtr_guard::wire::{ElicitRequest, InputRequest};
    /// use serde_json::json;
    ///
    /// let schema = json!({"type": "object", "properties": {
    ///     "teamSize": {"type": "integer"}, "roles": {"type": "string"}}});
    /// let ask = ElicitRequest::form("Your team", schema)
    ///     .with_property_order(["teamSize", "roles"]);
    /// let text = serde_json::to_string(&InputRequest::Elicitation(ask))?;
    /// assert!(text.find("teamSize") < text.find("roles"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    #[must_use]
    pub fn with_property_order<I, S>(mut self, order: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        if let Self::Form { property_order, .. } = &mut self {
            *property_order = order.into_iter().map(Into::into).collect();
        }
        self
    }

    /// A URL-mode request.
    ///
    /// <div class="warning">The URL must not carry credentials or personal
    /// data, and must not be pre-authenticated; the page must check that the
    /// user who opens it is the user the request was made for.</div>
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self::Url {
            message: message.into(),
            url: url.into(),
        }
    }
}

/// The params of a `sampling/createMessage` input request.
///
/// ```
/// use mrtr_guard::wire::SamplingRequest;
/// use serde_json::json;
///
/// let ask = SamplingRequest::user_text("What is the capital of France?", 100)
///     .system_prompt("Answer in one word.");
/// assert_eq!(ask.params()["maxTokens"], json!(100));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingRequest {
    params: Map<String, Value>,
}

impl SamplingRequest {
    /// One user text message and a token budget.
    pub fn user_text(text: impl Into<String>, max_tokens: u32) -> Self {
        let mut params = Map::new();
        params.insert(
            "messages".into(),
            json!([{"role": "user", "content": {"type": "text", "text": text.into()}}]),
        );
        params.insert("maxTokens".into(), Value::from(max_tokens));
        Self { params }
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn system_prompt(self, prompt: impl Into<String>) -> Self {
        self.param("systemPrompt", Value::from(prompt.into()))
    }

    /// Sets any other params member (`modelPreferences`, `temperature`,
    /// `stopSequences`, `tools`, ...), passed through as given.
    #[must_use]
    pub fn param(mut self, key: impl Into<String>, value: Value) -> Self {
        self.params.insert(key.into(), value);
        self
    }

    /// The params object.
    #[must_use]
    pub fn params(&self) -> &Map<String, Value> {
        &self.params
    }

    fn uses_tools(&self) -> bool {
        self.params.contains_key("tools") || self.params.contains_key("toolChoice")
    }

    fn uses_context(&self) -> bool {
        self.params
            .get("includeContext")
            .is_some_and(|c| c.as_str() != Some("none"))
    }
}

/// The (empty) params of a `roots/list` input request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootsRequest {}

impl RootsRequest {
    /// A `roots/list` request.
    #[must_use]
    pub fn new() -> Self {
        Self {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: Value) -> Result<InputRequest, serde_json::Error> {
        serde_json::from_value(value)
    }

    #[test]
    fn mode_is_told_apart_by_key() {
        let schema = json!({"type": "object", "properties": {}});
        let no_mode = parse(json!({"method": "elicitation/create",
            "params": {"message": "m", "requestedSchema": schema}}))
        .unwrap();
        assert_eq!(
            no_mode,
            InputRequest::Elicitation(ElicitRequest::form("m", schema))
        );
        // A URL request with a stray requestedSchema is still a URL request.
        let url = parse(json!({"method": "elicitation/create",
            "params": {"mode": "url", "message": "m", "url": "https://x.example", "requestedSchema": {}}}))
        .unwrap();
        assert_eq!(
            url,
            InputRequest::Elicitation(ElicitRequest::url("m", "https://x.example"))
        );
        assert!(
            parse(
                json!({"method": "elicitation/create", "params": {"mode": "popup", "message": "m"}})
            )
            .is_err()
        );
        assert!(
            parse(
                json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m"}})
            )
            .is_err()
        );
        assert!(parse(json!({"method": "tools/call", "params": {}})).is_err());
    }

    #[test]
    fn round_trips_and_roots_has_no_params() {
        let requests = [
            InputRequest::Elicitation(ElicitRequest::form(
                "m",
                json!({"type": "object", "properties": {}}),
            )),
            InputRequest::Sampling(SamplingRequest::user_text("q", 10)),
            InputRequest::Roots(RootsRequest::new()),
        ];
        for request in requests {
            let json = serde_json::to_value(&request).unwrap();
            assert_eq!(parse(json).unwrap(), request);
        }
        assert_eq!(
            InputRequest::Roots(RootsRequest::new()).to_json(),
            json!({"method": "roots/list"})
        );
    }

    #[test]
    fn a_form_request_serializes_in_declared_order() {
        let schema = json!({"type": "object", "properties": {
            "teamSize": {"type": "integer"},
            "roles": {"type": "array", "items": {"type": "string", "enum": ["admin"]}}}});
        let ask = InputRequest::Elicitation(
            ElicitRequest::form("Your team", schema).with_property_order(["teamSize", "roles"]),
        );
        let mut asks = InputRequests::new();
        asks.insert("team".into(), ask.clone());
        let result = crate::wire::InputRequiredResult::new(asks, "s".into());
        let text = serde_json::to_string(&result).unwrap();
        assert!(text.find("teamSize") < text.find("roles"), "{text}");
        // The same request as the sorted `Value` says, and equal to it parsed back.
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            result.to_json()
        );
        assert_eq!(parse(ask.to_json()).unwrap(), ask);
    }

    #[test]
    fn capability_requirements() {
        let form = ClientCapabilities::none().with_elicitation_form();
        let url = InputRequest::Elicitation(ElicitRequest::url("m", "https://x.example"));
        assert!(!url.allowed_by(&form));
        assert!(url.allowed_by(&form.clone().with_elicitation_url()));
        let tools =
            InputRequest::Sampling(SamplingRequest::user_text("q", 1).param("tools", json!([])));
        assert!(!tools.allowed_by(&ClientCapabilities::none().with_sampling()));
        assert_eq!(
            tools.required_capabilities().to_json(),
            json!({"sampling": {"tools": {}}})
        );
        let context = InputRequest::Sampling(
            SamplingRequest::user_text("q", 1).param("includeContext", json!("thisServer")),
        );
        assert!(!context.allowed_by(&ClientCapabilities::none().with_sampling()));
        assert_eq!(
            context.required_capabilities().to_json(),
            json!({"sampling": {"context": {}}})
        );
        assert!(context.allowed_by(&context.required_capabilities()));
        let form = InputRequest::Elicitation(ElicitRequest::form("m", json!({})));
        assert_eq!(
            form.required_capabilities().to_json(),
            json!({"elicitation": {"form": {}}})
        );
    }
}
