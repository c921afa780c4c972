//! The `ElicitResult` envelope (its action and content), and the keys its
//! content holds beyond the form's: stripped, however they look.

use mrtr_guard::form::{Problem, Reason};
use mrtr_guard::json::Limits;
use serde_json::json;

use super::case::Expect::*;
use super::case::{Case, acc, raw};

pub(super) fn cases() -> Vec<Case> {
    let d = Limits::default();
    let many_keys: String = (0..10_000).map(|i| format!(r#""k{i}":1,"#)).collect();
    vec![
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
