//! [`ConnectRoute`]: the tower service a browser opens a connect link at.
//!
//! `GET ?link=…` opens the link: refused as one page when it does not
//! open (changed, forged, expired); a browser not signed in is asked to
//! sign in; one signed in as another principal than the link's is told so,
//! with an event, and the link stays unused; only then is the link used up
//! and its step shown. `POST` takes the secret page back. `GET ?state=…`
//! is the third party's redirect back (feature `connect-oauth`): the
//! connect route's URL is the OAuth client's redirect URI.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt as _, Full, Limited};
use time::OffsetDateTime;
use tower_service::Service;

use crate::connect::connector::Connector;
use crate::connect::link::{LinkClaims, Sealed, Step};
use crate::connect::route::events::event;
use crate::connect::route::page::{other_principal, page, refused, sign_in};
use crate::connect::route::secret;

/// The body of every response of the route.
pub type ConnectBody = Full<Bytes>;

/// The most bytes a posted page may have.
const MAX_BODY: usize = 16 * 1024;

/// Derives the browser's principal from a request's HTTP parts.
type BrowserPrincipal = dyn Fn(&http::request::Parts) -> Option<String> + Send + Sync;

/// The connect route: mount it at the path of the [`Connector`]'s route
/// URL, beside the MCP service, e.g.
/// `axum::Router::new().route_service("/mcp", mcp).route_service("/connect", route)`.
///
/// `authenticate` finds who the browser is signed in as, from the
/// request's HTTP parts: the server's own session cookie, its login. It
/// must name the same principals as `McpServer`'s principal function: the
/// route refuses a link for any principal but the one it returns.
#[derive(Clone)]
pub struct ConnectRoute {
    connector: Arc<Connector>,
    authenticate: Arc<BrowserPrincipal>,
}

impl ConnectRoute {
    /// The route of `connector`, the browser user found by `authenticate`.
    pub fn new(
        connector: Arc<Connector>,
        authenticate: impl Fn(&http::request::Parts) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            connector,
            authenticate: Arc::new(authenticate),
        }
    }

    async fn serve<B>(self, request: Request<B>) -> Response<ConnectBody>
    where
        B: Body<Data = Bytes> + Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = request.into_parts();
        let principal = (self.authenticate)(&parts).filter(|principal| !principal.is_empty());
        let now = OffsetDateTime::now_utc();
        match parts.method {
            // Not HEAD: opening a link uses it up, and a HEAD is no visit.
            Method::GET => {
                let query = parts.uri.query().unwrap_or_default();
                let Some(mut pairs) = unique_pairs(query.as_bytes()) else {
                    return refused();
                };
                if let Some(link) = pairs.remove("link") {
                    return self.open(&link, principal.as_deref(), now);
                }
                #[cfg(feature = "connect-oauth")]
                if pairs.contains_key("state") {
                    return super::oauth::callback(
                        &self.connector,
                        principal.as_deref(),
                        &parts.headers,
                        &pairs,
                        now,
                    )
                    .await;
                }
                refused()
            }
            Method::POST => {
                let Ok(collected) = Limited::new(body, MAX_BODY).collect().await else {
                    return refused();
                };
                let Some(fields) = unique_pairs(&collected.to_bytes()) else {
                    return refused();
                };
                secret::submit(
                    &self.connector,
                    principal.as_deref(),
                    &parts.headers,
                    &fields,
                    now,
                )
            }
            _ => page(
                StatusCode::METHOD_NOT_ALLOWED,
                "Not allowed",
                "<p>Open the link you were given.</p>",
            ),
        }
    }

    /// Opens a link for the browser's `principal`.
    fn open(
        &self,
        text: &str,
        principal: Option<&str>,
        now: OffsetDateTime,
    ) -> Response<ConnectBody> {
        let connector = &self.connector;
        let Some(link) =
            LinkClaims::open(connector.keys(), Sealed::Link, connector.route(), text, now)
        else {
            event("link_refused");
            return refused();
        };
        if principal.is_none() && link.principal.is_some() {
            return sign_in();
        }
        if !link.is_for(principal) {
            event("other_principal");
            return other_principal();
        }
        if !connector.knows(&link.connection, &link.step) {
            return refused();
        }
        if connector.consume(&link, Sealed::Link, now).is_err() {
            event("link_replayed");
            return refused();
        }
        match &link.step {
            Step::Secret => match connector.secret_form(&link.connection) {
                Some(form) => secret::show(connector, &link, form, now),
                None => refused(),
            },
            #[cfg(feature = "connect-oauth")]
            Step::Oauth => match connector.oauth_provider(&link.connection) {
                Some(provider) => super::oauth::start(connector, &link, provider, now),
                None => refused(),
            },
            #[cfg(not(feature = "connect-oauth"))]
            Step::Oauth => refused(),
        }
    }
}

impl fmt::Debug for ConnectRoute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectRoute")
            .field("connector", &self.connector)
            .finish_non_exhaustive()
    }
}

impl<B> Service<Request<B>> for ConnectRoute
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<ConnectBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let route = self.clone();
        Box::pin(async move { Ok(route.serve(request).await) })
    }
}

/// The pairs of a query or a posted form, each name once: `None` when a
/// name repeats (which of two values would count is a question an attacker
/// should not get to ask).
fn unique_pairs(input: &[u8]) -> Option<BTreeMap<String, String>> {
    let mut pairs = BTreeMap::new();
    for (name, value) in form_urlencoded::parse(input) {
        if pairs
            .insert(name.into_owned(), value.into_owned())
            .is_some()
        {
            return None;
        }
    }
    Some(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_name_is_refused() {
        assert!(unique_pairs(b"a=1&b=2").is_some());
        assert!(unique_pairs(b"a=1&a=2").is_none());
    }
}
