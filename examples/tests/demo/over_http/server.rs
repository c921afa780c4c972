//! The server side: a service `McpServer` built, served by the demo's
//! router (`mrtr_guard_examples::serve::router`) on a free loopback port.

#![allow(clippy::unwrap_used, reason = "test code: a panic is a failing test")]

use std::net::SocketAddr;

use mrtr_guard::rmcp::McpService;
use mrtr_guard_examples::serve;
use tokio::net::TcpListener;

/// Serves `service` at `/mcp` on a free loopback port of the current
/// runtime, until the runtime ends.
pub(super) async fn on_loopback<H>(service: McpService<H>) -> SocketAddr
where
    H: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = serve::router(service);
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}
