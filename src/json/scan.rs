//! Strict JSON without a tree: [`check_strict`] refuses exactly what
//! [`parse_strict`](super::parse_strict) refuses, in one pass over the bytes,
//! building nothing; [`scan_strict`] also says where the members a caller
//! names are, so that it reads only those.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use super::strict::{JsonError, Limits, is_reserved_key};

/// The most containers `serde_json` nests before its own recursion limit:
/// the depth cap is never higher, so both parsers refuse the same bodies.
const SERDE_JSON_MAX_DEPTH: usize = 127;

/// Up to this many keys an object's names are compared one by one; past it
/// they go in a hash set, so that a body of many keys costs linear time.
const KEYS_IN_A_LIST: usize = 8;

/// Checks untrusted bytes as [`parse_strict`](super::parse_strict) does (the
/// byte and depth caps, duplicate keys however spelled, the keys
/// `serde_json` reserves, trailing data, lone surrogates, numbers beyond
/// `f64`, invalid UTF-8, raw control characters), without building a value:
/// for a caller that then reads the bytes with its own types.
///
/// Bytes that pass read the same through [`parse_strict`]'s tree and through
/// `serde_json::Value`: the one key that would make `Value` read an object
/// as the JSON text inside it (`"$serde_json::private::RawValue"`, with the
/// `raw_value` feature this crate turns on) is refused in every object
/// ([`JsonError::ReservedKey`]), however it is spelled.
///
/// [`parse_strict`]: super::parse_strict
///
/// ```
/// use mrtr_guard::json::{JsonError, Limits, check_strict};
///
/// check_strict(br#"{"action":"accept"}"#, &Limits::default())?;
/// assert!(matches!(
///     check_strict(br#"{"a":1,"\u0061":2}"#, &Limits::default()),
///     Err(JsonError::DuplicateKey { .. })
/// ));
/// # Ok::<(), JsonError>(())
/// ```
///
/// # Errors
///
/// The [`JsonError`] `parse_strict` gives for the same bytes.
pub fn check_strict(bytes: &[u8], limits: &Limits) -> Result<(), JsonError> {
    scan_strict(bytes, limits, &[], &mut [])
}

/// Checks `bytes` as [`check_strict`] does and, for each path of
/// member names in `paths` (one or two names, from the document's object),
/// the byte range of that member's value in `found` (same index), `None`
/// where it is absent. A name is matched as the client spelled it once
/// its escapes are decoded, as any JSON parser reads it.
pub(crate) fn scan_strict(
    bytes: &[u8],
    limits: &Limits,
    paths: &[&[&str]],
    found: &mut [Option<Range<usize>>],
) -> Result<(), JsonError> {
    if bytes.len() > limits.max_bytes() {
        return Err(JsonError::TooLarge {
            len: bytes.len(),
            max: limits.max_bytes(),
        });
    }
    let depth = limits.max_depth().min(SERDE_JSON_MAX_DEPTH);
    let mut scanner = Scanner {
        bytes,
        pos: 0,
        paths,
        found,
        max_depth: depth,
    };
    scanner.skip_whitespace();
    scanner.value(depth, Some(&[]))?;
    scanner.skip_whitespace();
    if scanner.pos < bytes.len() {
        return Err(scanner.error(Kind::TrailingData));
    }
    Ok(())
}

/// Why the scan stopped, before its position is turned into a line and
/// column.
#[derive(Clone, Copy)]
enum Kind {
    TooDeep(usize),
    DuplicateKey,
    ReservedKey,
    TrailingData,
    LoneSurrogate,
    NumberOutOfRange,
    InvalidUtf8,
    ControlCharacter,
    UnexpectedEnd,
    Syntax,
}

struct Scanner<'a, 'p> {
    bytes: &'a [u8],
    pos: usize,
    paths: &'p [&'p [&'p str]],
    found: &'p mut [Option<Range<usize>>],
    /// The depth cap a too-deep error reports.
    max_depth: usize,
}

impl<'a, 'p> Scanner<'a, 'p> {
    fn error(&self, kind: Kind) -> JsonError {
        let before = self.bytes.get(..self.pos).unwrap_or(self.bytes);
        let line = before
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            .saturating_add(1);
        let column = match before.iter().rposition(|&b| b == b'\n') {
            Some(newline) => self.pos.saturating_sub(newline),
            None => self.pos.saturating_add(1),
        };
        match kind {
            Kind::TooDeep(max) => JsonError::TooDeep { max, line, column },
            Kind::DuplicateKey => JsonError::DuplicateKey { line, column },
            Kind::ReservedKey => JsonError::ReservedKey { line, column },
            Kind::TrailingData => JsonError::TrailingData { line, column },
            Kind::LoneSurrogate => JsonError::LoneSurrogate { line, column },
            Kind::NumberOutOfRange => JsonError::NumberOutOfRange { line, column },
            Kind::InvalidUtf8 => JsonError::InvalidUtf8 { line, column },
            Kind::ControlCharacter => JsonError::ControlCharacter { line, column },
            Kind::UnexpectedEnd => JsonError::UnexpectedEnd { line, column },
            Kind::Syntax => JsonError::Syntax { line, column },
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn bump(&mut self) {
        self.pos = self.pos.saturating_add(1);
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.bump();
        }
    }

    /// The next byte, which must be there.
    fn next_byte(&mut self) -> Result<u8, JsonError> {
        let byte = self.peek().ok_or_else(|| self.error(Kind::UnexpectedEnd))?;
        self.bump();
        Ok(byte)
    }

    /// One value at `pos` (whitespace skipped before it). `path`: the
    /// member names that lead here when a path in `paths` may continue
    /// through this value, `None` when none can.
    fn value(&mut self, depth_left: usize, path: Option<&[&str]>) -> Result<(), JsonError> {
        match self.peek() {
            None => Err(self.error(Kind::UnexpectedEnd)),
            Some(b'{') => self.object(depth_left, path),
            Some(b'[') => self.array(depth_left),
            Some(b'"') => {
                self.bump();
                self.string(false).map(drop)
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(_) => Err(self.error(Kind::Syntax)),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), JsonError> {
        for &expected in word {
            match self.peek() {
                None => return Err(self.error(Kind::UnexpectedEnd)),
                Some(byte) if byte == expected => self.bump(),
                Some(_) => return Err(self.error(Kind::Syntax)),
            }
        }
        Ok(())
    }

    /// Enters a container: one level less left, or too deep.
    fn enter(&mut self, depth_left: usize) -> Result<usize, JsonError> {
        self.bump();
        depth_left
            .checked_sub(1)
            .ok_or_else(|| self.error(Kind::TooDeep(self.max_depth)))
    }

    fn array(&mut self, depth_left: usize) -> Result<(), JsonError> {
        let inner = self.enter(depth_left)?;
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(());
        }
        loop {
            self.skip_whitespace();
            self.value(inner, None)?;
            self.skip_whitespace();
            match self.next_byte()? {
                b',' => {}
                b']' => return Ok(()),
                _ => return Err(self.back_error(Kind::Syntax)),
            }
        }
    }

    fn object(&mut self, depth_left: usize, path: Option<&[&str]>) -> Result<(), JsonError> {
        let inner = self.enter(depth_left)?;
        let mut keys = Keys::default();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(());
        }
        loop {
            self.skip_whitespace();
            match self.next_byte()? {
                b'"' => {}
                _ => return Err(self.back_error(Kind::Syntax)),
            }
            let key = self.string(true)?;
            let reserved = is_reserved_key(&key);
            if !keys.insert(key.clone()) {
                return Err(self.error(Kind::DuplicateKey));
            }
            if reserved {
                return Err(self.error(Kind::ReservedKey));
            }
            self.skip_whitespace();
            match self.next_byte()? {
                b':' => {}
                _ => return Err(self.back_error(Kind::Syntax)),
            }
            self.skip_whitespace();
            let start = self.pos;
            let below = path.and_then(|path| self.below(path, &key));
            self.value(inner, below)?;
            self.mark(path, &key, start);
            self.skip_whitespace();
            match self.next_byte()? {
                b',' => {}
                b'}' => return Ok(()),
                _ => return Err(self.back_error(Kind::Syntax)),
            }
        }
    }

    /// The path to member `key` of the object at `path`, if a wanted path
    /// goes on below it.
    fn below(&self, path: &[&str], key: &str) -> Option<&'p [&'p str]> {
        let depth = path.len();
        let paths: &'p [&'p [&'p str]] = self.paths;
        paths.iter().find_map(|wanted| {
            let through = wanted.get(..=depth)?;
            let goes_on = wanted.len() > through.len()
                && through.get(..depth) == Some(path)
                && through.get(depth) == Some(&key);
            goes_on.then_some(through)
        })
    }

    /// Records the range of the value just read, if `path` + `key` is wanted.
    fn mark(&mut self, path: Option<&[&str]>, key: &str, start: usize) {
        let Some(path) = path else { return };
        let depth = path.len();
        for (wanted, slot) in self.paths.iter().zip(self.found.iter_mut()) {
            if wanted.len() == depth.saturating_add(1)
                && wanted.get(..depth) == Some(path)
                && wanted.get(depth) == Some(&key)
            {
                *slot = Some(start..self.pos);
            }
        }
    }

    /// An error about the byte just read.
    fn back_error(&mut self, kind: Kind) -> JsonError {
        self.pos = self.pos.saturating_sub(1);
        self.error(kind)
    }

    /// A string, its opening quote read; the decoded text when `decode`
    /// (an object key), else an empty text. In `serde_json`'s order: raw
    /// control characters, escapes and the end of input first, then the
    /// whole string as UTF-8 (escapes are ASCII, so the raw bytes are UTF-8
    /// exactly when the decoded text is).
    fn string(&mut self, decode: bool) -> Result<Cow<'a, str>, JsonError> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut escaped = false;
        loop {
            let rest = bytes.get(self.pos..).unwrap_or_default();
            let Some(offset) = string_stop(rest) else {
                self.pos = bytes.len();
                return Err(self.error(Kind::UnexpectedEnd));
            };
            self.pos = self.pos.saturating_add(offset);
            match self.next_byte()? {
                b'"' => break,
                b'\\' => {
                    self.escape()?;
                    escaped = true;
                }
                _ => return Err(self.back_error(Kind::ControlCharacter)),
            }
        }
        let end = self.pos.saturating_sub(1);
        let text = self.utf8(start, end)?;
        Ok(match (decode, escaped) {
            (false, _) => Cow::Borrowed(""),
            (true, false) => Cow::Borrowed(text),
            // Checked above: `serde_json` decodes it as the check read it.
            (true, true) => {
                let quoted = bytes.get(start.saturating_sub(1)..self.pos);
                let decoded = quoted.and_then(|quoted| serde_json::from_slice(quoted).ok());
                Cow::Owned(decoded.unwrap_or_default())
            }
        })
    }

    /// `bytes[start..end]` as text, or the invalid UTF-8 error at its first
    /// bad byte.
    fn utf8(&mut self, start: usize, end: usize) -> Result<&'a str, JsonError> {
        let chunk = self.bytes.get(start..end).unwrap_or_default();
        std::str::from_utf8(chunk).map_err(|error| {
            self.pos = start.saturating_add(error.valid_up_to());
            self.error(Kind::InvalidUtf8)
        })
    }

    /// One escape, its backslash read.
    fn escape(&mut self) -> Result<(), JsonError> {
        match self.next_byte()? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Ok(()),
            b'u' => self.unicode_escape(),
            _ => Err(self.back_error(Kind::Syntax)),
        }
    }

    /// A `\u` escape, `\u` read; a high surrogate must be followed by a
    /// `\u` low surrogate.
    fn unicode_escape(&mut self) -> Result<(), JsonError> {
        let first = self.hex4()?;
        if (0xDC00..=0xDFFF).contains(&first) {
            return Err(self.error(Kind::LoneSurrogate));
        }
        if !(0xD800..=0xDBFF).contains(&first) {
            return Ok(());
        }
        for expected in [b'\\', b'u'] {
            match self.peek() {
                None => return Err(self.error(Kind::UnexpectedEnd)),
                Some(byte) if byte == expected => self.bump(),
                Some(_) => return Err(self.error(Kind::LoneSurrogate)),
            }
        }
        let second = self.hex4()?;
        if !(0xDC00..=0xDFFF).contains(&second) {
            return Err(self.error(Kind::LoneSurrogate));
        }
        Ok(())
    }

    /// Four hex digits (an input that ends before them ends unexpectedly,
    /// whatever they hold, as `serde_json` reads it).
    fn hex4(&mut self) -> Result<u32, JsonError> {
        if self.bytes.len().saturating_sub(self.pos) < 4 {
            self.pos = self.bytes.len();
            return Err(self.error(Kind::UnexpectedEnd));
        }
        let mut value = 0u32;
        for _ in 0..4 {
            let digit = match self.next_byte()? {
                byte @ b'0'..=b'9' => byte.wrapping_sub(b'0'),
                byte @ b'a'..=b'f' => byte.wrapping_sub(b'a').wrapping_add(10),
                byte @ b'A'..=b'F' => byte.wrapping_sub(b'A').wrapping_add(10),
                _ => return Err(self.back_error(Kind::Syntax)),
            };
            value = (value << 4) | u32::from(digit);
        }
        Ok(value)
    }

    /// A number: JSON's grammar, and within `f64` as `serde_json` reads it.
    fn number(&mut self) -> Result<(), JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.bump();
        }
        match self.peek() {
            Some(b'0') => {
                self.bump();
                // `serde_json` reads a digit after a leading zero as a bad
                // number, not as trailing data.
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(self.error(Kind::Syntax));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            Some(_) => return Err(self.error(Kind::Syntax)),
            None => return Err(self.error(Kind::UnexpectedEnd)),
        }
        let mut plain = true;
        if self.peek() == Some(b'.') {
            plain = false;
            self.bump();
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            plain = false;
            self.bump();
            if let Some(b'+' | b'-') = self.peek() {
                self.bump();
            }
            self.some_digits()?;
        }
        let text = self.bytes.get(start..self.pos).unwrap_or_default();
        // An integer of up to 18 digits fits `u64` and `i64`: always in
        // range. Any other number is read as `serde_json` reads it.
        if plain && text.len() <= 18 {
            return Ok(());
        }
        match serde_json::from_slice::<f64>(text) {
            Ok(_) => Ok(()),
            Err(_) => {
                self.pos = start;
                Err(self.error(Kind::NumberOutOfRange))
            }
        }
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.bump();
        }
    }

    /// At least one digit.
    fn some_digits(&mut self) -> Result<(), JsonError> {
        match self.peek() {
            Some(b'0'..=b'9') => {
                self.digits();
                Ok(())
            }
            Some(_) => Err(self.error(Kind::Syntax)),
            None => Err(self.error(Kind::UnexpectedEnd)),
        }
    }
}

/// Where the first `"`, `\\` or raw control character of `bytes` is: eight
/// bytes at a time while none of the eight is one (a string's text is most
/// of a body).
fn string_stop(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // A high bit in every byte of `word` that is zero (exact for the first
    // such byte, which is all the skip needs).
    let zero_bytes = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
    let mut skipped = 0usize;
    for chunk in bytes.chunks_exact(8) {
        let word = u64::from_ne_bytes(chunk.try_into().ok()?);
        let special = zero_bytes(word ^ ONES.wrapping_mul(u64::from(b'"')))
            | zero_bytes(word ^ ONES.wrapping_mul(u64::from(b'\\')))
            | (word.wrapping_sub(ONES.wrapping_mul(0x20)) & !word & HIGHS);
        if special != 0 {
            break;
        }
        skipped = skipped.saturating_add(8);
    }
    let rest = bytes.get(skipped..)?;
    let at = rest
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    Some(skipped.saturating_add(at))
}

/// The names of one object's members so far: in place up to
/// [`KEYS_IN_A_LIST`], in a hash set beyond.
#[derive(Default)]
struct Keys<'a> {
    list: [Cow<'a, str>; KEYS_IN_A_LIST],
    len: usize,
    set: Option<HashSet<Cow<'a, str>>>,
}

impl<'a> Keys<'a> {
    /// Adds `key`; `false` if the object has it already.
    fn insert(&mut self, key: Cow<'a, str>) -> bool {
        if let Some(set) = &mut self.set {
            return set.insert(key);
        }
        let list = self.list.get(..self.len).unwrap_or_default();
        if list.contains(&key) {
            return false;
        }
        if let Some(slot) = self.list.get_mut(self.len) {
            *slot = key;
            self.len = self.len.saturating_add(1);
            return true;
        }
        let mut set: HashSet<Cow<'a, str>> = self.list.iter_mut().map(std::mem::take).collect();
        let added = set.insert(key);
        self.set = Some(set);
        added
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_strict;

    /// Where `check_strict` and `parse_strict` disagree on `text`: one
    /// accepts and the other refuses, or they refuse with other errors.
    fn disagreement(text: &[u8], limits: &Limits) -> Option<String> {
        let checked = check_strict(text, limits);
        let parsed = parse_strict(text, limits).map(drop);
        let kind = |result: Result<(), JsonError>| result.map_err(|e| std::mem::discriminant(&e));
        (kind(checked) != kind(parsed)).then(|| {
            let text = String::from_utf8_lossy(text);
            format!("{text:?}: {checked:?} vs {parsed:?}")
        })
    }

    #[test]
    fn refuses_what_parse_strict_refuses() {
        let d = Limits::default();
        let mut diffs = Vec::new();
        let mut agree = |text: &[u8], limits: &Limits| diffs.extend(disagreement(text, limits));
        for text in [
            "",
            " ",
            "{",
            "[",
            "[1,",
            "[1,]",
            "{}",
            "[]",
            "{} x",
            "{}  ",
            "1",
            "-0",
            "-",
            "01",
            "[01]",
            "1.",
            "1.e5",
            "1e",
            "1e+",
            ".5",
            "1e400",
            "-1e400",
            "1e308",
            "tru",
            "true",
            "nul",
            "nulll",
            r#"{"a":1,"a":2}"#,
            r#"{"a":1,"\u0061":2}"#,
            r#"{"a":{"b":1,"b":2}}"#,
            r#"{"$serde_json::private::RawValue":"1"}"#,
            r#"{"\u0024serde_json::private::RawValue":"1"}"#,
            r#"{"a":[{"$serde_json::private::Number":"1"}]}"#,
            r#"{"$serde_json::private::RawValue":1,"$serde_json::private::RawValue":2}"#,
            r#"{"x$serde_json::private::RawValue":1}"#,
            r#"{"$serde_json::private:":1}"#,
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ud800\u0041""#,
            r#""\ud83d\udca9""#,
            r#""\ud800"#,
            r#""\u12""#,
            r#""\x""#,
            "\"a\u{1}\"",
            "\"abc",
            r#""\ud800\"#,
            r#""\ud800\x""#,
            r#""\ud800\u12""#,
            r#""\ud800\u0041""#,
            r#""\ud800\udbff""#,
            r#""\ud800\ud800""#,
            r#""\ud800x""#,
            r#""\u00e9\u0000""#,
            r#""\uzzzz""#,
            "\":6\u{1}",
            "[\"a\\u0041\u{1}\"]",
            r#"{"a" 1}"#,
            r#"{"a":1,}"#,
            "{1:2}",
            r#"{"a":1 "b":2}"#,
            "[1 2]",
            "\u{feff}{}",
            "123456789012345678901234567890",
            "99999999999999999999",
            "-9223372036854775809",
            "1E400",
            "0.0000001e-400",
            "[\"\\/\\b\\f\\n\\r\\t\"]",
            " [ 1 , { \"a\" : [ ] } ] ",
        ] {
            agree(text.as_bytes(), &d);
        }
        for bytes in [
            &b"\"\xff\""[..],
            b"\xff",
            b"[\"a\xc3\"]",
            b"{\"\xe2\x82\":1}",
            b"[1]\xff",
            b"\":6\xd5,\x01\x02",
            b"\"\xd5",
            b"\"\xd5\\n\"",
            b"\"o\xa3l (\\u0ont\"",
            b"{\"\xa3\\u0041\":1}",
        ] {
            agree(bytes, &d);
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        for max in [0, 1, 2, 32, 126, 127, 128, 1000] {
            let limits = Limits::default().with_max_depth(max);
            for n in [0, 1, 2, 3, 31, 32, 33, 126, 127, 128, 129] {
                agree(deep(n).as_bytes(), &limits);
            }
        }
        agree(b"[1]", &Limits::default().with_max_bytes(2));
        let many: String = (0..1000).map(|i| format!("\"k{i}\":{i},")).collect();
        agree(format!("{{{many}\"k999\":0}}").as_bytes(), &d);
        agree(format!("{{{many}\"z\":0}}").as_bytes(), &d);
        assert!(diffs.is_empty(), "{diffs:#?}");
    }

    #[test]
    fn finds_the_members_it_is_asked_for() {
        let body = br#"{"id":7,"params":{"n\u0061me":"t","arguments":{"params":{"name":1}},"x":[]},"method":"tools/call"}"#;
        let paths: [&[&str]; 5] = [
            &["id"],
            &["method"],
            &["params", "name"],
            &["params", "arguments"],
            &["params", "absent"],
        ];
        let mut found = [None, None, None, None, None];
        scan_strict(body, &Limits::default(), &paths, &mut found).unwrap();
        let text = |range: &Option<Range<usize>>| {
            range
                .clone()
                .map(|range| std::str::from_utf8(&body[range]).unwrap())
        };
        assert_eq!(text(&found[0]), Some("7"));
        assert_eq!(text(&found[1]), Some(r#""tools/call""#));
        assert_eq!(text(&found[2]), Some(r#""t""#));
        assert_eq!(text(&found[3]), Some(r#"{"params":{"name":1}}"#));
        assert_eq!(found[4], None);
        // Only the document's own members: not a `params` nested deeper.
        let nested = br#"{"a":{"params":{"name":"t"}}}"#;
        let mut found = [None];
        scan_strict(
            nested,
            &Limits::default(),
            &[&["params", "name"]],
            &mut found,
        )
        .unwrap();
        assert_eq!(found[0], None);
    }
}
