//! Hostile input: every case gets its documented outcome, never a panic.
//!
//! Each case is raw bytes, parsed with `parse_strict` (default limits unless
//! stated) and, when that succeeds, validated against one form.

#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "a test fails by panicking; inputs are fixed"
)]

use mrtr_guard::form::{Problem, Reason, Verdict};
use mrtr_guard::json::{JsonError, Limits, parse_strict};
use mrtr_guard::{Field, Form};
use serde_json::{Value, json};

fn form() -> Form {
    Form::builder("Hostile")
        .field(Field::string("name").max_length(20).required())
        .field(Field::integer("age").minimum(0).maximum(150))
        .field(Field::integer("n"))
        .field(Field::number("score"))
        .field(Field::boolean("ok"))
        .field(Field::email("email"))
        .field(Field::date("day"))
        .field(
            Field::choice("color")
                .titled_option("#FF0000", "Red")
                .titled_option("#00FF00", "Green"),
        )
        // U+00B5 MICRO SIGN; the Greek U+03BC looks the same.
        .field(Field::choice("unit").options(["\u{b5}", "m"]))
        .field(
            Field::multi_choice("tags")
                .options(["a", "b", "c"])
                .max_items(2),
        )
        .field(
            Field::multi_choice("once")
                .options(["x", "y"])
                .refuse_duplicates(),
        )
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

#[derive(Debug)]
enum Expect {
    /// `parse_strict` refuses the bytes.
    Json(fn(&JsonError) -> bool),
    /// Accepted, nothing refused; `usize` unknown keys stripped; optional check of to_json.
    Accepted(usize, Option<Value>),
    /// Accepted, nothing refused, duplicates removed from this field; the content.
    Deduped(&'static str, Value),
    /// Accepted, this optional field dropped for this reason.
    Dropped(&'static str, Reason),
    /// Invalid: this required field for this reason.
    Field(&'static str, Reason),
    /// Invalid as a whole.
    Whole(Problem),
    Declined,
    Cancelled,
}

/// An accept with a valid required `name` plus `extra` members.
fn acc(extra: &str) -> Vec<u8> {
    let sep = if extra.is_empty() { "" } else { "," };
    format!(r#"{{"action":"accept","content":{{"name":"Ada"{sep}{extra}}}}}"#).into_bytes()
}

fn raw(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

fn cases() -> Vec<(&'static str, Vec<u8>, Expect, Limits)> {
    use Expect::*;
    let d = Limits::default();
    let big = Limits::default().with_max_bytes(16 * 1024 * 1024);
    let ten_mb = "x".repeat(10 * 1024 * 1024);
    let tags_flood = format!(r#""tags":[{}"a"]"#, "\"a\",".repeat(100_000));
    let once_flood = format!(r#""once":[{}"x"]"#, "\"x\",".repeat(100_000));
    let many_keys: String = (0..10_000).map(|i| format!(r#""k{i}":1,"#)).collect();
    vec![
        // --- strict JSON ---
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
        // --- the ElicitResult envelope ---
        (
            "ACCEPT upper case",
            raw(r#"{"action":"ACCEPT","content":{"name":"A"}}"#),
            Whole(Problem::BadAction),
            d,
        ),
        (
            "Accept capitalised",
            raw(r#"{"action":"Accept","content":{"name":"A"}}"#),
            Whole(Problem::BadAction),
            d,
        ),
        (
            "action ok",
            raw(r#"{"action":"ok"}"#),
            Whole(Problem::BadAction),
            d,
        ),
        (
            "action with a space",
            raw(r#"{"action":" accept"}"#),
            Whole(Problem::BadAction),
            d,
        ),
        (
            "action with an escaped NUL",
            raw(r#"{"action":"accept\u0000"}"#),
            Whole(Problem::BadAction),
            d,
        ),
        (
            "action null",
            raw(r#"{"action":null}"#),
            Whole(Problem::BadAction),
            d,
        ),
        (
            "action number",
            raw(r#"{"action":1}"#),
            Whole(Problem::BadAction),
            d,
        ),
        (
            "action array",
            raw(r#"{"action":["accept"]}"#),
            Whole(Problem::BadAction),
            d,
        ),
        (
            "missing action with content",
            raw(r#"{"content":{"name":"Ada"}}"#),
            Cancelled,
            d,
        ),
        (
            "decline with invalid content",
            raw(r#"{"action":"decline","content":{"name":[1]}}"#),
            Declined,
            d,
        ),
        (
            "decline with content not an object",
            raw(r#"{"action":"decline","content":5}"#),
            Declined,
            d,
        ),
        (
            "cancel with content",
            raw(r#"{"action":"cancel","content":{"name":"Ada"}}"#),
            Cancelled,
            d,
        ),
        (
            "result is an array",
            raw(r#"[{"action":"accept"}]"#),
            Whole(Problem::NotAnObject),
            d,
        ),
        (
            "result is a string",
            raw(r#""accept""#),
            Whole(Problem::NotAnObject),
            d,
        ),
        (
            "result is null",
            raw("null"),
            Whole(Problem::NotAnObject),
            d,
        ),
        (
            "content null",
            raw(r#"{"action":"accept","content":null}"#),
            Whole(Problem::ContentNotObject),
            d,
        ),
        (
            "content array",
            raw(r#"{"action":"accept","content":[["name","Ada"]]}"#),
            Whole(Problem::ContentNotObject),
            d,
        ),
        (
            "content string",
            raw(r#"{"action":"accept","content":"name=Ada"}"#),
            Whole(Problem::ContentNotObject),
            d,
        ),
        (
            "accept without content",
            raw(r#"{"action":"accept"}"#),
            Field("name", Reason::Missing),
            d,
        ),
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
        // --- choices ---
        (
            "title instead of const",
            acc(r#""color":"Red""#),
            Dropped("color", Reason::NotOffered),
            d,
        ),
        (
            "const with other case",
            acc(r##""color":"#ff0000""##),
            Dropped("color", Reason::NotOffered),
            d,
        ),
        (
            "const with a trailing space",
            acc(r##""color":"#FF0000 ""##),
            Dropped("color", Reason::NotOffered),
            d,
        ),
        (
            "fullwidth number sign",
            acc(r#""color":"\uff03FF0000""#),
            Dropped("color", Reason::NotOffered),
            d,
        ),
        (
            "Greek mu for micro sign",
            acc(r#""unit":"\u03bc""#),
            Dropped("unit", Reason::NotOffered),
            d,
        ),
        (
            "micro sign exact",
            acc(r#""unit":"\u00b5""#),
            Accepted(0, Some(json!({"name":"Ada","unit":"\u{b5}"}))),
            d,
        ),
        (
            "choice as array",
            acc(r##""color":["#FF0000"]"##),
            Dropped("color", Reason::WrongType),
            d,
        ),
        (
            "multi duplicates are removed, the first kept",
            acc(r#""tags":["b","a","b","a"]"#),
            Deduped("tags", json!({"name":"Ada","tags":["b","a"]})),
            d,
        ),
        (
            "multi duplicates counted after removal",
            acc(r#""tags":["a","b","a","b","a"]"#),
            Deduped("tags", json!({"name":"Ada","tags":["a","b"]})),
            d,
        ),
        (
            "multi duplicates refused when the field says so",
            acc(r#""once":["x","x"]"#),
            Dropped("once", Reason::DuplicateItem),
            d,
        ),
        (
            "multi refusing duplicates takes distinct items",
            acc(r#""once":["y","x"]"#),
            Accepted(0, Some(json!({"name":"Ada","once":["y","x"]}))),
            d,
        ),
        (
            "multi not offered",
            acc(r#""tags":["a","z"]"#),
            Dropped("tags", Reason::NotOffered),
            d,
        ),
        (
            "multi too many",
            acc(r#""tags":["a","b","c"]"#),
            Dropped("tags", Reason::TooManyItems),
            d,
        ),
        (
            "multi as string",
            acc(r#""tags":"a""#),
            Dropped("tags", Reason::WrongType),
            d,
        ),
        (
            "multi with a number",
            acc(r#""tags":[1]"#),
            Dropped("tags", Reason::WrongType),
            d,
        ),
        (
            "multi with null",
            acc(r#""tags":[null]"#),
            Dropped("tags", Reason::WrongType),
            d,
        ),
        (
            "multi with a nested array",
            acc(r#""tags":[["a"]]"#),
            Dropped("tags", Reason::WrongType),
            d,
        ),
        (
            "multi flood of 100k items",
            acc(&tags_flood),
            Deduped("tags", json!({"name":"Ada","tags":["a"]})),
            d,
        ),
        (
            "multi flood of 100k items, duplicates refused",
            acc(&once_flood),
            Dropped("once", Reason::DuplicateItem),
            d,
        ),
        (
            "multi empty is fine",
            acc(r#""tags":[]"#),
            Accepted(0, None),
            d,
        ),
        // --- keys ---
        (
            "prototype keys",
            acc(r#""__proto__":{"admin":true},"constructor":1,"toString":"x""#),
            Accepted(3, Some(json!({"name":"Ada"}))),
            d,
        ),
        (
            "10k unknown keys",
            acc(many_keys.trim_end_matches(',')),
            Accepted(10_000, Some(json!({"name":"Ada"}))),
            d,
        ),
        (
            "look-alike key",
            acc(r#""n\u0430me":"Eve""#),
            Accepted(1, Some(json!({"name":"Ada"}))),
            d,
        ),
        (
            "nested object under an unknown key",
            acc(r#""extra":{"a":{"b":[1,2,{"c":null}]}}"#),
            Accepted(1, None),
            d,
        ),
        (
            "everything valid",
            acc(
                r##""age":36,"score":9.5,"ok":false,"email":"ada@example.com","day":"1815-12-10","color":"#00FF00","tags":["c","a"]"##,
            ),
            Accepted(0, None),
            d,
        ),
    ]
}

fn is_dup(e: &JsonError) -> bool {
    matches!(e, JsonError::DuplicateKey { .. })
}
fn is_surrogate(e: &JsonError) -> bool {
    matches!(e, JsonError::LoneSurrogate { .. })
}
fn is_control(e: &JsonError) -> bool {
    matches!(e, JsonError::ControlCharacter { .. })
}
fn is_utf8(e: &JsonError) -> bool {
    matches!(e, JsonError::InvalidUtf8 { .. })
}
fn is_eof(e: &JsonError) -> bool {
    matches!(e, JsonError::UnexpectedEnd { .. })
}
fn is_syntax(e: &JsonError) -> bool {
    matches!(e, JsonError::Syntax { .. })
}

fn check(name: &str, form: &Form, bytes: &[u8], expect: &Expect, limits: &Limits) {
    let parsed = parse_strict(bytes, limits);
    let outcome = match (&parsed, expect) {
        (Err(e), Expect::Json(ok)) => {
            assert!(ok(e), "{name}: wrong json error {e:?}");
            return;
        }
        (Err(e), _) => panic!("{name}: unexpected json error {e:?}"),
        (Ok(_), Expect::Json(_)) => panic!("{name}: parsed, expected a json error"),
        (Ok(v), _) => form.validate(v),
    };
    match (expect, &outcome) {
        (Expect::Accepted(stripped, json), Verdict::Accepted(a)) => {
            assert!(a.report().issues().is_empty(), "{name}: {}", a.report());
            assert_eq!(a.report().stripped_count(), *stripped, "{name}");
            if let Some(json) = json {
                assert_eq!(&a.to_json(), json, "{name}");
            }
        }
        (Expect::Deduped(field, json), Verdict::Accepted(a)) => {
            assert!(a.report().issues().is_empty(), "{name}: {}", a.report());
            assert_eq!(a.report().deduplicated(), [*field], "{name}");
            assert!(!a.report().is_clean(), "{name}");
            assert_eq!(&a.to_json(), json, "{name}");
        }
        (Expect::Dropped(field, reason), Verdict::Accepted(a)) => {
            let issues = a.report().issues();
            assert_eq!(issues.len(), 1, "{name}: {}", a.report());
            assert_eq!(
                (issues[0].field(), issues[0].reason()),
                (*field, *reason),
                "{name}"
            );
            assert!(!issues[0].is_required(), "{name}");
            assert!(!a.contains(field), "{name}: dropped field still present");
        }
        (Expect::Field(field, reason), Verdict::Invalid(r)) => {
            assert_eq!(r.problem(), None, "{name}");
            assert_eq!(r.reason(field), Some(*reason), "{name}: {r}");
        }
        (Expect::Whole(p), Verdict::Invalid(r)) => assert_eq!(r.problem(), Some(*p), "{name}"),
        (Expect::Declined, Verdict::Declined) | (Expect::Cancelled, Verdict::Cancelled) => {}
        _ => panic!("{name}: expected {expect:?}, got {outcome:?}"),
    }
}

#[test]
fn hostile_cases_get_their_documented_outcome() {
    let form = form();
    let cases = cases();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    for (name, bytes, expect, limits) in &cases {
        check(name, &form, bytes, expect, limits);
    }
    println!("hostile cases: {}", cases.len());
}

#[test]
fn missing_response_and_bad_input_responses() {
    let form = form();
    assert_eq!(
        form.validate_response(&json!({"other": {"action": "accept"}}), "ship"),
        Verdict::Missing
    );
    assert_eq!(
        form.validate_response(&json!({"ship": {"action": "decline"}}), "ship"),
        Verdict::Declined
    );
    for bad in [json!(null), json!("x"), json!([]), json!(12345)] {
        let Verdict::Invalid(r) = form.validate_response(&bad, "ship") else {
            panic!("{bad}")
        };
        assert_eq!(r.problem(), Some(Problem::ResponsesNotAnObject));
    }
    let Verdict::Invalid(r) = form.validate_response(&json!({"ship": 12345}), "ship") else {
        panic!()
    };
    assert_eq!(r.problem(), Some(Problem::NotAnObject));
}

#[test]
fn reports_never_contain_submitted_values() {
    let form = form();
    let secret = "sk-live-SECRET-7f3a9c";
    let result = json!({
        "action": "accept",
        "content": {
            "name": format!("{secret}{secret}"),
            "age": secret,
            "email": secret,
            "color": secret,
            "tags": [secret],
            "unknown": secret,
        }
    });
    let outcome = form.validate(&result);
    let Verdict::Invalid(report) = &outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(report.reason("name"), Some(Reason::TooLong));
    assert_eq!(report.stripped(), ["unknown"]);
    for text in [
        report.to_string(),
        format!("{report:?}"),
        format!("{outcome:?}"),
        format!("{report:#?}"),
    ] {
        assert!(!text.contains("SECRET"), "report leaks a value: {text}");
    }
    // Accepted answers print field names only.
    let ok = form.validate(&json!({"action": "accept", "content": {"name": "SECRET"}}));
    assert!(!format!("{ok:?}").contains("SECRET"));
}
