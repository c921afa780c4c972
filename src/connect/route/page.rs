//! The connect route's pages: plain HTML with no script, style or
//! third-party asset, each sent with headers that keep it out of frames,
//! caches and referrers.

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::Full;

/// The route's Content-Security-Policy: nothing loads, forms post only to
/// the route itself, no frame may hold the page.
const CSP: &str = "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A page of `status`, titled `title`, with `body` (HTML, already
/// escaped), and every header the route's pages carry.
pub(super) fn page(status: StatusCode, title: &str, body: &str) -> Response<Full<Bytes>> {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <title>{title}</title></head>\n<body>\n<h1>{title}</h1>\n{body}\n</body></html>\n",
        title = escape(title),
    );
    let mut response = Response::new(Full::new(Bytes::from(html)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    let fixed = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// The page every link, ticket or state that does not hold gets: forged,
/// changed, expired, used, or another principal's past its page.
pub(super) fn refused() -> Response<Full<Bytes>> {
    page(
        StatusCode::NOT_FOUND,
        "This link cannot be used",
        "<p>It may have expired or been used already. Nothing was saved. \
         Go back to your client and ask again.</p>",
    )
}

/// The page for a browser signed in as another principal than the link's.
pub(super) fn other_principal() -> Response<Full<Bytes>> {
    page(
        StatusCode::FORBIDDEN,
        "This link was made for another account",
        "<p>You are signed in as a different user than the one this link was made for. \
         Nothing was saved, and the link was not used. If someone sent you this link, \
         do not complete it: they would get access to your account. To connect your own \
         account, ask from your own client.</p>",
    )
}

/// The page for a browser that is not signed in.
pub(super) fn sign_in() -> Response<Full<Bytes>> {
    page(
        StatusCode::UNAUTHORIZED,
        "Sign in first",
        "<p>Sign in to this service as yourself, then open the link again. Nothing was saved.</p>",
    )
}

/// HTML text: `&`, `<`, `>`, `"` and `'` escaped.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn every_page_carries_the_headers() {
        for response in [refused(), other_principal(), sign_in()] {
            let headers = response.headers();
            assert_eq!(headers[header::X_FRAME_OPTIONS], "DENY");
            assert_eq!(headers[header::CACHE_CONTROL], "no-store");
            assert_eq!(headers[header::REFERRER_POLICY], "no-referrer");
            let csp = headers[header::CONTENT_SECURITY_POLICY]
                .to_str()
                .unwrap_or_default();
            assert!(csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'none'"));
        }
    }
}
