//! Choices: options matched exactly (no case folding, no normalisation),
//! item counts, duplicates refused or removed, floods.

use mrtr_guard::form::Reason;
use mrtr_guard::json::Limits;
use serde_json::json;

use super::case::Expect::*;
use super::case::{Case, acc};

pub(super) fn cases() -> Vec<Case> {
    let d = Limits::default();
    let tags_flood = format!(r#""tags":[{}"a"]"#, "\"a\",".repeat(100_000));
    let once_flood = format!(r#""once":[{}"x"]"#, "\"x\",".repeat(100_000));
    vec![
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
    ]
}
