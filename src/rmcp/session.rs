//! Sessions bound to their principal: the outermost service of
//! [`McpServer`](super::McpServer). Every request is authenticated, whatever
//! its method or HTTP verb; a `2025-11-25` session belongs to the principal
//! whose `initialize` opened it, and a request on it from anyone else (or from
//! nobody) gets exactly what a request on an unknown session gets; the
//! sessions of one principal, and of everyone, are capped. Without
//! authentication ([`anonymous`](super::McpServerBuilder::anonymous)) a
//! session is protected by its id alone, and only the total cap applies.
//! A client whose revision predates SSE priming events does not get them
//! ([`PrimingFilter`]).

use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use ::rmcp::transport::streamable_http_server::session::SessionManager;
use ::rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use bytes::Bytes;
use http::header::{CONTENT_TYPE, RETRY_AFTER};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{Either, Full};
use serde_json::Value;
use tower_service::Service;

use super::flow::PrincipalFn;
use super::priming::{Priming, PrimingFilter};
use crate::tower::service::refusal;
use crate::wire::RpcError;

/// The header that names a `2025-11-25` session.
const SESSION_ID: &str = "mcp-session-id";

/// Who may open sessions, and how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SessionLimits {
    /// Open sessions one principal may hold.
    pub(crate) per_principal: usize,
    /// Open sessions in the whole process.
    pub(crate) total: usize,
    /// How long a session lives without a request (rmcp's keep-alive).
    pub(crate) idle: Duration,
}

/// The owners of the open sessions, by session id. An entry outlives its
/// session only until the next count, which drops every session the
/// manager no longer has (closed, or idle past its keep-alive).
#[derive(Debug)]
pub(crate) struct SessionBook {
    owners: Mutex<HashMap<String, Arc<str>>>,
    manager: Arc<LocalSessionManager>,
    limits: SessionLimits,
}

impl SessionBook {
    pub(crate) fn new(manager: Arc<LocalSessionManager>, limits: SessionLimits) -> Self {
        Self {
            owners: Mutex::new(HashMap::new()),
            manager,
            limits,
        }
    }

    fn owner(&self, session: &str) -> Option<Arc<str>> {
        self.owners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(session)
            .cloned()
    }

    fn forget(&self, session: &str) {
        self.owners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(session);
    }

    /// Records `principal` as the owner of the new `session`, or names the
    /// cap it would exceed.
    async fn open(&self, session: &str, principal: &Arc<str>) -> Result<(), &'static str> {
        let live: Vec<String> = self
            .manager
            .sessions
            .read()
            .await
            .keys()
            .map(ToString::to_string)
            .collect();
        let mut owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
        owners.retain(|id, _| live.iter().any(|l| l == id));
        // Anonymous sessions (principal "") share the server's total only:
        // a per-principal cap over everyone would be a second, smaller total.
        let held = owners.values().filter(|p| *p == principal).count();
        if !principal.is_empty() && held >= self.limits.per_principal {
            return Err("sessions for this principal");
        }
        if owners.len() >= self.limits.total {
            return Err("sessions on this server");
        }
        owners.insert(session.to_owned(), Arc::clone(principal));
        Ok(())
    }
}

/// The service that binds sessions to principals, around `S`.
#[derive(Clone)]
pub struct Sessions<S> {
    inner: S,
    book: Arc<SessionBook>,
    /// `None`: anonymous; every request is the one principal `""`.
    principal: Option<Arc<PrincipalFn>>,
}

impl<S> Sessions<S> {
    pub(crate) fn new(
        inner: S,
        book: Arc<SessionBook>,
        principal: Option<Arc<PrincipalFn>>,
    ) -> Self {
        Self {
            inner,
            book,
            principal,
        }
    }
}

impl<S> fmt::Debug for Sessions<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sessions")
            .field("limits", &self.book.limits)
            .field("authenticated", &self.principal.is_some())
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

type Body<R> = Either<Full<Bytes>, R>;

impl<S, B, R> Service<Request<B>> for Sessions<S>
where
    S: Service<Request<B>, Response = Response<Body<R>>> + Clone + Send + 'static,
    S::Future: Send,
    S::Error: Into<Box<dyn Error + Send + Sync>>,
    B: Send + 'static,
    R: Send + 'static,
{
    type Response = Response<Body<PrimingFilter<R>>>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let fresh = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, fresh);
        let book = Arc::clone(&self.book);
        let (parts, body) = request.into_parts();
        let principal: Arc<str> = match &self.principal {
            None => Arc::from(""),
            Some(find) => match find(&parts).filter(|p| !p.is_empty()) {
                Some(principal) => Arc::from(principal),
                None => {
                    log_unauthenticated(&parts.method);
                    return Box::pin(async {
                        Ok(refusal(&Value::Null, &RpcError::unauthenticated()))
                    });
                }
            },
        };
        Box::pin(bound(
            inner,
            book,
            principal,
            Request::from_parts(parts, body),
        ))
    }
}

/// Serves `request` for `principal`: on its own session, or on none.
async fn bound<S, B, R>(
    inner: S,
    book: Arc<SessionBook>,
    principal: Arc<str>,
    request: Request<B>,
) -> Result<Response<Body<PrimingFilter<R>>>, S::Error>
where
    S: Service<Request<B>, Response = Response<Body<R>>>,
{
    let session = request.headers().contains_key(SESSION_ID);
    let priming = Priming::for_request(request.headers(), session);
    let response = owned(inner, book, principal, request).await?;
    // Only an event stream is read: every other body (and its length)
    // passes as it came.
    let priming = if is_event_stream(&response) {
        priming
    } else {
        Priming::Keep
    };
    Ok(response.map(|body| match body {
        Either::Left(refused) => Either::Left(refused),
        Either::Right(body) => Either::Right(PrimingFilter::new(body, priming)),
    }))
}

/// [`bound`] before the priming events are filtered.
async fn owned<S, B, R>(
    mut inner: S,
    book: Arc<SessionBook>,
    principal: Arc<str>,
    request: Request<B>,
) -> Result<Response<Body<R>>, S::Error>
where
    S: Service<Request<B>, Response = Response<Body<R>>>,
{
    let session = request
        .headers()
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let method = request.method().clone();
    if let Some(session) = session {
        match book.owner(&session) {
            Some(owner) if owner == principal => {}
            Some(_) => return Ok(unknown_session(&method, Refused::OtherPrincipal)),
            None => return Ok(unknown_session(&method, Refused::Unknown)),
        }
        let mut response = inner.call(request).await?;
        if method == Method::DELETE && response.status().is_success() {
            book.forget(&session);
            // rmcp answers 202, which the Python SDK's clients log as a
            // failed termination; 200 is what every official client accepts.
            *response.status_mut() = StatusCode::OK;
        }
        return Ok(response);
    }
    let response = inner.call(request).await?;
    let Some(opened) = response
        .headers()
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
    else {
        return Ok(response);
    };
    match book.open(&opened, &principal).await {
        Ok(()) => Ok(response),
        Err(limit) => {
            // The session exists in rmcp already: close it before refusing.
            let _closed = book.manager.close_session(&opened.clone().into()).await;
            log_capacity(limit);
            let mut refused = refusal(&Value::Null, &RpcError::capacity_reached(limit));
            let retry = book.limits.idle.as_secs().max(1).to_string();
            if let Ok(value) = HeaderValue::from_str(&retry) {
                refused.headers_mut().insert(RETRY_AFTER, value);
            }
            Ok(refused)
        }
    }
}

/// Whether `response` is an SSE stream (`text/event-stream`).
fn is_event_stream<T>(response: &Response<T>) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// What `rmcp` answers for a session it does not know, byte for byte.
fn unknown_session<R>(method: &Method, why: Refused) -> Response<Body<R>> {
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
fn log_unauthenticated(method: &Method) {
    tracing::warn!(
        name: "unauthenticated_request", target: "mrtr_guard::rmcp",
        http_method = %method,
        "a request without a principal reached a server that authenticates: refused with 401"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_unauthenticated(_: &Method) {}

#[cfg(feature = "tracing")]
fn log_capacity(limit: &'static str) {
    tracing::warn!(
        name: "session_capacity_reached", target: "mrtr_guard::rmcp",
        limit, "a new session was refused at a cap: answered 429 with Retry-After"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_capacity(_: &'static str) {}
