//! What the example servers share: port, key and replay guard from the
//! environment, serving on 127.0.0.1 the service the library's `McpServer`
//! built (stateless for `2026-07-28` clients, sessions for `2025-11-25`
//! ones), and ending `main` with the error's message.

use std::process::ExitCode;

use mrtr_guard::connect::route::ConnectRoute;
use mrtr_guard::rmcp::McpService;
use mrtr_guard::state::{CodecBuilder, ConfigError};
use mrtr_guard::{MasterKey, StateCodec};
use rmcp::ServerHandler;

/// Ends `main` with `result`: an error is printed as `error: ` and its
/// message (`Display`; a `main` returning the `Result` would print `Debug`,
/// such as `HexText`), and the process exits 1.
pub fn exit_code(result: Result<(), Box<dyn std::error::Error>>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The port `given` (a binary's `--port`), else `PORT`, else `default`.
///
/// # Errors
///
/// When `PORT` is not a port number.
pub fn port(given: Option<u16>, default: u16) -> Result<u16, Box<dyn std::error::Error>> {
    if let Some(port) = given {
        return Ok(port);
    }
    match std::env::var("PORT") {
        Ok(value) => Ok(value.parse()?),
        Err(_) => Ok(default),
    }
}

/// The master key from `MRTR_GUARD_KEY` (base64), else an ephemeral one.
pub fn master_key() -> Result<MasterKey, Box<dyn std::error::Error>> {
    match std::env::var("MRTR_GUARD_KEY") {
        Ok(text) => MasterKey::from_base64(text.trim())
            .map_err(|error| format!("MRTR_GUARD_KEY: {error}").into()),
        Err(_) => {
            eprintln!(
                "warning: MRTR_GUARD_KEY is not set; using an ephemeral key \
                 (states die with this process and do not work across instances)"
            );
            Ok(MasterKey::generate()?)
        }
    }
}

/// Builds `codec`; an audience it refuses is named by its variable,
/// `MRTR_GUARD_AUDIENCE`.
pub fn build_codec(codec: CodecBuilder) -> Result<StateCodec, Box<dyn std::error::Error>> {
    codec.build().map_err(|error| match error {
        ConfigError::EmptyAudience | ConfigError::InvalidAudience => {
            format!("MRTR_GUARD_AUDIENCE: {error}").into()
        }
        error => error.into(),
    })
}

/// Adds the Redis replay guard `MRTR_GUARD_REDIS_URL` names, if any
/// ([`replay_guard`]).
///
/// # Errors
///
/// As [`replay_guard`].
pub async fn with_replay_guard(
    codec: CodecBuilder,
) -> Result<CodecBuilder, Box<dyn std::error::Error>> {
    Ok(match replay_guard().await? {
        Some(guard) => codec.replay_guard(guard),
        None => codec,
    })
}

/// The Redis replay guard `MRTR_GUARD_REDIS_URL` names, if any
/// (`redis://` or `rediss://`; `MRTR_GUARD_REDIS_CA`, the path of a PEM CA
/// certificate to trust instead of the Mozilla roots), connected and
/// checked at start-up: a Redis that may evict stops the server here, with
/// the setting to change. The codec and the connector share it.
///
/// # Errors
///
/// A Redis that cannot be reached or may evict, with what to change.
#[cfg(feature = "redis")]
pub async fn replay_guard()
-> Result<Option<std::sync::Arc<dyn mrtr_guard::ReplayGuard>>, Box<dyn std::error::Error>> {
    let Ok(url) = std::env::var("MRTR_GUARD_REDIS_URL") else {
        return Ok(None);
    };
    let mut guard = mrtr_guard::RedisReplayGuard::builder(url);
    if let Ok(path) = std::env::var("MRTR_GUARD_REDIS_CA") {
        guard = guard.ca_certificate_pem(std::fs::read(path)?);
    }
    // The message (what to set), not the variant, is what the operator reads.
    let guard = guard.connect().await.map_err(|error| error.to_string())?;
    Ok(Some(std::sync::Arc::new(guard)))
}

/// Without feature `redis`: `MRTR_GUARD_REDIS_URL` is refused, not ignored.
/// The task store every instance shares, from `MRTR_GUARD_REDIS_URL` (and
/// `MRTR_GUARD_REDIS_CA`), as the replay guard: `None` when it is not set
/// (each instance then keeps its tasks in its own memory).
///
/// # Errors
///
/// A Redis that cannot be reached or may evict, with what to change.
#[cfg(feature = "redis")]
pub async fn task_store()
-> Result<Option<std::sync::Arc<dyn mrtr_guard::task::TaskStore>>, Box<dyn std::error::Error>> {
    let Ok(url) = std::env::var("MRTR_GUARD_REDIS_URL") else {
        return Ok(None);
    };
    let mut store = mrtr_guard::redis::RedisTaskStore::builder(url);
    if let Ok(path) = std::env::var("MRTR_GUARD_REDIS_CA") {
        store = store.ca_certificate_pem(std::fs::read(path)?);
    }
    let store = store.connect().await.map_err(|error| error.to_string())?;
    Ok(Some(std::sync::Arc::new(store)))
}

/// The connection store every instance shares, from `MRTR_GUARD_REDIS_URL`
/// (and `MRTR_GUARD_REDIS_CA`), as the task store: `None` when it is not
/// set (each instance then keeps its connections in its own memory).
///
/// # Errors
///
/// A Redis that cannot be reached or may evict, with what to change.
#[cfg(feature = "redis")]
pub async fn connection_store() -> Result<
    Option<std::sync::Arc<dyn mrtr_guard::connect::ConnectionStore>>,
    Box<dyn std::error::Error>,
> {
    let Ok(url) = std::env::var("MRTR_GUARD_REDIS_URL") else {
        return Ok(None);
    };
    let mut store = mrtr_guard::redis::RedisConnectionStore::builder(url);
    if let Ok(path) = std::env::var("MRTR_GUARD_REDIS_CA") {
        store = store.ca_certificate_pem(std::fs::read(path)?);
    }
    let store = store.connect().await.map_err(|error| error.to_string())?;
    Ok(Some(std::sync::Arc::new(store)))
}

/// Without feature `redis`: no shared store.
///
/// # Errors
///
/// Never; `with_replay_guard` refuses the Redis URL first.
#[cfg(not(feature = "redis"))]
pub async fn connection_store() -> Result<
    Option<std::sync::Arc<dyn mrtr_guard::connect::ConnectionStore>>,
    Box<dyn std::error::Error>,
> {
    Ok(None)
}

/// Without feature `redis`: no shared store.
///
/// # Errors
///
/// Never; `with_replay_guard` refuses the Redis URL first.
#[cfg(not(feature = "redis"))]
pub async fn task_store()
-> Result<Option<std::sync::Arc<dyn mrtr_guard::task::TaskStore>>, Box<dyn std::error::Error>> {
    Ok(None)
}

/// Without feature `redis`: no guard, and `MRTR_GUARD_REDIS_URL` refused,
/// not ignored.
///
/// # Errors
///
/// When `MRTR_GUARD_REDIS_URL` is set.
#[cfg(not(feature = "redis"))]
pub async fn replay_guard()
-> Result<Option<std::sync::Arc<dyn mrtr_guard::ReplayGuard>>, Box<dyn std::error::Error>> {
    match std::env::var_os("MRTR_GUARD_REDIS_URL") {
        Some(_) => Err("MRTR_GUARD_REDIS_URL needs --features redis".into()),
        None => Ok(None),
    }
}

/// `service` at exactly `/mcp` (any other path, `/mcp/...` included, is
/// 404): the app `serve` runs (tests serve it on their own listener).
pub fn router<H>(service: McpService<H>) -> axum::Router
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    axum::Router::new().route_service("/mcp", service)
}

/// [`router`], and the connect route `route` at `/connect`, beside it.
pub fn router_connected<H>(service: McpService<H>, route: ConnectRoute) -> axum::Router
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    router(service).route_service("/connect", route)
}

/// Serves `service` at `http://127.0.0.1:{port}/mcp` until Ctrl-C.
pub async fn serve<H>(port: u16, service: McpService<H>) -> Result<(), Box<dyn std::error::Error>>
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    serve_app(port, router(service)).await
}

/// Serves `app` on `127.0.0.1:{port}` until Ctrl-C (`serve` for an
/// `McpService`; `loadbench_server` serves an unscreened app through it too).
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
