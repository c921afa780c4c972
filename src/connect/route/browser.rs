//! The browser binding: a fresh random cookie (`HttpOnly`,
//! `SameSite=Strict`, on the route's path only, for the link's TTL) whose
//! hash a ticket or an OAuth state carries, so that only the browser the
//! route answered can bring it back. Each link has a cookie of its own
//! (named after the link's id), so that flows open at once in one browser
//! do not displace each other.

use http::{HeaderMap, HeaderValue, header};
use serde_json::Value;
use subtle::ConstantTimeEq as _;

use crate::connect::connector::Connector;
use crate::connect::link::LinkClaims;
use crate::json::JsonDigest;
use crate::state::fill_random;

/// The start of every binding cookie's name.
pub(super) const COOKIE: &str = "mrtr_connect";

/// The name of the cookie of the link `link`: [`COOKIE`], `_`, the first
/// 16 hex digits of its id.
pub(super) fn name(link: &LinkClaims) -> String {
    let id = link.id.as_flow().to_string();
    format!("{COOKIE}_{}", id.get(..16).unwrap_or(&id))
}

/// A fresh binding: the cookie's value and its hash; `None` when the OS
/// random generator fails.
pub(super) fn fresh() -> Option<(String, JsonDigest)> {
    let mut bytes = [0u8; 32];
    fill_random(&mut bytes).ok()?;
    let cookie = crate::state::encode_text(&bytes);
    let digest = digest(&cookie);
    Some((cookie, digest))
}

/// Sets `cookie`, the binding of `link`, on a response of `connector`'s
/// route, for as long as a link opens.
pub(super) fn set(headers: &mut HeaderMap, connector: &Connector, link: &LinkClaims, cookie: &str) {
    let route = connector.route();
    let secure = if route.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    let set = format!(
        "{name}={cookie}; Path={path}; Max-Age={age}; HttpOnly; SameSite=Strict{secure}",
        name = name(link),
        path = route_path(route),
        age = connector.link_ttl().whole_seconds(),
    );
    if let Ok(value) = HeaderValue::from_str(&set) {
        headers.insert(header::SET_COOKIE, value);
    }
}

/// Whether the request's `cookie` is the one `expected` hashes.
pub(super) fn matches(expected: Option<JsonDigest>, cookie: Option<&str>) -> bool {
    match (expected, cookie) {
        (Some(expected), Some(cookie)) => {
            bool::from(expected.as_bytes().ct_eq(digest(cookie).as_bytes()))
        }
        _ => false,
    }
}

/// The binding cookie of `link`, if the request carries it once.
pub(super) fn cookie(headers: &HeaderMap, link: &LinkClaims) -> Option<String> {
    value(headers, &name(link))
}

/// The cookie `wanted`, if the request carries it once.
fn value(headers: &HeaderMap, wanted: &str) -> Option<String> {
    let mut found = None;
    for value in headers.get_all(header::COOKIE) {
        for pair in value.to_str().ok()?.split(';') {
            if let Some((name, value)) = pair.trim().split_once('=')
                && name == wanted
                && found.replace(value.to_owned()).is_some()
            {
                return None;
            }
        }
    }
    found
}

fn digest(cookie: &str) -> JsonDigest {
    JsonDigest::of(&Value::String(cookie.to_owned()))
}

/// The path of the route's URL (where its cookie is sent).
fn route_path(route: &str) -> &str {
    let rest = route.split_once("://").map_or(route, |(_, rest)| rest);
    let path = rest
        .find('/')
        .map_or("/", |at| rest.get(at..).unwrap_or("/"));
    path.split(['?', '#']).next().unwrap_or("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_goes_to_the_route_path_only() {
        assert_eq!(route_path("https://x.example/connect"), "/connect");
        assert_eq!(route_path("https://x.example/a/connect?x=1"), "/a/connect");
        assert_eq!(route_path("https://x.example"), "/");
    }

    #[test]
    fn a_repeated_cookie_is_refused() {
        let mut headers = HeaderMap::new();
        headers.append(
            header::COOKIE,
            "x=1; mrtr_connect=abc".parse().expect("header"),
        );
        assert_eq!(value(&headers, COOKIE).as_deref(), Some("abc"));
        assert_eq!(value(&headers, "mrtr_connect_1"), None);
        headers.append(header::COOKIE, "mrtr_connect=def".parse().expect("header"));
        assert_eq!(value(&headers, COOKIE), None);
    }

    #[test]
    fn only_the_bound_cookie_matches() {
        let (value, digest) = fresh().expect("random");
        assert!(matches(Some(digest), Some(&value)));
        assert!(!matches(Some(digest), Some("other")));
        assert!(!matches(Some(digest), None));
        assert!(!matches(None, Some(&value)));
    }
}
