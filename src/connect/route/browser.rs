//! The browser binding: a fresh random cookie (`HttpOnly`,
//! `SameSite=Strict`, on the route's path only) whose hash a ticket or an
//! OAuth state carries, so that only the browser the route answered can
//! bring it back.

use http::{HeaderMap, HeaderValue, header};
use serde_json::Value;
use subtle::ConstantTimeEq as _;

use crate::json::JsonDigest;
use crate::state::fill_random;

/// The cookie's name.
pub(super) const COOKIE: &str = "mrtr_connect";

/// A fresh binding: the cookie's value and its hash; `None` when the OS
/// random generator fails.
pub(super) fn fresh() -> Option<(String, JsonDigest)> {
    let mut bytes = [0u8; 32];
    fill_random(&mut bytes).ok()?;
    let cookie = crate::state::encode_text(&bytes);
    let digest = digest(&cookie);
    Some((cookie, digest))
}

/// Sets `cookie` on a response of the route at `route`.
pub(super) fn set(headers: &mut HeaderMap, route: &str, cookie: &str) {
    let secure = if route.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    let set = format!(
        "{COOKIE}={cookie}; Path={path}; HttpOnly; SameSite=Strict{secure}",
        path = route_path(route)
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

/// The route's cookie, if the request carries it once.
pub(super) fn cookie(headers: &HeaderMap) -> Option<String> {
    let mut found = None;
    for value in headers.get_all(header::COOKIE) {
        for pair in value.to_str().ok()?.split(';') {
            if let Some((name, value)) = pair.trim().split_once('=')
                && name == COOKIE
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
        assert_eq!(cookie(&headers).as_deref(), Some("abc"));
        headers.append(header::COOKIE, "mrtr_connect=def".parse().expect("header"));
        assert_eq!(cookie(&headers), None);
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
