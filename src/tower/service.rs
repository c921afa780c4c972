//! [`Screen`]: the service [`ScreenLayer`](super::ScreenLayer) makes. It
//! screens a `POST` body before the inner service sees it and answers a
//! refusal itself.

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderValue, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Either, Full, LengthLimitError, Limited};
use serde_json::{Map, Value, json};
use tower_service::Service;

use super::members::{Member, Members};
use super::order::in_declared_order;
use crate::handoff::{AtCapacity, CallId, PrincipalFn, RawArguments, authenticate};
use crate::json::Limits;
use crate::wire::{HeaderCheck, RpcError, retry_fields};

/// The body a screened service receives, and the body of its responses:
/// the buffered, screened bytes or a refusal ([`Either::Left`]), or the
/// untouched body of a request that is not screened or the inner service's
/// response ([`Either::Right`]).
pub type ScreenedBody<B> = Either<Full<Bytes>, B>;

/// The future of a [`Screen`] call.
pub type ScreenFuture<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

/// How the screen finds who is calling: the `rmcp` server builder's
/// principal function, and whether a request without a principal is
/// refused (the codec refuses anonymous states).
#[derive(Clone)]
pub(crate) struct Authentication {
    pub(crate) find: Arc<PrincipalFn>,
    pub(crate) required: bool,
}

/// The settings of a [`ScreenLayer`](super::ScreenLayer), shared by the
/// services it makes.
#[derive(Clone)]
pub(super) struct Config {
    pub(super) limits: Limits,
    pub(super) headers: Option<HeaderCheck>,
    /// The longest a request body may take to arrive; `None`: no limit.
    pub(super) read_timeout: Option<Duration>,
    /// The most bytes of a JSON response the layer buffers to put forms'
    /// fields back in order.
    pub(super) max_response_bytes: usize,
    pub(super) authentication: Option<Authentication>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            limits: Limits::default(),
            headers: None,
            read_timeout: None,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            authentication: None,
        }
    }
}

/// The default cap on a buffered JSON response: 4 MiB.
pub(super) const DEFAULT_MAX_RESPONSE_BYTES: usize = 4 * 1024 * 1024;

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("limits", &self.limits)
            .field("headers", &self.headers)
            .field("read_timeout", &self.read_timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field(
                "authentication",
                &self.authentication.as_ref().map(|auth| auth.required),
            )
            .finish()
    }
}

/// The service [`ScreenLayer`](super::ScreenLayer) makes: screens, then
/// calls `S`.
#[derive(Clone)]
pub struct Screen<S> {
    inner: S,
    config: Arc<Config>,
}

impl<S> Screen<S> {
    pub(super) fn new(inner: S, config: Arc<Config>) -> Self {
        Self { inner, config }
    }
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
    ResBody::Error: Into<Box<dyn Error + Send + Sync>>,
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
                let (mut parts, body) = request.into_parts();
                if let Err(error) = principal(&config, &mut parts) {
                    return Ok(refusal(None, &error));
                }
                let request = Request::from_parts(parts, Either::Right(body));
                let response = inner.call(request).await?;
                return Ok(response.map(Either::Right));
            }
            let (mut parts, body) = request.into_parts();
            match screen(&config, &mut parts, body).await {
                Ok(bytes) => {
                    let capacity = parts.extensions.get::<AtCapacity>().cloned();
                    let request = Request::from_parts(parts, Either::Left(Full::new(bytes)));
                    let response = inner.call(request).await?;
                    let mut response = in_declared_order(response, config.max_response_bytes)
                        .await
                        .unwrap_or_else(|error| refusal(None, &error));
                    if let Some(secs) = capacity.as_ref().and_then(AtCapacity::retry_after) {
                        too_many_requests(&mut response, secs);
                    }
                    Ok(response)
                }
                Err((id, error)) => Ok(refusal(id.as_ref(), &error)),
            }
        })
    }
}

/// Derives the request's [`Principal`] once, where the screen
/// authenticates, and hands it down in `parts`.
fn principal(config: &Config, parts: &mut http::request::Parts) -> Result<(), RpcError> {
    if let Some(auth) = &config.authentication {
        let principal = authenticate(&*auth.find, Some(parts), auth.required)?;
        parts.extensions.insert(principal);
    }
    Ok(())
}

/// Reads and screens a POST body: the bytes to pass on, with what the
/// screen derived (the principal; a call's id and raw arguments) in
/// `parts`; or the request's id (`None` before the body parsed, or when it
/// has none) and the error to refuse it with.
async fn screen<B>(
    config: &Config,
    parts: &mut http::request::Parts,
    body: B,
) -> Result<Bytes, (Option<Value>, RpcError)>
where
    B: Body<Data = Bytes>,
    B::Error: Into<Box<dyn Error + Send + Sync>>,
{
    let declared = parts
        .headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    let mut reading = std::pin::pin!(read(body, declared, config.limits.max_bytes()));
    // A body that has arrived with its head (most do) is read without a
    // timer; the read timeout runs from the first wait.
    let arrived = std::future::poll_fn(|cx| Poll::Ready(reading.as_mut().poll(cx))).await;
    let bytes = match (arrived, config.read_timeout) {
        (Poll::Ready(read), _) => read,
        (Poll::Pending, Some(limit)) => match tokio::time::timeout(limit, reading).await {
            Ok(read) => read,
            Err(_) => Err(RpcError::body_timeout()),
        },
        (Poll::Pending, None) => reading.await,
    }
    .map_err(|error| (None, error))?;
    let body = Members::scan(&bytes, &config.limits).map_err(|error| (None, error))?;
    let mut kept = None;
    let method = body.call_method();
    if let Some(method) = method {
        let retry = body.retry_fields();
        let retry = retry_fields(&retry).map_err(|error| (body.id(), error))?;
        // A retry speaks 2026-07-28, in its headers and its `_meta`, and
        // its headers say what its body says: a gateway that routes,
        // authorises or audits by them sees the round with the side effect.
        if retry.is_retry() {
            HeaderCheck::default()
                .check(header_pairs(&parts.headers), &body.for_header_check())
                .map_err(|error| (body.id(), error))?;
        }
        if let Some(target) = body.target(method) {
            kept = Some((method, target));
        }
    }
    principal(config, parts).map_err(|error| (body.id(), error))?;
    if let Some(check) = &config.headers {
        check
            .check(header_pairs(&parts.headers), &body.for_header_check())
            .map_err(|error| (body.id(), error))?;
    }
    if let (Some(method), Some(id)) = (method, body.value(Member::Id)) {
        parts.extensions.insert(CallId::new(id));
        // A call the layers behind may refuse at a cap (a task it cannot
        // create): they tell the screen through this slot.
        if method == crate::wire::Method::ToolsCall {
            parts.extensions.insert(AtCapacity::default());
        }
        if let Some((method, target)) = kept {
            parts
                .extensions
                .insert(RawArguments::new(method, target, body.arguments()));
        }
    }
    Ok(bytes)
}

/// The headers as `(name, value)` text pairs, for [`HeaderCheck`]; a value
/// that is not UTF-8 reads as U+FFFD, which the check refuses as outside
/// visible ASCII.
fn header_pairs(headers: &HeaderMap) -> impl Iterator<Item = (&str, &str)> {
    headers.iter().map(|(name, value)| {
        let text = std::str::from_utf8(value.as_bytes()).unwrap_or("\u{fffd}");
        (name.as_str(), text)
    })
}

/// The whole body, if it fits in `max` bytes (and its `Content-Length`,
/// `declared`, says it may).
async fn read<B>(body: B, declared: Option<u64>, max: usize) -> Result<Bytes, RpcError>
where
    B: Body<Data = Bytes>,
    B::Error: Into<Box<dyn Error + Send + Sync>>,
{
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

/// `response` as a refusal at a cap: HTTP 429 and `Retry-After`.
pub(crate) fn too_many_requests<B>(response: &mut Response<B>, retry_after_secs: u64) {
    *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
    if let Ok(value) = HeaderValue::from_str(&retry_after_secs.to_string()) {
        response.headers_mut().insert(RETRY_AFTER, value);
    }
}

/// A JSON-RPC error response with the error's HTTP status, and the
/// request's `id` if it has one the spec allows (a string or an integer).
/// Otherwise the response has no `id` member: the 2026-07-28 schema's
/// `JSONRPCErrorResponse` leaves it out when the request's id cannot be
/// read, and allows no `null`.
pub(crate) fn refusal<B>(id: Option<&Value>, error: &RpcError) -> Response<ScreenedBody<B>> {
    let mut body = Map::new();
    body.insert("jsonrpc".to_owned(), json!("2.0"));
    if let Some(id) = id.filter(|id| is_request_id(id)) {
        body.insert("id".to_owned(), id.clone());
    }
    body.insert("error".to_owned(), error.to_json());
    let body = Value::Object(body);
    let mut response = Response::new(Either::Left(Full::new(Bytes::from(body.to_string()))));
    *response.status_mut() =
        StatusCode::from_u16(error.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if error.http_status() == 401 {
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}

/// Whether `id` is a JSON-RPC id as MCP's `RequestId` has it: a string or
/// an integer (not `null`, not a number with a fraction).
fn is_request_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(number) => number.is_i64() || number.is_u64(),
        _ => false,
    }
}
