//! A field's value: numbers (range, integer-ness, precision), types, and
//! strings (length in code points, formats).

use mrtr_guard::form::Reason;
use mrtr_guard::json::Limits;
use serde_json::json;

use super::case::Expect::*;
use super::case::{Case, acc, raw};

pub(super) fn cases() -> Vec<Case> {
    let d = Limits::default();
    vec![
        // --- numbers ---
        (
            "-0 is 0",
            acc(r#""age":-0,"score":-0.0"#),
            Accepted(0, Some(json!({"name":"Ada","age":0,"score":0}))),
            d,
        ),
        (
            "1.0 is an integer",
            acc(r#""age":1.0"#),
            Accepted(0, Some(json!({"name":"Ada","age":1}))),
            d,
        ),
        (
            "1e2 is an integer",
            acc(r#""age":1e2"#),
            Accepted(0, Some(json!({"name":"Ada","age":100}))),
            d,
        ),
        (
            "1.5 is not an integer",
            acc(r#""age":1.5"#),
            Dropped("age", Reason::NotAnInteger),
            d,
        ),
        (
            "2^63 is within u64",
            acc(r#""n":9223372036854775808"#),
            Accepted(
                0,
                Some(json!({"name":"Ada","n":9_223_372_036_854_775_808_u64})),
            ),
            d,
        ),
        (
            "-2^63-1 is beyond i64",
            acc(r#""n":-9223372036854775809"#),
            Dropped("n", Reason::OutOfRange),
            d,
        ),
        (
            "u64::MAX",
            acc(r#""n":18446744073709551615"#),
            Accepted(0, Some(json!({"name":"Ada","n":u64::MAX}))),
            d,
        ),
        (
            "2^64 is beyond u64",
            acc(r#""n":18446744073709551616"#),
            Dropped("n", Reason::OutOfRange),
            d,
        ),
        (
            "2^52 + 1.5 in float syntax is not read as 2^52 + 2",
            acc(r#""n":4503599627370497.5"#),
            Dropped("n", Reason::OutOfRange),
            d,
        ),
        (
            "-(2^52 + 1.5) in float syntax",
            acc(r#""n":-4503599627370497.5"#),
            Dropped("n", Reason::OutOfRange),
            d,
        ),
        (
            "2^53 in float syntax",
            acc(r#""n":9007199254740992.0"#),
            Dropped("n", Reason::OutOfRange),
            d,
        ),
        (
            "2^52 in float syntax",
            acc(r#""n":4503599627370496.0"#),
            Dropped("n", Reason::OutOfRange),
            d,
        ),
        (
            "2^52 - 0.5 in float syntax is a fraction",
            acc(r#""n":4503599627370495.5"#),
            Dropped("n", Reason::NotAnInteger),
            d,
        ),
        (
            "2^52 - 1 in float syntax is whole",
            acc(r#""n":4503599627370495.0"#),
            Accepted(0, Some(json!({"name":"Ada","n":4_503_599_627_370_495_i64}))),
            d,
        ),
        (
            "2^53 + 1 in integer syntax is exact",
            acc(r#""n":9007199254740993"#),
            Accepted(0, Some(json!({"name":"Ada","n":9_007_199_254_740_993_i64}))),
            d,
        ),
        (
            "1e300 as integer",
            acc(r#""n":1e300"#),
            Dropped("n", Reason::OutOfRange),
            d,
        ),
        (
            "i64::MIN exact",
            acc(r#""n":-9223372036854775808"#),
            Accepted(0, None),
            d,
        ),
        (
            "age above maximum",
            acc(r#""age":151"#),
            Dropped("age", Reason::AboveMaximum),
            d,
        ),
        (
            "age below minimum",
            acc(r#""age":-1"#),
            Dropped("age", Reason::BelowMinimum),
            d,
        ),
        (
            "number as string",
            acc(r#""score":"1""#),
            Dropped("score", Reason::WrongType),
            d,
        ),
        // --- types ---
        (
            "array where a string belongs",
            raw(r#"{"action":"accept","content":{"name":["Ada"]}}"#),
            Field("name", Reason::WrongType),
            d,
        ),
        (
            "object where a string belongs",
            raw(r#"{"action":"accept","content":{"name":{"v":"Ada"}}}"#),
            Field("name", Reason::WrongType),
            d,
        ),
        (
            "null name",
            raw(r#"{"action":"accept","content":{"name":null}}"#),
            Field("name", Reason::Null),
            d,
        ),
        (
            "true as a string",
            raw(r#"{"action":"accept","content":{"name":true}}"#),
            Field("name", Reason::WrongType),
            d,
        ),
        (
            "null optional",
            acc(r#""age":null"#),
            Dropped("age", Reason::Null),
            d,
        ),
        (
            "\"true\" as boolean",
            acc(r#""ok":"true""#),
            Dropped("ok", Reason::WrongType),
            d,
        ),
        (
            "1 as boolean",
            acc(r#""ok":1"#),
            Dropped("ok", Reason::WrongType),
            d,
        ),
        // --- strings ---
        (
            "21 code points",
            raw(r#"{"action":"accept","content":{"name":"aaaaaaaaaaaaaaaaaaaaa"}}"#),
            Field("name", Reason::TooLong),
            d,
        ),
        (
            "20 emoji fit 20 code points",
            raw(&format!(
                r#"{{"action":"accept","content":{{"name":"{}"}}}}"#,
                "\u{1F4A9}".repeat(20)
            )),
            Accepted(0, None),
            d,
        ),
        (
            "escaped NUL is text",
            raw(r#"{"action":"accept","content":{"name":"A\u0000B"}}"#),
            Accepted(0, None),
            d,
        ),
        (
            "email with a display name",
            acc(r#""email":"Ada <ada@example.com>""#),
            Dropped("email", Reason::BadFormat),
            d,
        ),
        (
            "email with a NUL",
            acc(r#""email":"ada\u0000@example.com""#),
            Dropped("email", Reason::BadFormat),
            d,
        ),
        (
            "two emails",
            acc(r#""email":"a@example.com, b@example.com""#),
            Dropped("email", Reason::BadFormat),
            d,
        ),
        (
            "no such date",
            acc(r#""day":"2021-02-29""#),
            Dropped("day", Reason::BadFormat),
            d,
        ),
        (
            "date with Bengali digit",
            acc(r#""day":"2020-01-0\u09ea""#),
            Dropped("day", Reason::BadFormat),
            d,
        ),
    ]
}
