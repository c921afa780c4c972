//! String formats of the form profile, one small file each. Every check caps
//! the length before it parses, and looks at bytes only (non-ASCII input is
//! refused by all four formats).

mod date;
mod email;
mod uri;

use crate::form::Format;

/// Whether `s` has the format `f`.
pub(crate) fn check(f: Format, s: &str) -> bool {
    match f {
        Format::Email => email::is_email(s),
        Format::Uri => uri::is_uri(s),
        Format::Date => date::is_date(s),
        Format::DateTime => date::is_date_time(s),
    }
}

/// A cursor over ASCII bytes, for the hand-written parsers.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub(super) fn new(s: &'a [u8]) -> Self {
        Self { rest: s }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    pub(super) fn at_end(&self) -> bool {
        self.rest.is_empty()
    }

    pub(super) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    pub(super) fn bump(&mut self) -> Option<u8> {
        let (first, rest) = self.rest.split_first()?;
        self.rest = rest;
        Some(*first)
    }

    /// Consumes `b` if it is next.
    pub(super) fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.rest = self.rest.get(1..).unwrap_or_default();
            true
        } else {
            false
        }
    }

    /// Consumes bytes while `pred` holds; returns how many.
    pub(super) fn eat_while(&mut self, pred: impl Fn(u8) -> bool) -> usize {
        let n = self.rest.iter().take_while(|b| pred(**b)).count();
        self.rest = self.rest.get(n..).unwrap_or_default();
        n
    }

    /// Exactly `n` ASCII digits as a number.
    pub(super) fn digits(&mut self, n: usize) -> Option<u32> {
        let mut v: u32 = 0;
        for _ in 0..n {
            let d = self.bump().filter(u8::is_ascii_digit)?;
            v = v
                .checked_mul(10)?
                .checked_add(u32::from(d.checked_sub(b'0')?))?;
        }
        Some(v)
    }
}
