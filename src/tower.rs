//! Feature `tower`: a tower [`Layer`] that screens Streamable HTTP request
//! bodies before an MCP SDK parses them.
//!
//! `rmcp` (like most JSON-RPC stacks) parses a body with `serde_json`, which
//! keeps the last of two equal keys, accepts lone surrogates in `\u` escapes,
//! and reads `null` where an `Option` is expected as "absent". Put
//! [`ScreenLayer`] in front of its `StreamableHttpService` and every `POST`
//! body is, before the service sees it:
//!
//! - read up to the byte cap ([`Limits::max_bytes`], 1 MiB by default), and
//!   refused beyond it with HTTP 413 and [`RpcError::body_too_large`]
//!   (`-32600`), without reading the rest when `Content-Length` already says
//!   so;
//! - parsed strictly ([`screen_body`]): duplicate keys, lone surrogates,
//!   trailing data, nesting deeper than [`Limits::max_depth`], invalid UTF-8
//!   are refused with HTTP 400 and [`RpcError::parse_error`] (`-32700`);
//! - for `tools/call`, `prompts/get` and `resources/read`, checked for
//!   retry fields `rmcp`'s types would misread: a `requestState` that is
//!   not a string (`null` included) gets
//!   [`RpcError::invalid_request_state`], a malformed `inputResponses`
//!   (`null` included) [`RpcError::invalid_input_responses`] (`-32602`,
//!   HTTP 200, as the handler would answer). Without this, `rmcp` reads
//!   `"requestState": null` as no state and starts the flow over;
//! - optionally ([`ScreenLayer::with_header_check`]) checked against its
//!   `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers
//!   ([`HeaderCheck`]; HTTP 400, `-32020`). `rmcp` makes the same checks
//!   itself, so its servers leave this off.
//!
//! A body that passes goes on byte for byte as it came. Refusals are
//! `application/json` JSON-RPC error responses, with the request's `id`
//! when the body parsed and `null` when it did not. Requests other than
//! `POST` (the `GET` and `DELETE` of Streamable HTTP) pass through untouched,
//! body unread. Every `POST` is screened whatever its `Content-Type`: the
//! service behind decides on the type, the layer makes sure no body it
//! might parse escapes the screen.
//!
//! ```
//! use mrtr_guard::json::Limits;
//! use mrtr_guard::tower::ScreenLayer;
//! use tower_layer::Layer;
//!
//! # #[derive(Clone)] struct Mcp;
//! // let mcp = StreamableHttpService::new(...);
//! # let mcp = Mcp;
//! let screened = ScreenLayer::new()
//!     .with_limits(Limits::default().with_max_bytes(256 * 1024))
//!     .layer(mcp);
//! // axum::Router::new().nest_service("/mcp", screened)
//! # let _ = screened;
//! ```

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use http::{HeaderMap, HeaderValue, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Either, Full, LengthLimitError, Limited};
use serde_json::{Map, Value, json};
use tower_layer::Layer;
use tower_service::Service;

use crate::json::Limits;
use crate::wire::Method;
use crate::wire::{HeaderCheck, RpcError, apply_property_order, retry_fields, screen_body};

/// The body a screened service receives, and the body of its responses:
/// the buffered, screened bytes or a refusal ([`Either::Left`]), or the
/// untouched body of a request that is not screened or the inner service's
/// response ([`Either::Right`]).
pub type ScreenedBody<B> = Either<Full<Bytes>, B>;

/// The future of a [`Screen`] call.
pub type ScreenFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

/// A tower [`Layer`] that screens request bodies (see the [module](self)).
///
/// Cheap to clone; the settings are shared by the services it makes.
#[derive(Debug, Clone, Default)]
pub struct ScreenLayer {
    config: Arc<Config>,
}

#[derive(Debug, Clone, Default)]
struct Config {
    limits: Limits,
    headers: Option<HeaderCheck>,
}

impl ScreenLayer {
    /// Default [`Limits`] (1 MiB, depth 32), no header check.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the byte cap and the depth cap.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        Arc::make_mut(&mut self.config).limits = limits;
        self
    }

    /// Also checks the standard MCP headers against the body (for a service
    /// that does not; `rmcp` does).
    #[must_use]
    pub fn with_header_check(mut self, check: HeaderCheck) -> Self {
        Arc::make_mut(&mut self.config).headers = Some(check);
        self
    }
}

impl<S> Layer<S> for ScreenLayer {
    type Service = Screen<S>;

    fn layer(&self, inner: S) -> Screen<S> {
        Screen {
            inner,
            config: Arc::clone(&self.config),
        }
    }
}

/// The service [`ScreenLayer`] makes: screens, then calls `S`.
#[derive(Clone)]
pub struct Screen<S> {
    inner: S,
    config: Arc<Config>,
}

impl<S> fmt::Debug for Screen<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Screen")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<S, B, ResBody> Service<Request<B>> for Screen<S>
where
    S: Service<Request<ScreenedBody<B>>, Response = Response<ResBody>> + Clone + Send + 'static,
    S::Future: Send,
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn Error + Send + Sync>>,
    ResBody: Body<Data = Bytes> + Send + 'static,
{
    type Response = Response<ScreenedBody<ResBody>>;
    type Error = S::Error;
    type Future = ScreenFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The inner service that was polled ready goes into the future.
        let fresh = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, fresh);
        let config = Arc::clone(&self.config);
        Box::pin(async move {
            if request.method() != http::Method::POST {
                let response = inner.call(request.map(Either::Right)).await?;
                return Ok(response.map(Either::Right));
            }
            let (parts, body) = request.into_parts();
            match screen(&config, &parts.headers, body).await {
                Ok(bytes) => {
                    let request = Request::from_parts(parts, Either::Left(Full::new(bytes)));
                    let response = inner.call(request).await?;
                    Ok(in_declared_order(response).await)
                }
                Err((id, error)) => Ok(refusal(&id, &error)),
            }
        })
    }
}

/// Reads and screens a POST body; the bytes to pass on, or the request id
/// (`null` when unknown) and the error to refuse it with.
async fn screen<B>(
    config: &Config,
    headers: &HeaderMap,
    body: B,
) -> Result<Bytes, (Value, RpcError)>
where
    B: Body<Data = Bytes>,
    B::Error: Into<Box<dyn Error + Send + Sync>>,
{
    let bytes = read(body, headers, config.limits.max_bytes())
        .await
        .map_err(|error| (Value::Null, error))?;
    let value = screen_body(&bytes, &config.limits).map_err(|error| (Value::Null, error))?;
    let id = || value.get("id").cloned().unwrap_or(Value::Null);
    if let Some(params) = retry_params(&value) {
        retry_fields(params).map_err(|error| (id(), error))?;
    }
    if let Some(check) = &config.headers {
        let pairs: Vec<(&str, String)> = headers
            .iter()
            .map(|(name, value)| {
                let text = String::from_utf8_lossy(value.as_bytes()).into_owned();
                (name.as_str(), text)
            })
            .collect();
        check
            .check(pairs.iter().map(|(n, v)| (*n, v.as_str())), &value)
            .map_err(|error| (id(), error))?;
    }
    Ok(bytes)
}

/// The params of a `tools/call`, `prompts/get` or `resources/read` (the
/// calls that carry `requestState` and `inputResponses`).
fn retry_params(body: &Value) -> Option<&Map<String, Value>> {
    let method = body.get("method").and_then(Value::as_str)?;
    Method::from_name(method)?;
    body.get("params").and_then(Value::as_object)
}

/// The whole body, if it fits in `max` bytes.
async fn read<B>(body: B, headers: &HeaderMap, max: usize) -> Result<Bytes, RpcError>
where
    B: Body<Data = Bytes>,
    B::Error: Into<Box<dyn Error + Send + Sync>>,
{
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    let max_u64 = u64::try_from(max).unwrap_or(u64::MAX);
    if declared.is_some_and(|len| len > max_u64) || body.size_hint().lower() > max_u64 {
        return Err(RpcError::body_too_large(max));
    }
    match Limited::new(body, max).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => {
            Err(RpcError::body_too_large(max))
        }
        Err(_) => Err(RpcError::parse_error("the request body could not be read")),
    }
}

/// The inner service's answer to a screened POST, forms' fields in the
/// order they were declared: a JSON response whose result carries the
/// `rmcp` adapter's order hint is written again in that order, without the
/// hint (see [`crate::rmcp::input_required`]); any other passes through
/// (an event stream untouched, JSON with the same bytes).
async fn in_declared_order<B>(response: Response<B>) -> Response<ScreenedBody<B>>
where
    B: Body<Data = Bytes>,
{
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    if !is_json {
        return response.map(Either::Right);
    }
    let (mut parts, body) = response.into_parts();
    let Ok(collected) = body.collect().await else {
        return refusal(&Value::Null, &RpcError::internal_error());
    };
    let bytes = collected.to_bytes();
    let body = match apply_property_order(&bytes) {
        Some(text) => {
            parts.headers.remove(CONTENT_LENGTH);
            Bytes::from(text)
        }
        None => bytes,
    };
    Response::from_parts(parts, Either::Left(Full::new(body)))
}

/// A JSON-RPC error response with the error's HTTP status.
fn refusal<B>(id: &Value, error: &RpcError) -> Response<ScreenedBody<B>> {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": error.to_json()});
    let mut response = Response::new(Either::Left(Full::new(Bytes::from(body.to_string()))));
    *response.status_mut() =
        StatusCode::from_u16(error.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
