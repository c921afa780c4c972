//! MCP 2026-07-28 wire types for Multi Round-Trip Requests, and the HTTP
//! header checks of the Streamable HTTP transport.
//!
//! Also the request methods a `requestState` can belong to ([`Method`]) and
//! the JSON-RPC error every failure becomes ([`RpcError`]), both re-exported
//! at the crate root. `wire` imports nothing of the crate but
//! [`json`](crate::json): the layers above add their conversions to
//! [`RpcError`] and its typed accessors ([`RpcError::state_error`],
//! [`RpcError::misuse`]) in their own files.
//!
//! Every type here is plain serde over the exact wire names of the
//! specification. Unions the schema leaves untagged (an `inputResponses`
//! value, the mode of an elicitation) are told apart by which keys are
//! present, never by trying serde variants in order.

// The files: `params` (a call's params, retry fields and `_meta`),
// `capabilities` (what the client declares), `request` (`inputRequests`),
// `response` (`inputResponses`), `result` (`resultType`,
// `InputRequiredResult`), `method` (`Method`), `error` (`RpcError`),
// `protocol` (the revision and its `_meta` keys), `http` (the Streamable
// HTTP header checks).
mod capabilities;
mod error;
mod http;
mod method;
mod params;
mod protocol;
mod request;
mod response;
mod result;

pub use capabilities::ClientCapabilities;
pub use error::RpcError;
pub use http::{HeaderCheck, check_headers, decode_header_value, screen_body};
pub use method::Method;
#[cfg(any(feature = "rmcp", feature = "tower"))]
pub(crate) use params::retry_fields;
pub use params::{CallParams, RequestMeta};
pub use protocol::{
    META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, PROTOCOL_VERSION,
};
#[cfg(feature = "tower")]
pub(crate) use request::OrderedSchema;
#[cfg(feature = "tower")]
pub(crate) use request::PROPERTY_ORDER_META;
pub use request::{ElicitRequest, InputRequest, InputRequests, RootsRequest, SamplingRequest};
pub use response::{
    CreateMessageResult, ElicitAction, ElicitResult, InputResponse, InputResponses,
    ListRootsResult, Root,
};
pub use result::{InputRequiredResult, ResultType};
