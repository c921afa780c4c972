//! A whole MCP server with one multi-round tool: `MRTR_GUARD_KEY` (base64,
//! `mrtr-guard keygen`), `MCP_TOKEN` (the bearer token), `PORT` (8080).

use std::process::ExitCode;
use std::sync::Arc;

use axum::http::{header, request::Parts};
use mrtr_guard::rmcp::{McpServer, RmcpFlow, ToolCall, ToolResponse, tool_response};
use mrtr_guard::{Flow, Form, FormFields, KeyRing, MasterKey, MemoryReplayGuard, StateCodec};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;

#[derive(Deserialize, FormFields)]
struct Shipping {
    #[form(min_length = 1, max_length = 64)]
    tracking_number: String,
}

#[derive(Clone)]
struct Shop {
    flow: RmcpFlow,
    ship: Form,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Shop {
    /// Ship an order: asks for the tracking number.
    #[tool(name = "ShipOrder")]
    async fn ship_order(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let answers = round.require("ship", &self.ship);
        let shipped = answers.and_then(|a| Ok(a.bind::<Shipping>()?.tracking_number));
        tool_response(round, shipped.map(|number| format!("Shipped as {number}.")))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Shop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// A stand-in for your OAuth check (verify a real token, and compare
/// secrets in constant time): the principal is the verified subject.
fn authenticate(parts: &Parts, token: &str) -> Option<String> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    (value.strip_prefix("Bearer ")? == token).then(|| "user-1".to_owned())
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let env = |name: &str| std::env::var(name).map_err(|_| format!("set {name}"));
    let port: u16 = env("PORT").unwrap_or_else(|_| "8080".into()).parse()?;
    let key = MasterKey::from_base64(&env("MRTR_GUARD_KEY")?)?;
    let token = env("MCP_TOKEN")?;
    // The URL clients reach the server at: states are bound to it.
    let audience = format!("http://127.0.0.1:{port}/mcp");
    let codec = StateCodec::builder(audience, KeyRing::new(key))
        .replay_guard(Arc::new(MemoryReplayGuard::new(100_000))) // each state opens once
        .build()?;
    let ship = Form::of::<Shipping>("Where should we ship the order?").build()?;
    let service = McpServer::builder(Flow::new(codec))
        .authenticate(move |parts| authenticate(parts, &token))
        .build(|flow| Shop {
            flow,
            ship,
            tool_router: Shop::tool_router(),
        })?;
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    Ok(axum::serve(listener, app).await?)
}

#[tokio::main]
async fn main() -> ExitCode {
    // `--help` says what to set; any argument is refused (exit 2).
    clap::Command::new("minimal_server")
        .about("Serves ShipOrder at /mcp. Set MRTR_GUARD_KEY, MCP_TOKEN and PORT (8080).")
        .get_matches();
    // One line per refused state, replay or invalid answer, with its reason;
    // RUST_LOG picks the targets (INFO and above of every one by default).
    let filter = tracing_subscriber::EnvFilter::try_from_default_env();
    tracing_subscriber::fmt()
        .with_env_filter(filter.unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    if let Err(error) = run().await {
        eprintln!("error: {error}"); // Display, not Debug
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
