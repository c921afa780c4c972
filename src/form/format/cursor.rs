//! A cursor over ASCII bytes, for the hand-written format parsers.

/// A cursor over ASCII bytes, for the hand-written parsers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(s: &'a [u8]) -> Self {
        Self { rest: s }
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    pub(crate) fn at_end(&self) -> bool {
        self.rest.is_empty()
    }

    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    pub(crate) fn bump(&mut self) -> Option<u8> {
        let (first, rest) = self.rest.split_first()?;
        self.rest = rest;
        Some(*first)
    }

    /// Consumes `b` if it is next.
    pub(crate) fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.rest = self.rest.get(1..).unwrap_or_default();
            true
        } else {
            false
        }
    }

    /// Consumes bytes while `pred` holds; returns how many.
    pub(crate) fn eat_while(&mut self, pred: impl Fn(u8) -> bool) -> usize {
        let n = self.rest.iter().take_while(|b| pred(**b)).count();
        self.rest = self.rest.get(n..).unwrap_or_default();
        n
    }

    /// Exactly `n` ASCII digits as a number.
    pub(crate) fn digits(&mut self, n: usize) -> Option<u32> {
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
