//! The demo server (`examples/src/bin/signup_server.rs`'s handler and
//! router) over real HTTP on loopback, driven by a few lines of HTTP/1.1
//! (`client`): the tools the demo lists (`endpoint`); what a client sees when its answers keep failing validation
//! (`invalid_answers`); `2025-11-25` sessions bound to the principal that
//! opened them, and capped (`sessions`); SSE priming events only for the
//! revisions that know them (`priming`); the binary refusing a bad key or
//! audience with the message (`start_up`); and, with feature `redis`, the
//! Redis replay guard under a stalled Redis and shared by two servers
//! (`redis`); the README's whole server, run as its binary
//! (`minimal`); and the demo's opt-in Prometheus exporter (`metrics`).
//! Every demo binary's command line: `--help` and usage errors (`usage`).
//! `connect` drives `weather_report`'s connect link through the browser's
//! side of the connect route, and every attack on it; `connect_oauth`
//! drives `import_contacts` through a real authorization server.
//! `binary` runs a demo binary as a process, `server` serves the demo's
//! router in process on a free port; `tasks/` drives `export_orders` as a
//! task; `authentication` counts the principal function's runs: once a
//! request, on every path. `spec_schema` validates every message the demo
//! answers a `2026-07-28` client with against the specification's schema.

mod authentication;
mod binary;
mod client;
mod connect;
mod connect_oauth;
mod endpoint;
mod invalid_answers;
mod metrics;
mod minimal;
mod priming;
mod redis;
mod server;
mod sessions;
mod spec_schema;
mod start_up;
mod tasks;
mod usage;
