//! The README's demo: two multi-round tools on an `rmcp` Streamable HTTP
//! server, written once with the mrtr-guard runtime: `#[tool]` functions of
//! a `#[tool_router]` (`list_tools` comes from the router), forms from
//! `#[derive(FormFields)]` types, `rmcp`'s service behind the library's
//! `ScreenLayer`.
//!
//! ```text
//! cargo run -p mrtr-guard-examples --bin signup_server            # port 8080
//! cargo run -p mrtr-guard-examples --bin signup_server -- --port 9000
//! ```
//!
//! - `ShipOrder` asks one form (`trackingNumber`) and ships, or reports the
//!   shipment cancelled on a decline or cancel.
//! - `export_orders` (`{"format": "csv" | "json"}`) asks the range, then
//!   runs as a task for a client that declares the Tasks extension and asks
//!   inside it whether to include refunds (without the extension: a second
//!   round, answered in the call).
//! - `weather_report` (`{"city": ...}`) needs the user's weather service API
//!   key, a secret: it sends a connect link (URL-mode elicitation) to
//!   `http://127.0.0.1:PORT/connect`, where the user, signed in (demo:
//!   the `demo_user` cookie names them), types it on the server's own page;
//!   the key is never in the chat, and a link opened by another user stores
//!   nothing.
//! - `import_contacts` connects the user's account at a contacts provider
//!   through the same link: the browser is sent through the provider's
//!   OAuth authorization (code flow, PKCE S256) and back; the tokens stay
//!   on the server. The provider is `MRTR_GUARD_CONTACTS_ISSUER` (with
//!   `MRTR_GUARD_CONTACTS_CLIENT_ID` and `_SECRET`, its redirect URI
//!   `.../connect`); without it the tool is refused.
//! - `signup` asks the account (email, plan); for the team plan the team
//!   (size 2..500, one to three roles); then a confirmation; and summarises
//!   the account. A decline at any round ends the flow without error.
//!
//! <div class="warning">Demo-only authentication: the principal is whatever
//! follows `Bearer ` in the `Authorization` header, unverified. A real server
//! derives it from a verified credential (an OAuth token's subject).</div>
//!
//! Set `MRTR_GUARD_KEY` to a base64 master key of at least 32 bytes to keep
//! states valid across restarts and instances. Several instances behind one
//! name also share:
//!
//! - `MRTR_GUARD_AUDIENCE`: the URL clients reach them at (default
//!   `http://127.0.0.1:PORT/mcp`), which states are bound to;
//! - `MRTR_GUARD_REDIS_URL` (built with `--features redis`): a
//!   Redis replay guard, so each state opens once across all of them, a
//!   Redis task store, so that any of them serves any task, and a Redis
//!   connection store, so that a connection made through any of them is
//!   read by all;
//!   `redis://` or `rediss://`, and `MRTR_GUARD_REDIS_CA`, the path of a PEM
//!   CA certificate to trust instead of the Mozilla roots.
//!
//! Refusals and invalid answers are logged to stderr; `RUST_LOG` picks the
//! targets (`RUST_LOG=mrtr_guard=info,rmcp=warn` leaves out `rmcp`'s lines
//! for each request), INFO and above of every one by default. With
//! `MRTR_GUARD_METRICS_ADDR` (or `--metrics-addr`), say `127.0.0.1:9464`,
//! the server's counters are served as Prometheus text at
//! `http://127.0.0.1:9464/metrics` (`docs/GUIDE.md`, "Metrics").

use std::process::ExitCode;

use std::sync::Arc;

use clap::Parser;
use mrtr_guard::connect::route::ConnectRoute;
use mrtr_guard::{Flow, KeyRing, StateCodec};
use mrtr_guard_examples::signup_service::{self, Signup};
use mrtr_guard_examples::{connect_tools, exporter, serve};
use tracing_subscriber::EnvFilter;

/// The README's demo: ShipOrder, signup and export_orders (a task),
/// multi-round tools of an MCP server at http://127.0.0.1:PORT/mcp.
#[derive(Parser)]
#[command(name = "signup_server", after_help = ENVIRONMENT)]
struct Args {
    /// The port to listen on, on 127.0.0.1 [default: PORT, else 8080]
    #[arg(long)]
    port: Option<u16>,
    /// Serve the counters as Prometheus text at http://ADDR/metrics
    /// [default: MRTR_GUARD_METRICS_ADDR, else none]
    #[arg(long, value_name = "ADDR")]
    metrics_addr: Option<String>,
}

/// What `--help` says of the environment.
const ENVIRONMENT: &str = "\
Environment:
  MRTR_GUARD_KEY        the master key, base64 (default: an ephemeral key)
  MRTR_GUARD_AUDIENCE   the URL states are bound to (default: http://127.0.0.1:PORT/mcp)
  MRTR_GUARD_REDIS_URL  a Redis replay guard and task store (built with --features redis)
  MRTR_GUARD_REDIS_CA   a PEM CA certificate to trust for rediss://
  MRTR_GUARD_CONTACTS_ISSUER, _CLIENT_ID, _CLIENT_SECRET
                        import_contacts' OAuth provider (default: none)
  RUST_LOG              what is logged (default: info)";

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    serve::exit_code(run(args).await)
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let port = serve::port(args.port, 8080)?;
    if let Some(addr) = exporter::address(args.metrics_addr)? {
        exporter::start(addr).await?;
    }
    let audience = std::env::var("MRTR_GUARD_AUDIENCE")
        .unwrap_or_else(|_| format!("http://127.0.0.1:{port}/mcp"));
    let codec = StateCodec::builder(audience, KeyRing::new(serve::master_key()?));
    // One guard for both: each state, and each connect link, used once
    // across every instance.
    let guard = serve::replay_guard().await?;
    let codec = match &guard {
        Some(guard) => codec.replay_guard(Arc::clone(guard)),
        None => codec,
    };
    let codec = serve::build_codec(codec)?;
    let connector = connect_tools::connector(
        codec.audience(),
        serve::master_key()?,
        serve::connection_store().await?,
        guard,
        connect_tools::contacts_provider(),
    )?;
    let route = ConnectRoute::new(Arc::clone(&connector), signup_service::session_user);
    let store = serve::task_store().await?;
    let service = Signup::service_connected(Flow::new(codec), connector, |builder| match store {
        Some(store) => builder.task_store(store),
        None => builder,
    })?;
    serve::serve_app(port, serve::router_connected(service, route)).await
}
