//! Feature `rmcp`: the runtime inside a server handler of `rmcp`, the official Rust MCP SDK.
//!
//! `rmcp` 3.11 speaks MCP 2026-07-28 natively: it checks the standard HTTP
//! headers and `_meta`, serves stateless Streamable HTTP, and lets a handler
//! return `input_required`. This module supplies the rest:
//!
//! - [`McpServer`] (feature `server`): the one way to mount it all, `rmcp`'s
//!   Streamable HTTP service behind `ScreenLayer` with every check in place;
//!   it refuses a configuration that cannot work;
//! - [`RmcpFlow::tool_round`] (and the prompt and resource twins) turns a
//!   request and its [`RequestContext`](::rmcp::service::RequestContext)
//!   into a [`Round`](crate::runtime::Round): it reads the per-request
//!   capabilities from `_meta`, the retry fields, and the principal from
//!   the request's HTTP parts through your function. It is `async`: the
//!   replay guard's round trip is awaited (the memory and Redis guards),
//!   or, under a guard that can only block, run on tokio's blocking pool
//!   ([`Flow::open_async`](crate::runtime::Flow::open_async)), so a slow
//!   guard store holds up only the calls that carry a state, never a
//!   runtime worker;
//! - for `#[tool]` functions of a `#[tool_router]`: [`ToolCall`], an `rmcp`
//!   extractor, opened into a round by [`RmcpFlow::round`]; behind
//!   `McpServer` the state is bound to the raw arguments whatever the
//!   tool's other extractors (plain `Parameters<T>`), in any order. Mounted
//!   without `McpServer` or `ScreenLayer`, a tool takes
//!   `Parameters<BoundArgs<T>>` ([`BoundArgs`]: `T` and the raw arguments)
//!   and opens with [`RmcpFlow::round_with`];
//! - [`tool_response`] (and twins) turns the handler's result into `rmcp`'s
//!   complete or input-required response, a form's fields in their declared
//!   order ([`input_required`] says how that survives `rmcp`);
//! - [`error_data`] maps an [`RpcError`](crate::RpcError) onto
//!   [`ErrorData`](::rmcp::ErrorData), code, message and data unchanged;
//! - [`custom_request_error`] fixes an `rmcp` gap: a `tools/call` whose
//!   params do not fit `rmcp`'s types falls through to
//!   `on_custom_request`, whose default answers `-32601` with the method
//!   name the client sent. [`McpHandler`], and so `McpServer`, already
//!   answers with it; a handler served without them returns it from its
//!   `on_custom_request`;
//! - [`McpHandler`] wraps your server handler and routes every request to
//!   the path that serves it: `2025-11-25` session clients, which expect
//!   server-initiated `elicitation/create`, are served by the same tools (it
//!   sends each round's requests over the session and runs the handler
//!   again in process with the answers), and under `McpServer` tool calls
//!   and `tasks/*` go through the task host;
//! - what `rmcp`'s parse cannot see: `serde_json` keeps the last of two
//!   equal keys, and `rmcp`'s `Option` fields read `"requestState": null`
//!   or `"inputResponses": null` as absent, which would start the flow over.
//!   Put `mrtr_guard::tower::ScreenLayer` (feature `tower`) in front of
//!   `rmcp`'s `StreamableHttpService`: it refuses such bodies before `rmcp`
//!   parses them (the examples do).
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use mrtr_guard::rmcp::{RmcpFlow, tool_response};
//! use mrtr_guard::{Field, Flow, Form, KeyRing, MasterKey, StateCodec};
//! use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock};
//! use rmcp::service::{RequestContext, RoleServer};
//! use rmcp::ErrorData;
//!
//! async fn ship(
//!     flow: &RmcpFlow,
//!     form: &Form,
//!     params: CallToolRequestParams,
//!     cx: RequestContext<RoleServer>,
//! ) -> Result<CallToolResponse, ErrorData> {
//!     let mut round = flow.tool_round(&params, &cx).await?;
//!     let result = round.require("ship", form).and_then(|answers| {
//!         let number = answers.str("trackingNumber")?;
//!         Ok(CallToolResult::success(vec![ContentBlock::text(format!("Shipped as {number}."))]))
//!     });
//!     tool_response(round, result)
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let key = MasterKey::from_bytes(&[7; 32])?;
//! let codec = StateCodec::builder("http://127.0.0.1:8080/mcp", KeyRing::new(key)).build()?;
//! let flow = RmcpFlow::new(Flow::new(codec), |parts| {
//!     // Your authentication: here, whatever an auth layer put into the request.
//!     parts.extensions.get::<String>().cloned()
//! });
//! # let _ = (flow, ship);
//! # Ok(())
//! # }
//! ```

// The files: `flow` (opening rounds), `extract` (the `#[tool]`
// extractors), `response` (ending rounds), `error` (errors onto `rmcp`'s),
// `handler/` (`McpHandler`, which routes every request to its path),
// `legacy/` (calls from sessions of the revisions 2025-11-25 and 2025-06-18,
// run round after round), `task/` (the task host: tasks and their methods),
// `session/` (sessions bound to their principal, SSE priming events kept
// from clients that predate them), `server` (`McpServer`, which mounts it
// all).
mod error;
mod extract;
mod flow;
mod handler;
mod legacy;
mod response;
#[cfg(feature = "server")]
mod server;
#[cfg(feature = "server")]
mod session;
mod task;

pub use crate::handoff::PrincipalFn;
pub use error::{custom_request_error, error_data};
pub use extract::{BoundArgs, ToolCall};
pub use flow::RmcpFlow;
pub use handler::McpHandler;
pub use legacy::{DEFAULT_ANSWER_TIMEOUT, LEGACY_MAX_ROUNDS};
pub use response::{
    ToolResponse, input_required, prompt_response, resource_response, tool_response,
};
#[cfg(feature = "server")]
pub use server::{
    DEFAULT_CALLS_PER_PRINCIPAL, DEFAULT_CALLS_TOTAL, DEFAULT_SESSION_IDLE,
    DEFAULT_SESSIONS_PER_PRINCIPAL, DEFAULT_SESSIONS_TOTAL, McpServer, McpServerBuilder,
    McpService, ServerConfigError,
};
#[cfg(feature = "server")]
pub use session::{PrimingFilter, Sessions, Watched};
#[cfg(feature = "server")]
pub use task::{
    DEFAULT_TASK_BYTES_PER_PRINCIPAL, DEFAULT_TASK_BYTES_TOTAL, DEFAULT_TASK_CALL_BYTES,
    DEFAULT_TASK_LEASE, DEFAULT_TASK_POLL_INTERVAL, DEFAULT_TASK_QUESTION_TIMEOUT,
    DEFAULT_TASK_TTL, DEFAULT_TASKS_PER_PRINCIPAL, DEFAULT_TASKS_TOTAL, MAX_REMEMBERED_ANSWER,
    TaskAskError, TaskCreated, TaskInbox, TaskPolls, TaskSupport,
};
