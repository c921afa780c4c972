//! Email addresses, two profiles over one grammar. The default
//! ([`is_email`]) is an address as a person types it: RFC 5321's
//! `Dot-string "@" Domain` with a domain of at least two labels, the profile
//! browsers apply to `type=email` without its leading, trailing or doubled
//! dots. The opt-in ([`is_rfc5321_mailbox`]) is RFC 5321's whole `Mailbox`:
//! `Local-part "@" ( Domain / address-literal )`, quoted local parts and
//! single-label domains included. Both are ASCII only, with no display name,
//! no comments and no folding whitespace.

use super::cursor::Cursor;

/// RFC 5321 §4.5.3.1: a path is at most 256 octets with its angle brackets.
const MAX_LEN: usize = 254;
const MAX_LOCAL: usize = 64;
const MAX_DOMAIN: usize = 255;
const MAX_LABEL: usize = 63;

/// An address a person types: a dot-string local part and a dotted domain
/// name. No quoted local part (`"x>, <eve@t.example"@example.com` reads as
/// two addresses to careless mail code), no address literal, no single-label
/// domain (`ada@localhost`).
pub(super) fn is_email(s: &str) -> bool {
    let Some(domain) = after_local_part(s, false) else {
        return false;
    };
    is_domain(domain) && domain.contains(&b'.')
}

/// RFC 5321 `Mailbox`, the whole grammar.
pub(super) fn is_rfc5321_mailbox(s: &str) -> bool {
    let Some(domain) = after_local_part(s, true) else {
        return false;
    };
    if domain.first() == Some(&b'[') {
        address_literal(domain)
    } else {
        is_domain(domain)
    }
}

/// What follows the `@` of a mailbox of at most [`MAX_LEN`] bytes whose local
/// part (a dot-string, or with `quoted` also a quoted string) fits.
fn after_local_part(s: &str, quoted: bool) -> Option<&[u8]> {
    if s.len() > MAX_LEN {
        return None;
    }
    let mut c = Cursor::new(s.as_bytes());
    let start = c.rest().len();
    let ok = if c.eat(b'"') {
        quoted && quoted_rest(&mut c)
    } else {
        dot_string(&mut c)
    };
    if !ok || start.saturating_sub(c.rest().len()) > MAX_LOCAL || !c.eat(b'@') {
        return None;
    }
    Some(c.rest())
}

/// RFC 5321 `atext` (RFC 5322 §3.2.3).
fn is_atext(b: u8) -> bool {
    ATEXT.get(usize::from(b)).copied().unwrap_or(false)
}

#[expect(
    clippy::indexing_slicing,
    reason = "evaluated at compile time: a bad index fails the build"
)]
const ATEXT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        #[expect(clippy::cast_possible_truncation, reason = "b < 256")]
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'!' | b'#'
                    | b'$'
                    | b'%'
                    | b'&'
                    | b'\''
                    | b'*'
                    | b'+'
                    | b'-'
                    | b'/'
                    | b'='
                    | b'?'
                    | b'^'
                    | b'_'
                    | b'`'
                    | b'{'
                    | b'|'
                    | b'}'
                    | b'~'
            );
        b += 1;
    }
    t
};

/// The rest of a `Quoted-string` after its opening quote.
fn quoted_rest(c: &mut Cursor<'_>) -> bool {
    loop {
        match c.bump() {
            Some(b'"') => return true,
            // quoted-pairSMTP = "\" %d32-126
            Some(b'\\') => {
                if !c.bump().is_some_and(|b| (32..=126).contains(&b)) {
                    return false;
                }
            }
            // qtextSMTP = %d32-33 / %d35-91 / %d93-126
            Some(b) if (32..=126).contains(&b) => {}
            _ => return false,
        }
    }
}

/// `Dot-string = Atom *("."  Atom)`.
fn dot_string(c: &mut Cursor<'_>) -> bool {
    loop {
        if c.eat_while(is_atext) == 0 {
            return false;
        }
        if !c.eat(b'.') {
            return true;
        }
    }
}

/// `sub-domain *("." sub-domain)`, `sub-domain = Let-dig [Ldh-str]`.
fn is_domain(d: &[u8]) -> bool {
    !d.is_empty()
        && d.len() <= MAX_DOMAIN
        && d.split(|b| *b == b'.').all(|label| {
            !label.is_empty()
                && label.len() <= MAX_LABEL
                && label
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
                && label.first().is_some_and(u8::is_ascii_alphanumeric)
                && label.last().is_some_and(u8::is_ascii_alphanumeric)
        })
}

/// `"[" ( IPv4-address-literal / IPv6-address-literal / General-address-literal ) "]"`.
fn address_literal(d: &[u8]) -> bool {
    let Some(inner) = d.strip_prefix(b"[").and_then(|r| r.strip_suffix(b"]")) else {
        return false;
    };
    if let Some(v6) = inner.strip_prefix(b"IPv6:") {
        return super::uri::is_ipv6(v6);
    }
    if super::uri::is_ipv4(inner) {
        return true;
    }
    // General-address-literal = Standardized-tag ":" 1*dcontent
    let Some(colon) = inner.iter().position(|b| *b == b':') else {
        return false;
    };
    let (tag, content) = inner.split_at(colon);
    let content = content.get(1..).unwrap_or_default();
    tag.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        && tag.first().is_some_and(u8::is_ascii_alphanumeric)
        && tag.last().is_some_and(u8::is_ascii_alphanumeric)
        && tag.iter().any(u8::is_ascii_alphabetic)
        && !content.is_empty()
        && content.iter().all(|b| matches!(b, 33..=90 | 94..=126))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert!(is_email("joe.bloggs@example.com"));
        assert!(!is_email("\"joe@bloggs\"@example.com"));
        assert!(!is_email("joe@[127.0.0.1]"));
        assert!(!is_email("joe@localhost"));
        assert!(!is_email("Joe <joe@example.com>"));
        assert!(!is_email("te..st@example.com"));
        assert!(!is_email("joe@example.com."));
    }

    #[test]
    fn mailboxes() {
        assert!(is_rfc5321_mailbox("joe.bloggs@example.com"));
        assert!(is_rfc5321_mailbox("\"joe@bloggs\"@example.com"));
        assert!(is_rfc5321_mailbox("joe@[IPv6:::1]"));
        assert!(is_rfc5321_mailbox("joe@[127.0.0.1]"));
        assert!(is_rfc5321_mailbox("joe@localhost"));
        assert!(!is_rfc5321_mailbox("joe@[127.0.0.300]"));
        assert!(!is_rfc5321_mailbox("Joe <joe@example.com>"));
        assert!(!is_rfc5321_mailbox("te..st@example.com"));
        assert!(!is_rfc5321_mailbox("joe@-example.com"));
        assert!(!is_rfc5321_mailbox("jöe@example.com"));
        assert!(!is_rfc5321_mailbox(&format!(
            "{}@example.com",
            "a".repeat(65)
        )));
        assert!(!is_rfc5321_mailbox("\"unterminated@example.com"));
    }
}
