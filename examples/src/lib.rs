//! mrtr-guard's demo servers, as a package of their own (never published):
//! the README's signup demo, the conformance suite's fixture and the codec
//! demo are its binaries (`src/bin/`); what they share, and what the tests in
//! `tests/demo/` drive in process, is this library.
//!
//! ```text
//! cargo run -p mrtr-guard-examples --bin signup_server            # port 8080
//! cargo run -p mrtr-guard-examples --bin conformance_server -- --port 3917
//! cargo run -p mrtr-guard-examples --bin codec_demo
//! ```
//!
//! Each binary's `--help` says what it takes, flags and environment; it
//! refuses any other argument (exit 2).

pub mod conformance_forms;
pub mod connect_tools;
pub mod export_tool;
pub mod exporter;
pub mod serve;
pub mod signup_service;
pub mod signup_tools;
