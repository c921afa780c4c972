//! The tests that drive the demo's code (`mrtr-guard-examples`): its tools
//! round by round in process, its `rmcp` server in process and over real HTTP
//! on loopback (with Redis: two servers over one replay guard), the forms it
//! builds against golden files, and the README's `rmcp` snippets. One crate,
//! one module per concern; the fixtures shared with the root package's tests
//! are `mrtr-guard-test-support` (tests/support/).

mod demo_http;
mod form_golden;
mod http_client;
mod redis_http;
mod rmcp_adapter;
mod runtime_flows;
