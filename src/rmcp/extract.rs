//! The extractors of a `#[tool]` function: [`ToolCall`], what its round
//! needs from the `tools/call`, and [`BoundArgs`], its arguments beside
//! the raw JSON the state is bound to.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use ::rmcp::ErrorData;
use ::rmcp::handler::server::common::FromContextPart;
use ::rmcp::handler::server::tool::ToolCallContext;
use ::rmcp::model::InputResponses;
use ::rmcp::schemars::{JsonSchema, Schema, SchemaGenerator};
use ::rmcp::service::{RequestContext, RoleServer};
use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde_json::{Map, Value};

use super::error::error_data;
use super::legacy::session_capabilities;
use crate::handoff::LegacyRetry;
use crate::wire::{PROTOCOL_VERSION, RequestMeta, RpcError};

/// What a `#[tool]` function's round needs from its `tools/call`: an `rmcp`
/// extractor (`FromContextPart`). It keeps the tool name, the
/// `inputResponses`, the `requestState`, the request's context (its `_meta`
/// and HTTP parts, for the principal) and a copy of the arguments;
/// [`RmcpFlow::round`](super::RmcpFlow::round) or
/// [`RmcpFlow::round_with`](super::RmcpFlow::round_with) turns it into a
/// [`Round`](crate::runtime::Round).
///
/// ```ignore
/// #[tool(name = "ShipOrder", description = "Ship an order.")]
/// async fn ship_order(&self, call: ToolCall) -> ToolResponse {
///     let mut round = self.flow.round(call).await?;
///     // ...
/// }
/// ```
///
/// It copies what it reads: `rmcp`'s own extractors (`Parameters`,
/// `RequestState`, `InputResponses`) still find their parts, in any order.
pub struct ToolCall {
    pub(super) name: String,
    pub(super) arguments: Option<Map<String, Value>>,
    pub(super) input_responses: Option<InputResponses>,
    pub(super) request_state: Option<String>,
    /// The request's HTTP parts (for the principal, and the arguments
    /// `ScreenLayer` kept), when it came over HTTP.
    pub(super) parts: Option<http::request::Parts>,
    /// The request's `_meta`, read (or why it is refused).
    pub(super) meta: Result<RequestMeta, ErrorData>,
}

impl<S> FromContextPart<ToolCallContext<'_, S>> for ToolCall {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        let retry = context.request_state.is_some() || context.input_responses.is_some();
        let cx = context.request_context();
        Ok(Self {
            name: context.name().to_owned(),
            arguments: context.arguments.clone(),
            input_responses: context.input_responses.clone(),
            request_state: context.request_state.clone(),
            parts: cx.extensions.get::<http::request::Parts>().cloned(),
            meta: request_meta(cx, retry),
        })
    }
}

/// What a round reads of an `rmcp` request's context: its HTTP parts, and
/// its `_meta`, read.
pub(super) struct Context<'a> {
    pub(super) parts: Option<&'a http::request::Parts>,
    pub(super) meta: Result<RequestMeta, ErrorData>,
}

impl<'a> Context<'a> {
    /// The context of a request that is a retry (carries `requestState` or
    /// `inputResponses`) or not.
    pub(super) fn of(cx: &'a RequestContext<RoleServer>, retry: bool) -> Self {
        Self {
            parts: cx.extensions.get::<http::request::Parts>(),
            meta: request_meta(cx, retry),
        }
    }
}

/// The request's `_meta`. A retry (`requestState` or `inputResponses`)
/// must declare 2026-07-28 in it, unless the legacy rounds of
/// [`McpHandler`](super::McpHandler) made it;
/// a round 1 without one (a legacy session, no per-request `_meta`) reads
/// the capabilities rmcp knows.
fn request_meta(cx: &RequestContext<RoleServer>, retry: bool) -> Result<RequestMeta, ErrorData> {
    match RequestMeta::from_meta(&cx.meta.0.0) {
        Ok(meta) if retry && meta.protocol_version() != PROTOCOL_VERSION => Err(error_data(
            RpcError::unsupported_protocol_version(meta.protocol_version(), &[PROTOCOL_VERSION]),
        )),
        Ok(meta) => Ok(meta),
        Err(error) if retry && cx.extensions.get::<LegacyRetry>().is_none() => {
            Err(error_data(error))
        }
        Err(_) => Ok(RequestMeta::new("", session_capabilities(cx))),
    }
}

impl fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCall")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A `#[tool]` function's arguments as `T`, kept beside the raw JSON object
/// they were parsed from, which the round binds its state to: for tools
/// mounted over HTTP without [`McpServer`](super::McpServer) or
/// `ScreenLayer` (behind them, plain `Parameters<T>` and
/// [`RmcpFlow::round`](super::RmcpFlow::round) bind the same). Take it as
/// `Parameters<BoundArgs<T>>` and open the round with
/// [`RmcpFlow::round_with`](super::RmcpFlow::round_with); its JSON Schema
/// is `T`'s, so `rmcp`'s `#[tool]` lists the tool's input schema as `T`'s.
///
/// ```ignore
/// #[derive(Deserialize, JsonSchema)]
/// struct Order { order_id: String }
///
/// #[tool(name = "ShipOrder", description = "Ship an order.")]
/// async fn ship_order(&self, call: ToolCall, Parameters(order): Parameters<BoundArgs<Order>>) -> ToolResponse {
///     let mut round = self.flow.round_with(call, &order).await?;
///     let id = &order.order_id; // `BoundArgs<Order>` derefs to `Order`
///     // ...
/// }
/// ```
#[derive(Debug, Clone)]
pub struct BoundArgs<T> {
    value: T,
    raw: Map<String, Value>,
}

impl<T> BoundArgs<T> {
    /// The parsed arguments.
    pub fn into_inner(self) -> T {
        self.value
    }

    /// The arguments as the client sent them (as `rmcp` parsed them).
    #[must_use]
    pub fn raw(&self) -> &Map<String, Value> {
        &self.raw
    }
}

impl<T> Deref for BoundArgs<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for BoundArgs<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Map::<String, Value>::deserialize(deserializer)?;
        let value = T::deserialize(&Value::Object(raw.clone())).map_err(D::Error::custom)?;
        Ok(Self { value, raw })
    }
}

impl<T: JsonSchema> JsonSchema for BoundArgs<T> {
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }

    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}
