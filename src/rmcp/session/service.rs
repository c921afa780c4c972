//! The service that binds sessions to principals, just inside
//! [`McpServer`](crate::rmcp::McpServer)'s screen. Every request is
//! authenticated, whatever its method or HTTP verb; a `2025-11-25` session
//! belongs to the principal whose `initialize` opened it, and a request on it
//! from anyone else (or from nobody) gets exactly what a request on an
//! unknown session gets; sessions, and calls in flight on them, are capped
//! per principal and in all; an event stream reaches a client without the
//! priming events its revision does not know. Without authentication
//! ([`anonymous`](crate::rmcp::McpServerBuilder::anonymous)) a session is
//! protected by its id alone, and only the totals apply.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use ::rmcp::transport::StreamableHttpService;
use ::rmcp::transport::streamable_http_server::session::SessionManager;
use bytes::Bytes;
use http::header::CONTENT_TYPE;
use http::{Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{Either, Full};
use serde_json::Value;
use tower_service::Service;

use super::book::{CallTicket, SessionBook};
use super::priming::{Priming, PrimingFilter};
use super::watched::{Cancel, Watched};
use crate::handoff::{CallId, Principal};
use crate::tower::service::{ScreenedBody, refusal, too_many_requests};
use crate::wire::RpcError;

/// The header that names a `2025-11-25` session.
const SESSION_ID: &str = "mcp-session-id";

/// The service that binds sessions to principals, around `S` (`rmcp`'s
/// Streamable HTTP service). [`McpServer`](crate::rmcp::McpServer) builds it.
pub struct Sessions<S> {
    /// Shared, not cloned, by the requests: `rmcp`'s service serves
    /// through `&self`.
    inner: Arc<S>,
    book: Arc<SessionBook>,
    /// Whether sessions belong to the [`Principal`] the screen derived;
    /// `false`: anonymous, every request is the one principal `""`.
    bound: bool,
}

impl<S> Sessions<S> {
    pub(crate) fn new(inner: S, book: Arc<SessionBook>, bound: bool) -> Self {
        Self {
            inner: Arc::new(inner),
            book,
            bound,
        }
    }
}

impl<S> Clone for Sessions<S> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            book: Arc::clone(&self.book),
            bound: self.bound,
        }
    }
}

/// The service behind [`Sessions`]: `rmcp`'s Streamable HTTP service,
/// which serves a request through `&self` (its `tower` `call` clones the
/// whole service, configuration included, for each request).
pub trait Serve<B>: Send + Sync + 'static {
    /// The body of its responses.
    type Body;

    /// Serves one request.
    fn serve(&self, request: Request<B>) -> impl Future<Output = Response<Self::Body>> + Send;
}

impl<B, H, M> Serve<B> for StreamableHttpService<H, M>
where
    B: http_body::Body + Send + 'static,
    B::Error: fmt::Display,
    B::Data: Send + 'static,
    H: ::rmcp::ServerHandler + Send + 'static,
    M: SessionManager,
{
    type Body = BoxBody<Bytes, Infallible>;

    fn serve(&self, request: Request<B>) -> impl Future<Output = Response<Self::Body>> + Send {
        self.handle(request)
    }
}

impl<S> fmt::Debug for Sessions<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sessions")
            .field("limits", &self.book.limits)
            .field("authenticated", &self.bound)
            .finish_non_exhaustive()
    }
}

/// Why a request on a session was refused, for the server's log only: the
/// client gets the same answer for each.
#[derive(Clone, Copy, Debug)]
enum Refused {
    Unknown,
    OtherPrincipal,
}

/// What [`Sessions`] answers with: its own refusals, or `S`'s body watched
/// and, for an event stream, filtered.
type Answer<R> = Response<Either<Full<Bytes>, PrimingFilter<Watched<R>>>>;

/// An answer before its priming events are filtered.
type Watching<R> = Response<Either<Full<Bytes>, Watched<R>>>;

impl<S, B> Service<Request<ScreenedBody<B>>> for Sessions<S>
where
    S: Serve<ScreenedBody<B>>,
    S::Body: Send + 'static,
    B: Send + 'static,
{
    type Response = Answer<S::Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<ScreenedBody<B>>) -> Self::Future {
        let inner = Arc::clone(&self.inner);
        let book = Arc::clone(&self.book);
        // The screen in front authenticated the request and derived its
        // principal; one it did not derive (a mount without the screen's
        // authentication) is refused, never served as anonymous.
        let principal: Arc<str> = if self.bound {
            match request
                .extensions()
                .get::<Principal>()
                .and_then(Principal::as_deref)
            {
                Some(principal) => Arc::from(principal),
                None => {
                    return Box::pin(async { Ok(refusal(None, &RpcError::unauthenticated())) });
                }
            }
        } else {
            Arc::from("")
        };
        Box::pin(async move { Ok(bound(&*inner, book, principal, request).await) })
    }
}

/// Serves `request` for `principal`, on its own session or on none; an
/// event stream without the priming events the client's revision does not
/// know.
async fn bound<S, B>(
    inner: &S,
    book: Arc<SessionBook>,
    principal: Arc<str>,
    request: Request<ScreenedBody<B>>,
) -> Answer<S::Body>
where
    S: Serve<ScreenedBody<B>>,
{
    let session = request
        .headers()
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(Arc::<str>::from);
    let priming = Priming::for_request(request.headers(), session.is_some());
    let response = match session {
        Some(session) => on_session(inner, book, principal, session, request).await,
        None => opening(inner, book, principal, request).await,
    };
    // Only an event stream is read: every other body (and its length)
    // passes as it came.
    let priming = if is_event_stream(response.headers()) {
        priming
    } else {
        Priming::Keep
    };
    response.map(|body| match body {
        Either::Left(refused) => Either::Left(refused),
        Either::Right(body) => Either::Right(PrimingFilter::new(body, priming)),
    })
}

/// Whether a response is an SSE stream (`text/event-stream`).
fn is_event_stream(headers: &http::HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// A request on `session`: refused unless the session is `principal`'s; a
/// call counted under the caps and cancelled if its client goes away.
async fn on_session<S, B>(
    inner: &S,
    book: Arc<SessionBook>,
    principal: Arc<str>,
    session: Arc<str>,
    request: Request<ScreenedBody<B>>,
) -> Watching<S::Body>
where
    S: Serve<ScreenedBody<B>>,
{
    let method = request.method().clone();
    match book.owner(&session) {
        Some(owner) if owner == principal => {}
        Some(_) => return unknown_session(&method, Refused::OtherPrincipal),
        None => return unknown_session(&method, Refused::Unknown),
    }
    let call = request
        .extensions()
        .get::<CallId>()
        .map(|call| call.id().clone());
    let ticket = match call.as_ref().map(|_| book.begin_call(&principal)) {
        Some(Err(limit)) => return at_capacity(limit, CALL_RETRY_AFTER_SECS, call.as_ref()),
        Some(Ok(ticket)) => Some(ticket),
        None => None,
    };
    let mut response = inner.serve(request).await;
    if method == Method::DELETE && response.status().is_success() {
        book.forget(&session);
        // rmcp answers 202, which the Python SDK's clients log as a
        // failed termination; 200 is what every official client accepts.
        *response.status_mut() = StatusCode::OK;
    }
    watch(response, ticket, call.map(|id| cancel(&book, &session, id)))
}

/// A request outside any session: an `initialize` that opens one is
/// recorded for `principal`, or refused at a cap.
async fn opening<S, B>(
    inner: &S,
    book: Arc<SessionBook>,
    principal: Arc<str>,
    request: Request<ScreenedBody<B>>,
) -> Watching<S::Body>
where
    S: Serve<ScreenedBody<B>>,
{
    let response = inner.serve(request).await;
    let Some(opened) = response
        .headers()
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
    else {
        return response.map(|body| Either::Right(Watched::plain(body)));
    };
    match book.open(&opened, &principal).await {
        Ok(()) => response.map(|body| Either::Right(Watched::plain(body))),
        Err(limit) => {
            // The session exists in rmcp already: close it before refusing.
            let _closed = book.manager.close_session(&opened.into()).await;
            at_capacity(limit, book.limits.idle.as_secs().clamp(1, 300), None)
        }
    }
}

fn cancel(book: &SessionBook, session: &Arc<str>, request: Value) -> Cancel {
    Cancel {
        manager: Arc::clone(&book.manager),
        session: Arc::clone(session),
        request,
    }
}

/// `response` with its body watched: a call's body holds `ticket`, and, if
/// it is an event stream (the call may wait for its client), cancels the
/// call when dropped before its end.
fn watch<R>(
    response: Response<R>,
    ticket: Option<CallTicket>,
    cancel: Option<Cancel>,
) -> Watching<R> {
    let streaming = is_event_stream(response.headers());
    response.map(|body| {
        Either::Right(match ticket {
            Some(ticket) => Watched::call(body, ticket, cancel.filter(|_| streaming)),
            None => Watched::plain(body),
        })
    })
}

/// What a call refused at a cap is told to wait: calls in flight end as
/// their clients answer, within seconds for a person at a form.
const CALL_RETRY_AFTER_SECS: u64 = 5;

/// HTTP 429 with `Retry-After` and the cap's name, and the call's `id`
/// where the request is a call (an `initialize` refused at the session cap
/// has none the screen kept).
fn at_capacity<R>(limit: &'static str, retry_after_secs: u64, id: Option<&Value>) -> Watching<R> {
    log_capacity(limit);
    let mut refused = refusal(id, &RpcError::capacity_reached(limit));
    too_many_requests(&mut refused, retry_after_secs);
    refused
}

/// What `rmcp` answers for a session it does not know, byte for byte.
fn unknown_session<R>(method: &Method, why: Refused) -> Watching<R> {
    log_refused(method, why);
    let mut response = Response::new(Either::Left(Full::new(Bytes::from_static(
        b"Not Found: Session not found",
    ))));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

#[cfg(feature = "tracing")]
fn log_refused(method: &Method, why: Refused) {
    let reason = match why {
        Refused::Unknown => "unknown_session",
        Refused::OtherPrincipal => "another_principals_session",
    };
    tracing::warn!(
        name: "session_refused", target: "mrtr_guard::rmcp",
        reason, http_method = %method,
        "a request named a session that is not the caller's: answered as an unknown session"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_refused(_: &Method, _: Refused) {}

#[cfg(feature = "tracing")]
fn log_capacity(limit: &'static str) {
    tracing::warn!(
        name: "capacity_reached", target: "mrtr_guard::rmcp",
        limit, "a new session or call was refused at a cap: answered 429 with Retry-After"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_capacity(_: &'static str) {}
