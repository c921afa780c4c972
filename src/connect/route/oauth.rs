//! The OAuth step (feature `connect-oauth`): once the link opened for its
//! own principal, the browser is sent to the third party with a `state`
//! sealed to the link and to a fresh browser cookie, and the S256 challenge
//! of a verifier derived from that state; the callback checks the state
//! before anything else, then the principal and the cookie, and the issuer
//! (RFC 9207) when the provider names one, uses the state up, exchanges the code with the verifier and keeps the tokens bound to
//! the principal.

use std::collections::BTreeMap;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;
use time::OffsetDateTime;

use crate::connect::connection::Connection;
use crate::connect::connector::Connector;
use crate::connect::link::{LinkClaims, Sealed, pkce_verifier};
use crate::connect::oauth::OAuthProvider;
use crate::connect::route::browser;
use crate::connect::route::events::{event, exchange_failed, store_failed};
use crate::connect::route::page::{page, refused};
use crate::connect::route::secret::unavailable;

/// Sends the browser to `provider` for the link `link`.
pub(super) fn start(
    connector: &Connector,
    link: &LinkClaims,
    provider: &OAuthProvider,
    now: OffsetDateTime,
) -> Response<Full<Bytes>> {
    let Some((cookie, digest)) = browser::fresh() else {
        return unavailable();
    };
    let mut state = link.clone();
    state.browser = Some(digest);
    state.expires_at = now
        .unix_timestamp()
        .saturating_add(connector.link_ttl().whole_seconds());
    let Some(state) = state.seal(connector.keys(), Sealed::State, connector.route()) else {
        return unavailable();
    };
    let verifier = pkce_verifier(connector.keys(), &state);
    let Some(url) = provider.authorize_url(connector.route(), &state, &verifier) else {
        return unavailable();
    };
    let Ok(location) = HeaderValue::from_str(&url) else {
        return unavailable();
    };
    let mut response = page(
        StatusCode::SEE_OTHER,
        "Continue to sign in",
        "<p>Continue at the service you are connecting.</p>",
    );
    response.headers_mut().insert(header::LOCATION, location);
    browser::set(response.headers_mut(), connector, link, &cookie);
    response
}

/// The third party's redirect back: `state` first, then who and which
/// browser, then the code.
pub(super) async fn callback(
    connector: &Connector,
    principal: Option<&str>,
    headers: &http::HeaderMap,
    query: &BTreeMap<String, String>,
    now: OffsetDateTime,
) -> Response<Full<Bytes>> {
    let opened = query.get("state").and_then(|text| {
        let claims = LinkClaims::open(
            connector.keys(),
            Sealed::State,
            connector.route(),
            text,
            now,
        )?;
        Some((text, claims))
    });
    let Some((text, state)) = opened else {
        event("state_refused");
        return refused();
    };
    let cookie = browser::cookie(headers, &state);
    if !state.is_for(principal) || !browser::matches(state.browser, cookie.as_deref()) {
        event(if state.is_for(principal) {
            "csrf"
        } else {
            "other_principal"
        });
        return refused();
    }
    let Some(provider) = connector.oauth_provider(&state.connection) else {
        return refused();
    };
    // A response from another authorization server than the connection's
    // (a mix-up, RFC 9207): refused before the state is used up.
    if !provider.accepts_issuer(query.get("iss").map(String::as_str)) {
        event("issuer_mismatch");
        return refused();
    }
    if connector.consume(&state, Sealed::State, now).is_err() {
        event("state_replayed");
        return refused();
    }
    let Some(code) = query.get("code") else {
        // `error=access_denied` and the like: the user, or the third party,
        // said no.
        return page(
            StatusCode::OK,
            "Not connected",
            "<p>The service you were connecting did not grant access. Nothing was saved. \
             Go back to your client: you can decline there, or ask again.</p>",
        );
    };
    let verifier = pkce_verifier(connector.keys(), text);
    let credential = match provider
        .exchange(connector.route(), code, &verifier, now.unix_timestamp())
        .await
    {
        Ok(credential) => credential,
        Err(why) => {
            exchange_failed(&why);
            return page(
                StatusCode::BAD_GATEWAY,
                "Not connected",
                "<p>The service you were connecting did not accept this sign-in. Nothing was \
                 saved. Go back to your client and ask again.</p>",
            );
        }
    };
    let connection = Connection::new(state.id, now.unix_timestamp(), credential);
    match connector.keep(principal, &state.connection, &connection, now) {
        Ok(()) => page(
            StatusCode::OK,
            "Connected",
            "<p>Connected. You can close this page, go back to your client and accept.</p>",
        ),
        Err(error) => {
            store_failed(&error);
            unavailable()
        }
    }
}
