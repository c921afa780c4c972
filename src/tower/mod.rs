//! Feature `tower`: a tower [`Layer`] that screens Streamable HTTP request
//! bodies before an MCP SDK parses them.
//!
//! `rmcp` (like most JSON-RPC stacks) parses a body with `serde_json`, which
//! keeps the last of two equal keys, accepts lone surrogates in `\u` escapes,
//! and reads `null` where an `Option` is expected as "absent". Put
//! [`ScreenLayer`] in front of its `StreamableHttpService` and every `POST`
//! body is, before the service sees it:
//!
//! - read up to the byte cap ([`Limits::max_bytes`], 1 MiB by default), and
//!   refused beyond it with HTTP 413 and [`RpcError::body_too_large`]
//!   (`-32600`), without reading the rest when `Content-Length` already says
//!   so;
//! - checked strictly, as [`screen_body`] parses (duplicate keys, lone
//!   surrogates, trailing data, nesting deeper than [`Limits::max_depth`],
//!   invalid UTF-8, and the object keys `serde_json` reserves, under which
//!   its own `Value` would read an object as the JSON text of a string, are
//!   refused with HTTP 400 and [`RpcError::parse_error`], `-32700`), in one
//!   pass that builds no tree ([`check_strict`]): only the members the
//!   checks below read are decoded. What passes reads the same through the
//!   screen's tree and through `serde_json::Value` (`rmcp`'s, a handler's);
//! - for `tools/call`, `prompts/get` and `resources/read`, checked for
//!   retry fields `rmcp`'s types would misread: a `requestState` that is
//!   not a string (`null` included) gets
//!   [`RpcError::invalid_request_state`], a malformed `inputResponses`
//!   (`null` included) [`RpcError::invalid_input_responses`] (`-32602`,
//!   HTTP 200, as the handler would answer). Without this, `rmcp` reads
//!   `"requestState": null` as no state and starts the flow over;
//! - for a retry of those (a `requestState` or `inputResponses`), checked
//!   against its headers, always: `MCP-Protocol-Version` and `_meta` must
//!   both say 2026-07-28 and `Mcp-Method` / `Mcp-Name` must match the body
//!   ([`HeaderCheck::default`](crate::wire::HeaderCheck::default)), so that a gateway that routes or audits by
//!   the headers sees the round with the side effect;
//! - optionally ([`ScreenLayer::with_header_check`]), every request checked against its
//!   `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers
//!   ([`HeaderCheck`]; HTTP 400, `-32020`). `rmcp` makes the same checks
//!   itself, so its servers leave this off.
//!
//! A body that passes goes on byte for byte as it came. Refusals are
//! `application/json` JSON-RPC error responses, with the request's `id`
//! when the body parsed and has one (a string or an integer), and with no
//! `id` member when it did not: the 2026-07-28 schema allows no `null` id.
//! Requests other than `POST` (the `GET` and `DELETE` of Streamable HTTP)
//! pass through untouched, body unread. Every `POST` is screened whatever
//! its `Content-Type`: the service behind decides on the type, the layer
//! makes sure no body it might parse escapes the screen.
//!
//! ```
//! use mrtr_guard::json::Limits;
//! use mrtr_guard::tower::ScreenLayer;
//! use tower_layer::Layer;
//!
//! # #[derive(Clone)] struct Mcp;
//! // let mcp = StreamableHttpService::new(...);
//! # let mcp = Mcp;
//! let screened = ScreenLayer::new()
//!     .with_limits(Limits::default().with_max_bytes(256 * 1024))
//!     .layer(mcp);
//! // axum::Router::new().route_service("/mcp", screened)
//! # let _ = screened;
//! ```
//!
//! [`Layer`]: tower_layer::Layer
//! [`Limits::max_bytes`]: crate::json::Limits::max_bytes
//! [`Limits::max_depth`]: crate::json::Limits::max_depth
//! [`RpcError::body_too_large`]: crate::wire::RpcError::body_too_large
//! [`RpcError::parse_error`]: crate::wire::RpcError::parse_error
//! [`RpcError::invalid_request_state`]: crate::wire::RpcError::invalid_request_state
//! [`RpcError::invalid_input_responses`]: crate::wire::RpcError::invalid_input_responses
//! [`screen_body`]: crate::wire::screen_body
//! [`check_strict`]: crate::json::check_strict
//! [`HeaderCheck`]: crate::wire::HeaderCheck

// The files: `layer` (the layer and its settings), `service` (the service
// it makes: request screening), `members` (the members of a body the screen
// reads, found without a tree), and `order` (the response rewrite that puts
// forms' fields back in declared order).
pub(crate) mod layer;
mod members;
pub(crate) mod order;
pub(crate) mod service;

pub use layer::ScreenLayer;
#[cfg(fuzzing)]
#[doc(hidden)]
pub use members::{ScreenedMember, screened_members};
pub use service::{Screen, ScreenFuture, ScreenedBody};
