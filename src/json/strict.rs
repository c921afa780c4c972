//! Strict JSON for untrusted bytes: a byte cap, a depth cap, no duplicate
//! keys, no trailing data, no lone surrogates, no numbers beyond `f64`.
//!
//! `serde_json` keeps the last of two equal keys; another parser may keep the
//! first. Two components reading one body differently is a classic parser
//! differential, so a duplicate key fails the whole document here.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Limits for [`parse_strict`].
///
/// Defaults: 1 MiB (`1_048_576` bytes) and a nesting depth of 32 (the
/// document itself is depth 1; an MCP request with `inputResponses` needs
/// about 7). Depths above 127 are capped by `serde_json`'s own limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    max_bytes: usize,
    max_depth: usize,
}

impl Limits {
    /// The default byte cap: 1 MiB.
    pub const DEFAULT_MAX_BYTES: usize = 1024 * 1024;
    /// The default depth cap: 32.
    pub const DEFAULT_MAX_DEPTH: usize = 32;

    /// The default limits.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            max_bytes: Self::DEFAULT_MAX_BYTES,
            max_depth: Self::DEFAULT_MAX_DEPTH,
        }
    }

    /// Sets the byte cap.
    #[must_use]
    pub const fn with_max_bytes(mut self, n: usize) -> Self {
        self.max_bytes = n;
        self
    }

    /// Sets the depth cap (arrays and objects nested in each other).
    #[must_use]
    pub const fn with_max_depth(mut self, n: usize) -> Self {
        self.max_depth = n;
        self
    }

    /// The byte cap.
    #[must_use]
    pub const fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// The depth cap.
    #[must_use]
    pub const fn max_depth(&self) -> usize {
        self.max_depth
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::new()
    }
}

/// Why untrusted bytes were refused by [`parse_strict`]. Positions are
/// 1-based line and column; no message holds input bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonError {
    /// Longer than the byte cap (checked before parsing).
    TooLarge {
        /// The input length.
        len: usize,
        /// The cap.
        max: usize,
    },
    /// Nested deeper than the depth cap.
    TooDeep {
        /// The cap.
        max: usize,
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// An object has the same key twice.
    DuplicateKey {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// An object key `serde_json` reserves for itself
    /// ([`RESERVED_KEY_PREFIX`]`…`): with its `raw_value` feature (which
    /// this crate turns on, and features unify), `serde_json::Value` reads an
    /// object whose first key is `"$serde_json::private::RawValue"` as the
    /// JSON *text* of its string, so a reader of the body through `Value`
    /// (rmcp, a handler) would see another value than the one checked here.
    ReservedKey {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// Something follows the JSON value.
    TrailingData {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// A `\uXXXX` escape is half of a surrogate pair.
    LoneSurrogate {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// A number beyond the `f64` range (e.g. `1e400`).
    NumberOutOfRange {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// Bytes that are not UTF-8.
    InvalidUtf8 {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// A raw control character (U+0000..U+001F) inside a string.
    ControlCharacter {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// The input ends inside a value.
    UnexpectedEnd {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
    /// Any other syntax error.
    Syntax {
        /// Line.
        line: usize,
        /// Column.
        column: usize,
    },
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, line, column) = match *self {
            Self::TooLarge { len, max } => {
                return write!(f, "json is {len} bytes, more than the {max}-byte limit");
            }
            Self::TooDeep { max, line, column } => {
                return write!(
                    f,
                    "json nests deeper than {max} levels at line {line} column {column}"
                );
            }
            Self::DuplicateKey { line, column } => ("duplicate object key", line, column),
            Self::ReservedKey { line, column } => (
                "object key reserved by serde_json ($serde_json::private::...)",
                line,
                column,
            ),
            Self::TrailingData { line, column } => {
                ("trailing data after the json value", line, column)
            }
            Self::LoneSurrogate { line, column } => {
                ("lone utf-16 surrogate in a \\u escape", line, column)
            }
            Self::NumberOutOfRange { line, column } => {
                ("number out of the f64 range", line, column)
            }
            Self::InvalidUtf8 { line, column } => ("invalid utf-8", line, column),
            Self::ControlCharacter { line, column } => {
                ("raw control character in a string", line, column)
            }
            Self::UnexpectedEnd { line, column } => ("unexpected end of json", line, column),
            Self::Syntax { line, column } => ("json syntax error", line, column),
        };
        write!(f, "{what} at line {line} column {column}")
    }
}

impl std::error::Error for JsonError {}

/// Parses untrusted bytes into a JSON value, strictly.
///
/// ```
/// use mrtr_guard::json::{JsonError, Limits, parse_strict};
///
/// let v = parse_strict(br#"{"action":"accept"}"#, &Limits::default())?;
/// assert_eq!(v["action"], "accept");
/// assert!(matches!(
///     parse_strict(br#"{"a":1,"a":2}"#, &Limits::default()),
///     Err(JsonError::DuplicateKey { .. })
/// ));
/// # Ok::<(), JsonError>(())
/// ```
///
/// # Errors
///
/// One [`JsonError`] per rule: too large (checked before reading), too deep,
/// duplicate key, a key `serde_json` reserves, trailing data, lone surrogate,
/// number out of range, invalid UTF-8, raw control character, unexpected
/// end, other syntax.
pub fn parse_strict(bytes: &[u8], limits: &Limits) -> Result<Value, JsonError> {
    if bytes.len() > limits.max_bytes {
        return Err(JsonError::TooLarge {
            len: bytes.len(),
            max: limits.max_bytes,
        });
    }
    let failure = Cell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let seed = Strict {
        depth_left: limits.max_depth,
        failure: &failure,
    };
    let value = seed
        .deserialize(&mut de)
        .map_err(|e| classify(&e, failure.get(), limits))?;
    de.end().map_err(|e| classify(&e, None, limits))?;
    Ok(value)
}

/// How every object key `serde_json` reserves for itself begins: its
/// `raw_value` feature's `$serde_json::private::RawValue`, its
/// `arbitrary_precision` feature's `$serde_json::private::Number`. Refused
/// in every object of untrusted JSON ([`JsonError::ReservedKey`]).
pub const RESERVED_KEY_PREFIX: &str = "$serde_json::private::";

/// Whether `key` is one `serde_json` reserves ([`RESERVED_KEY_PREFIX`]).
pub(crate) fn is_reserved_key(key: &str) -> bool {
    key.starts_with(RESERVED_KEY_PREFIX)
}

/// A failure our visitor found, kept beside `serde_json`'s error.
#[derive(Debug, Clone, Copy)]
enum AbortReason {
    TooDeep,
    DuplicateKey,
    ReservedKey,
}

fn classify(e: &serde_json::Error, failure: Option<AbortReason>, limits: &Limits) -> JsonError {
    let (line, column) = (e.line(), e.column());
    match failure {
        Some(AbortReason::TooDeep) => {
            return JsonError::TooDeep {
                max: limits.max_depth,
                line,
                column,
            };
        }
        Some(AbortReason::DuplicateKey) => return JsonError::DuplicateKey { line, column },
        Some(AbortReason::ReservedKey) => return JsonError::ReservedKey { line, column },
        None => {}
    }
    let msg = e.to_string();
    if msg.starts_with("trailing characters") {
        JsonError::TrailingData { line, column }
    } else if msg.starts_with("lone leading surrogate")
        || msg.starts_with("unexpected end of hex escape")
    {
        JsonError::LoneSurrogate { line, column }
    } else if msg.starts_with("number out of range") {
        JsonError::NumberOutOfRange { line, column }
    } else if msg.starts_with("recursion limit exceeded") {
        JsonError::TooDeep {
            max: limits.max_depth.min(127),
            line,
            column,
        }
    } else if msg.starts_with("invalid unicode code point") {
        JsonError::InvalidUtf8 { line, column }
    } else if msg.starts_with("control character") {
        JsonError::ControlCharacter { line, column }
    } else if e.is_eof() {
        JsonError::UnexpectedEnd { line, column }
    } else {
        JsonError::Syntax { line, column }
    }
}

/// Builds a `Value`, counting depth and refusing duplicate keys.
struct Strict<'a> {
    depth_left: usize,
    failure: &'a Cell<Option<AbortReason>>,
}

impl Strict<'_> {
    fn fail<E: serde::de::Error>(&self, f: AbortReason) -> E {
        self.failure.set(Some(f));
        E::custom("strict json")
    }

    fn child(&self) -> Option<Strict<'_>> {
        Some(Strict {
            depth_left: self.depth_left.checked_sub(1)?,
            failure: self.failure,
        })
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a json value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let Some(child) = self.child() else {
            return Err(self.fail(AbortReason::TooDeep));
        };
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict {
            depth_left: child.depth_left,
            failure: child.failure,
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Some(child) = self.child() else {
            return Err(self.fail(AbortReason::TooDeep));
        };
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(self.fail(AbortReason::DuplicateKey));
            }
            if is_reserved_key(&key) {
                return Err(self.fail(AbortReason::ReservedKey));
            }
            let v = map.next_value_seed(Strict {
                depth_left: child.depth_left,
                failure: child.failure,
            })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Value, JsonError> {
        parse_strict(s.as_bytes(), &Limits::default())
    }

    #[test]
    fn each_rule_has_its_error() {
        assert!(matches!(
            parse(r#"{"a":1,"a":2}"#),
            Err(JsonError::DuplicateKey { .. })
        ));
        assert!(matches!(parse("{} x"), Err(JsonError::TrailingData { .. })));
        for reserved in [
            r#"{"$serde_json::private::RawValue":"{}"}"#,
            r#"{"a":1,"$serde_json::private::RawValue":"{}"}"#,
            r#"[{"\u0024serde_json::private::RawValue":"{}"}]"#,
            r#"{"$serde_json::private::Number":"1"}"#,
        ] {
            assert!(
                matches!(parse(reserved), Err(JsonError::ReservedKey { .. })),
                "{reserved}"
            );
        }
        // Only the prefix is reserved, and only at the start of a key.
        assert!(parse(r#"{"x$serde_json::private::RawValue":1}"#).is_ok());
        assert!(parse(r#"{"$serde_json::private:":1}"#).is_ok());
        assert!(matches!(
            parse(r#""\ud800""#),
            Err(JsonError::LoneSurrogate { .. })
        ));
        assert!(matches!(
            parse(r#""\udc00""#),
            Err(JsonError::LoneSurrogate { .. })
        ));
        assert!(matches!(
            parse("1e400"),
            Err(JsonError::NumberOutOfRange { .. })
        ));
        assert!(matches!(
            parse("\"a\u{0}\""),
            Err(JsonError::ControlCharacter { .. })
        ));
        assert!(matches!(parse("[1,"), Err(JsonError::UnexpectedEnd { .. })));
        assert!(matches!(parse("[1,]"), Err(JsonError::Syntax { .. })));
        assert!(matches!(
            parse_strict(b"\"\xff\"", &Limits::default()),
            Err(JsonError::InvalidUtf8 { .. })
        ));
        let tiny = Limits::default().with_max_bytes(2);
        assert_eq!(
            parse_strict(b"[1]", &tiny),
            Err(JsonError::TooLarge { len: 3, max: 2 })
        );
    }

    #[test]
    fn depth_is_capped() {
        let limits = Limits::default().with_max_depth(2);
        assert!(parse_strict(b"[[1]]", &limits).is_ok());
        assert!(matches!(
            parse_strict(b"[[[1]]]", &limits),
            Err(JsonError::TooDeep { max: 2, .. })
        ));
        assert!(matches!(
            parse_strict(br#"{"a":{"b":{}}}"#, &limits),
            Err(JsonError::TooDeep { .. })
        ));
        let deep = "[".repeat(10_000);
        assert!(matches!(parse(&deep), Err(JsonError::TooDeep { .. })));
        let limits = Limits::default().with_max_depth(1000);
        assert!(matches!(
            parse_strict(deep.as_bytes(), &limits),
            Err(JsonError::TooDeep { .. })
        ));
        assert!(parse_strict(b"1", &Limits::default().with_max_depth(0)).is_ok());
    }

    #[test]
    fn pairs_and_negative_zero_parse() {
        assert_eq!(parse(r#""\ud83d\udca9""#), Ok(Value::from("💩")));
        assert!(parse("-0").is_ok());
    }
}
