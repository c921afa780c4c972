//! What both example servers share: port and key from the environment, a
//! strict-body layer in front of `rmcp`, stateless Streamable HTTP on
//! 127.0.0.1.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mrtr_guard::{Limits, MasterKey, screen_body};
use rmcp::ServerHandler;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;

/// The largest request body accepted, in bytes.
const MAX_BODY: usize = 1024 * 1024;

/// The port from `--port N`, else `PORT`, else `default`.
pub(crate) fn port(default: u16) -> Result<u16, Box<dyn std::error::Error>> {
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
pub(crate) fn master_key() -> Result<MasterKey, Box<dyn std::error::Error>> {
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

/// Refuses bodies `rmcp` would misread: duplicate keys (serde_json keeps the
/// last), trailing data, lone surrogates, excessive depth or size.
async fn strict_body(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
        return (
            axum::http::StatusCode::PAYLOAD_TOO_LARGE,
            "request body too large",
        )
            .into_response();
    };
    if parts.method == axum::http::Method::POST
        && let Err(error) = screen_body(&bytes, &Limits::default())
    {
        let status = axum::http::StatusCode::from_u16(error.http_status())
            .unwrap_or(axum::http::StatusCode::BAD_REQUEST);
        let body = json!({"jsonrpc": "2.0", "id": null, "error": error.to_json()});
        return (
            status,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// `handler` at `/mcp`, stateless Streamable HTTP behind the strict-body
/// layer: the app `serve` runs (tests serve it on their own listener).
pub(crate) fn router<H>(handler: H) -> axum::Router
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(strict_body))
}

/// Serves `handler` at `http://127.0.0.1:{port}/mcp`, statelessly, until
/// Ctrl-C.
pub(crate) async fn serve<H>(port: u16, handler: H) -> Result<(), Box<dyn std::error::Error>>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let app = router(handler);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
