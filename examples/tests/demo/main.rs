//! The tests that drive the demo's code (`mrtr-guard-examples`): its tools
//! round by round in process (`runtime_flows`), the `rmcp` adapter in
//! process with the README's `rmcp` snippets (`rmcp_adapter`), its server
//! over real HTTP on loopback (`over_http`; with Redis: two servers over one
//! replay guard), and the forms it builds against golden files
//! (`form_golden`). One crate, one module per concern; the fixtures shared
//! with the root package's tests are `mrtr-guard-test-support`
//! (tests/support/).

mod form_golden;
mod over_http;
mod rmcp_adapter;
mod runtime_flows;
