//! [`McpHandler`]: the handler every request of an
//! [`McpServer`](crate::rmcp::McpServer) goes through, routing each to the
//! path that serves it (the legacy rounds, the task host, the wrapped
//! handler).
//!
//! The files: `wrapper` (the type and its settings), `routes` (its
//! `ServerHandler`: which path each method takes).

mod routes;
mod wrapper;

pub use wrapper::McpHandler;
