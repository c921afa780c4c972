//! The response rewrite of [`ScreenLayer`](super::ScreenLayer): forms'
//! fields back in the order they were declared.
//!
//! `rmcp` 3.11 writes every embedded request's params through a
//! `serde_json::Value`, which sorts them; the `rmcp` adapter leaves each
//! form's declared order under the `PROPERTY_ORDER_META` hint of the
//! result's `_meta`, and this puts the properties back in that order and
//! removes the hint.

use bytes::Bytes;
use http::Response;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http_body::Body;
use http_body_util::{BodyExt, Either, Full, Limited};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use memchr::memmem::Finder;
use std::fmt::Write as _;
use std::sync::OnceLock;

use crate::state::fill_random;
use crate::wire::{OrderedSchema, PROPERTY_ORDER_META, RpcError};

/// The `_meta` key this process's `rmcp` adapter leaves its order hint
/// under: [`PROPERTY_ORDER_META`], `#`, and 128 random bits drawn once per
/// process. Tool output cannot forge it (a tool that forwards an upstream's
/// `_meta` forwards another key): the rewrite acts on the adapter's own
/// `input_required` results only. `None` when the system's random number
/// generator fails: no hint, forms' fields then come out sorted.
pub(crate) fn order_hint_key() -> Option<&'static str> {
    static KEY: OnceLock<Option<String>> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut secret = [0u8; 16];
        fill_random(&mut secret).ok()?;
        let mut key = format!("{PROPERTY_ORDER_META}#");
        for byte in secret {
            let _ = write!(key, "{byte:02x}");
        }
        Some(key)
    })
    .as_deref()
}

/// The inner service's answer to a screened POST, forms' fields in the
/// order they were declared: a JSON response whose result carries the
/// `rmcp` adapter's order hint is written again in that order, without the
/// hint (see `mrtr_guard::rmcp::input_required`); any other passes through
/// (an event stream untouched, JSON with the same bytes). An internal
/// error when the body cannot be read.
pub(super) async fn in_declared_order<B>(
    response: Response<B>,
    max_bytes: usize,
) -> Result<Response<Either<Full<Bytes>, B>>, RpcError>
where
    B: Body<Data = Bytes>,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    if !is_json {
        return Ok(response.map(Either::Right));
    }
    let (mut parts, body) = response.into_parts();
    let Ok(collected) = Limited::new(body, max_bytes).collect().await else {
        return Err(RpcError::response_too_large());
    };
    let bytes = collected.to_bytes();
    let body = match apply_property_order(&bytes) {
        Some(text) => {
            parts.headers.remove(CONTENT_LENGTH);
            Bytes::from(text)
        }
        None => bytes,
    };
    Ok(Response::from_parts(parts, Either::Left(Full::new(body))))
}

/// Where an `input_required` JSON-RPC response holds each ask's schema.
const SCHEMA_PATH: [&str; 5] = ["result", "inputRequests", "*", "params", "requestedSchema"];

/// A JSON-RPC response body whose `result._meta` holds this process's
/// hint ([`order_hint_key`]), written again without the hint and with
/// each named ask's `requestedSchema.properties` in the hinted order; `None`
/// for any other body (leave it as it is).
fn apply_property_order(body: &[u8]) -> Option<Vec<u8>> {
    if !mentions_hint(body) {
        return None;
    }
    let key = order_hint_key()?;
    let mut reply: Value = serde_json::from_slice(body).ok()?;
    let result = reply.get_mut("result")?.as_object_mut()?;
    let meta = result.get_mut("_meta")?.as_object_mut()?;
    let orders = meta.remove(key)?;
    if meta.is_empty() {
        result.remove("_meta");
    }
    let orders = orders.as_object()?;
    let step = Step {
        value: &reply,
        path: &SCHEMA_PATH,
        ask: "",
        orders,
    };
    serde_json::to_vec(&step).ok()
}

/// Whether `body` holds the order hint key ([`order_hint_key`]), with a
/// searcher built once.
fn mentions_hint(body: &[u8]) -> bool {
    static FINDER: OnceLock<Option<Finder<'static>>> = OnceLock::new();
    FINDER
        .get_or_init(|| order_hint_key().map(|key| Finder::new(key.as_bytes())))
        .as_ref()
        .is_some_and(|finder| finder.find(body).is_some())
}

/// `value`, with the member `path` names (`"*"`: every member, whose name
/// is the ask key) written by `OrderedSchema` in the ask's order.
struct Step<'a> {
    value: &'a Value,
    path: &'a [&'a str],
    ask: &'a str,
    orders: &'a Map<String, Value>,
}

impl Serialize for Step<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some((head, rest)) = self.path.split_first() else {
            let order: Vec<String> = match self.orders.get(self.ask) {
                Some(Value::Array(names)) => names
                    .iter()
                    .filter_map(|name| name.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            };
            return OrderedSchema::new(self.value, &order).serialize(serializer);
        };
        let Value::Object(members) = self.value else {
            return self.value.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(members.len()))?;
        for (name, value) in members {
            if *head == "*" || head == name {
                let ask = if *head == "*" {
                    name.as_str()
                } else {
                    self.ask
                };
                let next = Step {
                    value,
                    path: rest,
                    ask,
                    orders: self.orders,
                };
                map.serialize_entry(name, &next)?;
            } else {
                map.serialize_entry(name, value)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_order_hint_is_applied_and_removed() {
        let props = json!({"roles": {"type": "array"}, "teamSize": {"type": "integer"}});
        let reply = |meta: Value| {
            json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": meta,
                "inputRequests": {"team": {"method": "elicitation/create", "params": {
                    "mode": "form", "message": "m",
                    "requestedSchema": {"type": "object", "properties": props}}}}}})
        };
        let key = order_hint_key().unwrap();
        let hinted = reply(json!({key: {"team": ["teamSize", "roles"]}, "k": 1}));
        let text = apply_property_order(hinted.to_string().as_bytes()).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.find("teamSize") < text.find("roles"), "{text}");
        assert!(!text.contains(PROPERTY_ORDER_META), "{text}");
        // Nothing but the order changed.
        let mut expected = reply(json!({"k": 1}));
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
        // The hint alone in `_meta`: `_meta` goes too.
        let alone = reply(json!({key: {"team": ["teamSize", "roles"]}}));
        let text = apply_property_order(alone.to_string().as_bytes()).unwrap();
        expected["result"].as_object_mut().unwrap().remove("_meta");
        assert_eq!(serde_json::from_slice::<Value>(&text).unwrap(), expected);
        // The public prefix alone, as a tool (a proxy forwarding an
        // upstream's `_meta`) might write it: untouched, byte for byte.
        let forged = reply(json!({PROPERTY_ORDER_META: {"team": ["teamSize", "roles"]}}));
        assert_eq!(apply_property_order(forged.to_string().as_bytes()), None);
        // No hint: nothing to do.
        assert_eq!(
            apply_property_order(reply(json!({})).to_string().as_bytes()),
            None
        );
    }
}
