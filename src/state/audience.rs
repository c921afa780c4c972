//! What a codec accepts as its audience: the MCP endpoint's absolute URL.

/// Whether `audience` is an absolute `http://` or `https://` URL with a
/// host: `scheme "://" host [":" port] [path] ["?" query]`, visible ASCII
/// only, no user information. The host is a name of letters, digits, `.`,
/// `-`, `_`, `~` and `%`, or a bracketed IPv6 literal; the port is digits.
pub(crate) fn is_endpoint_url(audience: &str) -> bool {
    if !audience.bytes().all(|b| b.is_ascii_graphic()) {
        return false;
    }
    let Some((scheme, rest)) = audience.split_once("://") else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return false;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, _path) = rest.split_at(end);
    let (host_ok, port) = match authority.strip_prefix('[') {
        Some(literal) => match literal.split_once(']') {
            Some((inner, port)) if !inner.is_empty() => (
                inner
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() || matches!(b, b':' | b'.')),
                port,
            ),
            _ => return false,
        },
        None => {
            let (name, port) = authority
                .find(':')
                .map_or((authority, ""), |colon| authority.split_at(colon));
            let name_ok = !name.is_empty()
                && name.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'~' | b'%')
                });
            (name_ok, port)
        }
    };
    let port_ok = match port.strip_prefix(':') {
        None => port.is_empty(),
        Some(digits) => !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()),
    };
    host_ok && port_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_urls_have_an_http_scheme_and_a_host() {
        for good in [
            "https://mcp.example.com/mcp",
            "http://127.0.0.1:8080/mcp",
            "HTTPS://mcp.example.com",
            "http://[::1]:8080/mcp",
            "http://mcp.test/mcp?tenant=a",
        ] {
            assert!(is_endpoint_url(good), "{good}");
        }
        for bad in [
            "not a url",
            "aud",
            "mcp.example.com/mcp",
            "/mcp",
            "https://",
            "https:///mcp",
            "https://:8080/mcp",
            "https://mcp.example.com:/mcp",
            "https://mcp.example.com:80a/mcp",
            "https://user:pw@mcp.example.com/mcp",
            "ftp://mcp.example.com/mcp",
            "urn:mcp:server",
            "https://mcp example.com/mcp",
            "https://[]/mcp",
            "https://mcp.example.com/mcp\n",
        ] {
            assert!(!is_endpoint_url(bad), "{bad}");
        }
    }
}
