//! RFC 3986 `URI`: `scheme ":" hier-part [ "?" query ] [ "#" fragment ]`.
//! A scheme is required (no relative references); ASCII only.

use super::cursor::Cursor;

/// Longer URIs are refused unread.
const MAX_LEN: usize = 8 * 1024;

pub(super) fn is_uri(s: &str) -> bool {
    if s.len() > MAX_LEN {
        return false;
    }
    let mut c = Cursor::new(s.as_bytes());
    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
    if !c.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
        return false;
    }
    c.eat_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !c.eat(b':') {
        return false;
    }
    let rest = c.rest();
    let end = rest
        .iter()
        .position(|b| matches!(b, b'?' | b'#'))
        .unwrap_or(rest.len());
    let (hier, tail) = rest.split_at(end);
    hier_part(hier) && query_fragment(tail)
}

/// A byte class: `unreserved` and `sub-delims` of RFC 3986, plus `extra`.
#[expect(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "only evaluated in consts, at compile time: a bad index fails the build"
)]
const fn class(extra: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        #[expect(clippy::cast_possible_truncation, reason = "b < 256")]
        let c = b as u8;
        t[b] =
            c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') || is_sub_delim(c);
        b += 1;
    }
    let mut i = 0;
    while i < extra.len() {
        t[extra[i] as usize] = true;
        i += 1;
    }
    t
}

const REG_NAME: [bool; 256] = class(b"");
const USERINFO: [bool; 256] = class(b":");
const PATH: [bool; 256] = class(b":@/");
const QUERY: [bool; 256] = class(b":@/?");

fn in_class(table: &[bool; 256], b: u8) -> bool {
    table.get(usize::from(b)).copied().unwrap_or(false)
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

const fn is_sub_delim(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

/// Whether every byte of `s` is in `allowed` or part of a `%XX` escape.
fn all_pct(s: &[u8], allowed: &[bool; 256]) -> bool {
    let mut c = Cursor::new(s);
    while let Some(b) = c.bump() {
        if b == b'%' {
            if !(c.bump().is_some_and(|h| h.is_ascii_hexdigit())
                && c.bump().is_some_and(|h| h.is_ascii_hexdigit()))
            {
                return false;
            }
        } else if !in_class(allowed, b) {
            return false;
        }
    }
    true
}

/// `"//" authority path-abempty / path-absolute / path-rootless / path-empty`.
fn hier_part(h: &[u8]) -> bool {
    let Some(after) = h.strip_prefix(b"//") else {
        // path-absolute / path-rootless / path-empty: segments of pchar; a
        // leading "//" was taken by the authority branch above.
        return all_pct(h, &PATH);
    };
    let end = after.iter().position(|b| *b == b'/').unwrap_or(after.len());
    let (authority, path) = after.split_at(end);
    is_authority(authority) && all_pct(path, &PATH)
}

/// `[ userinfo "@" ] host [ ":" port ]`.
fn is_authority(a: &[u8]) -> bool {
    let host_port = match a.iter().position(|b| *b == b'@') {
        Some(at) => {
            let (userinfo, rest) = a.split_at(at);
            if !all_pct(userinfo, &USERINFO) {
                return false;
            }
            rest.get(1..).unwrap_or_default()
        }
        None => a,
    };
    let (host, port) = if host_port.first() == Some(&b'[') {
        let Some(close) = host_port.iter().position(|b| *b == b']') else {
            return false;
        };
        let (lit, rest) = host_port.split_at(close.saturating_add(1));
        if !is_ip_literal(lit) {
            return false;
        }
        (None, rest)
    } else {
        let end = host_port
            .iter()
            .position(|b| *b == b':')
            .unwrap_or(host_port.len());
        let (host, rest) = host_port.split_at(end);
        (Some(host), rest)
    };
    // reg-name = *( unreserved / pct-encoded / sub-delims ); IPv4address is a subset.
    if let Some(host) = host
        && !all_pct(host, &REG_NAME)
    {
        return false;
    }
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// `"[" ( IPv6address / IPvFuture ) "]"`.
fn is_ip_literal(lit: &[u8]) -> bool {
    let Some(inner) = lit.strip_prefix(b"[").and_then(|r| r.strip_suffix(b"]")) else {
        return false;
    };
    if let Some(future) = inner
        .strip_prefix(b"v")
        .or_else(|| inner.strip_prefix(b"V"))
    {
        // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
        let mut c = Cursor::new(future);
        return c.eat_while(|b| b.is_ascii_hexdigit()) > 0
            && c.eat(b'.')
            && !c.at_end()
            && c.rest()
                .iter()
                .all(|b| is_unreserved(*b) || is_sub_delim(*b) || *b == b':');
    }
    is_ipv6(inner)
}

/// `[ "?" query ] [ "#" fragment ]`, both `*( pchar / "/" / "?" )`; one `#` at most.
fn query_fragment(t: &[u8]) -> bool {
    let mut parts = t.splitn(2, |b| *b == b'#');
    let query = parts.next().unwrap_or_default();
    let fragment = parts.next().unwrap_or_default();
    all_pct(query, &QUERY) && all_pct(fragment, &QUERY)
}

/// `dec-octet "." dec-octet "." dec-octet "." dec-octet`, no leading zeros.
pub(super) fn is_ipv4(s: &[u8]) -> bool {
    let mut n = 0usize;
    for part in s.split(|b| *b == b'.') {
        n = n.saturating_add(1);
        let ok = match part {
            [d] => d.is_ascii_digit(),
            [b'1'..=b'9', d] => d.is_ascii_digit(),
            [b'1', d, e] => d.is_ascii_digit() && e.is_ascii_digit(),
            [b'2', b'0'..=b'4', e] => e.is_ascii_digit(),
            [b'2', b'5', b'0'..=b'5'] => true,
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    n == 4
}

/// RFC 3986 `IPv6address`: eight `h16` groups, one `::` at most, an
/// optional trailing IPv4 address counting as two groups.
pub(super) fn is_ipv6(s: &[u8]) -> bool {
    if s.len() > 45 {
        return false;
    }
    let Some(i) = s.windows(2).position(|w| w == b"::") else {
        return groups(s, true) == Some(8);
    };
    let head = s.get(..i).unwrap_or_default();
    let tail = s.get(i.saturating_add(2)..).unwrap_or_default();
    // One "::" at most, and no ":::".
    if tail.first() == Some(&b':') || tail.windows(2).any(|w| w == b"::") {
        return false;
    }
    match (groups(head, false), groups(tail, true)) {
        (Some(h), Some(t)) => h.saturating_add(t) <= 7,
        _ => false,
    }
}

/// Counts the groups in a `:`-separated run of `h16` (the last may be an IPv4
/// address when `v4_last` allows it, counting two); `None` if malformed.
fn groups(s: &[u8], v4_last: bool) -> Option<usize> {
    if s.is_empty() {
        return Some(0);
    }
    let parts: Vec<&[u8]> = s.split(|b| *b == b':').collect();
    let last = parts.len().saturating_sub(1);
    let mut n = 0usize;
    for (i, p) in parts.iter().enumerate() {
        if i == last && v4_last && p.contains(&b'.') {
            if !is_ipv4(p) {
                return None;
            }
            n = n.saturating_add(2);
        } else if (1..=4).contains(&p.len()) && p.iter().all(u8::is_ascii_hexdigit) {
            n = n.saturating_add(1);
        } else {
            return None;
        }
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6() {
        for ok in [
            "::1",
            "::",
            "2001:db8::7",
            "1:2:3:4:5:6:7:8",
            "::ffff:1.2.3.4",
            "1:2:3:4:5:6:1.2.3.4",
            "1::",
        ] {
            assert!(is_ipv6(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "1:2:3:4:5:6:7:8:9",
            ":::",
            "1::2::3",
            "::ffff:01.2.3.4",
            "12345::",
            "1:2:3:4:5:6:7",
            ":1::",
            "1.2.3.4::",
        ] {
            assert!(!is_ipv6(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn uris() {
        assert!(is_uri("http://foo.bar/?baz=qux#quux"));
        assert!(is_uri(
            "urn:oasis:names:specification:docbook:dtd:xml:4.1.2"
        ));
        assert!(is_uri("ldap://[2001:db8::7]/c=GB?objectClass?one"));
        assert!(!is_uri("//foo.bar/"));
        assert!(!is_uri("http:/[::1]"));
        assert!(!is_uri("http://example.com:abc/"));
        assert!(!is_uri("http://a/#b#c"));
        assert!(!is_uri("http://exa mple.com/"));
    }
}
