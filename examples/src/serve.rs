//! What both example servers share: port and key from the environment, and
//! Streamable HTTP on 127.0.0.1 behind the library's `ScreenLayer`:
//! stateless for `2026-07-28` clients, sessions for `2025-11-25` ones.

use std::sync::Arc;

use mrtr_guard::MasterKey;
use mrtr_guard::rmcp::Legacy;
use mrtr_guard::tower::ScreenLayer;
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tower_layer::Layer;

/// The port from `--port N`, else `PORT`, else `default`.
pub fn port(default: u16) -> Result<u16, Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--port" {
            let value = args.next().ok_or("--port needs a value")?;
            return Ok(value.parse()?);
        }
        if let Some(value) = arg.strip_prefix("--port=") {
            return Ok(value.parse()?);
        }
    }
    match std::env::var("PORT") {
        Ok(value) => Ok(value.parse()?),
        Err(_) => Ok(default),
    }
}

/// The master key from `MRTR_GUARD_KEY` (base64), else an ephemeral one.
pub fn master_key() -> Result<MasterKey, Box<dyn std::error::Error>> {
    match std::env::var("MRTR_GUARD_KEY") {
        Ok(text) => Ok(MasterKey::from_base64(text.trim())?),
        Err(_) => {
            eprintln!(
                "warning: MRTR_GUARD_KEY is not set; using an ephemeral key \
                 (states die with this process and do not work across instances)"
            );
            Ok(MasterKey::generate()?)
        }
    }
}

/// `handler` as Streamable HTTP answering in JSON, the service both
/// [`router`]s mount. One endpoint for both revisions: rmcp serves a request
/// that names `2026-07-28` in its `_meta` statelessly, and gives a
/// `2025-11-25` client a session (in this process's memory), where [`Legacy`]
/// runs the same tools' rounds by sending the client its input requests.
pub fn mcp_service<H>(handler: H) -> StreamableHttpService<Legacy<H>, LocalSessionManager>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_json_response(true);
    let handler = Legacy::new(handler);
    StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}

/// `handler` at `/mcp` behind the library's `ScreenLayer`: the app `serve`
/// runs (tests serve it on their own listener).
pub fn router<H>(handler: H) -> axum::Router
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    // Bodies rmcp would misread (duplicate keys, lone surrogates, null retry
    // fields, over 1 MiB or 32 levels deep) are refused before it parses them.
    axum::Router::new().nest_service("/mcp", ScreenLayer::new().layer(mcp_service(handler)))
}

/// [`router`] without `ScreenLayer`: only for measuring what the layer
/// costs (`scripts/loadbench`); a server keeps the layer.
pub fn router_unscreened<H>(handler: H) -> axum::Router
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    axum::Router::new().nest_service("/mcp", mcp_service(handler))
}

/// Serves `handler` at `http://127.0.0.1:{port}/mcp` until Ctrl-C.
pub async fn serve<H>(port: u16, handler: H) -> Result<(), Box<dyn std::error::Error>>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    serve_app(port, router(handler)).await
}

/// Serves `app` on `127.0.0.1:{port}` until Ctrl-C.
pub async fn serve_app(port: u16, app: axum::Router) -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
