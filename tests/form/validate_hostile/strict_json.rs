//! Strict JSON: depth and size caps, duplicate keys (however spelled),
//! surrogates, control characters, invalid UTF-8, truncation, and what
//! `serde_json` would accept and strict JSON does not.

use mrtr_guard::form::Reason;
use mrtr_guard::json::{JsonError, Limits};

use super::case::Expect::*;
use super::case::{
    Case, acc, is_control, is_dup, is_eof, is_reserved, is_surrogate, is_syntax, is_utf8, raw,
};

pub(super) fn cases() -> Vec<Case> {
    let d = Limits::default();
    let big = Limits::default().with_max_bytes(16 * 1024 * 1024);
    let ten_mb = "x".repeat(10 * 1024 * 1024);
    vec![
        (
            "deep arrays",
            raw(&"[".repeat(10_000)),
            Json(|e| matches!(e, JsonError::TooDeep { .. })),
            d,
        ),
        (
            "deep objects",
            raw(&r#"{"a":"#.repeat(10_000)),
            Json(|e| matches!(e, JsonError::TooDeep { .. })),
            d,
        ),
        (
            "deep value in content",
            acc(&format!(r#""x":{}1{}"#, "[".repeat(40), "]".repeat(40))),
            Json(|e| matches!(e, JsonError::TooDeep { max: 32, .. })),
            d,
        ),
        (
            "10 MB string over the default cap",
            acc(&format!(r#""x":"{ten_mb}""#)),
            Json(|e| matches!(e, JsonError::TooLarge { .. })),
            d,
        ),
        (
            "10 MB name under a raised cap",
            format!(r#"{{"action":"accept","content":{{"name":"{ten_mb}"}}}}"#).into_bytes(),
            Field("name", Reason::TooLong),
            big,
        ),
        // `serde_json::Value` (with `raw_value`, on in this crate) reads an
        // object whose first key is this token as the JSON text of its
        // string: a reader through `Value` would see `{"name":"Eve"}`, or
        // duplicate keys and any depth inside the string, where the tree
        // sees a one-member object. Refused in every object, however spelled.
        (
            "serde_json's raw-value key as the content",
            raw(
                r#"{"action":"accept","content":{"$serde_json::private::RawValue":"{\"name\":\"Eve\",\"name\":\"Ada\"}"}}"#,
            ),
            Json(is_reserved),
            d,
        ),
        (
            "serde_json's raw-value key in a value",
            acc(r#""x":[{"$serde_json::private::RawValue":"1"}]"#),
            Json(is_reserved),
            d,
        ),
        (
            "serde_json's raw-value key after another key",
            acc(r#""x":{"a":1,"$serde_json::private::RawValue":"1"}"#),
            Json(is_reserved),
            d,
        ),
        (
            "serde_json's raw-value key spelled with an escape",
            acc(r#""x":{"\u0024serde_json::private::RawValue":"1"}"#),
            Json(is_reserved),
            d,
        ),
        (
            "serde_json's arbitrary-precision number key",
            acc(r#""x":{"$serde_json::private::Number":"1"}"#),
            Json(is_reserved),
            d,
        ),
        (
            "a key that only holds serde_json's token is an unknown key",
            acc(r#""x$serde_json::private::RawValue":1"#),
            Accepted(1, None),
            d,
        ),
        (
            "duplicate action",
            raw(r#"{"action":"decline","action":"accept"}"#),
            Json(is_dup),
            d,
        ),
        (
            "duplicate content key",
            acc(r#""age":1,"age":2"#),
            Json(is_dup),
            d,
        ),
        (
            "duplicate key via escape",
            acc(r#""n\u0061me":"Eve""#),
            Json(is_dup),
            d,
        ),
        (
            "duplicate content",
            raw(r#"{"action":"accept","content":{},"content":{"name":"A"}}"#),
            Json(is_dup),
            d,
        ),
        (
            "1e400",
            acc(r#""score":1e400"#),
            Json(|e| matches!(e, JsonError::NumberOutOfRange { .. })),
            d,
        ),
        (
            "-1e400",
            acc(r#""score":-1e400"#),
            Json(|e| matches!(e, JsonError::NumberOutOfRange { .. })),
            d,
        ),
        (
            "lone high surrogate",
            acc(r#""email":"\ud800""#),
            Json(is_surrogate),
            d,
        ),
        (
            "lone low surrogate in a key",
            acc(r#""\udc00":1"#),
            Json(is_surrogate),
            d,
        ),
        (
            "reversed surrogate pair",
            acc(r#""email":"\udc00\ud800""#),
            Json(is_surrogate),
            d,
        ),
        (
            "trailing object",
            raw(r#"{"action":"cancel"} {}"#),
            Json(|e| matches!(e, JsonError::TrailingData { .. })),
            d,
        ),
        (
            "trailing garbage",
            raw(r#"{"action":"cancel"}x"#),
            Json(|e| matches!(e, JsonError::TrailingData { .. })),
            d,
        ),
        (
            "trailing whitespace is fine",
            raw("{\"action\":\"cancel\"}\n\t "),
            Cancelled,
            d,
        ),
        (
            "raw NUL byte in a string",
            raw("{\"action\":\"accept\",\"content\":{\"name\":\"A\0\"}}"),
            Json(is_control),
            d,
        ),
        (
            "raw newline in a string",
            raw("{\"action\":\"a\nccept\"}"),
            Json(is_control),
            d,
        ),
        (
            "invalid utf-8",
            b"{\"action\":\"accept\",\"content\":{\"name\":\"\xff\"}}".to_vec(),
            Json(is_utf8),
            d,
        ),
        (
            "overlong utf-8",
            b"{\"action\":\"\xc0\xaf\"}".to_vec(),
            Json(is_utf8),
            d,
        ),
        (
            "truncated",
            raw(r#"{"action":"accept","content":{"#),
            Json(is_eof),
            d,
        ),
        ("empty input", raw(""), Json(is_eof), d),
        (
            "byte order mark",
            b"\xef\xbb\xbf{\"action\":\"cancel\"}".to_vec(),
            Json(is_syntax),
            d,
        ),
        (
            "trailing comma",
            raw(r#"{"action":"cancel",}"#),
            Json(is_syntax),
            d,
        ),
        (
            "single quotes",
            raw("{'action':'cancel'}"),
            Json(is_syntax),
            d,
        ),
        ("NaN literal", acc(r#""score":NaN"#), Json(is_syntax), d),
        (
            "comment",
            raw(r#"{"action":"cancel"/* hi */}"#),
            Json(is_syntax),
            d,
        ),
    ]
}
