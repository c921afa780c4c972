//! Every field kind and the five enum shapes round-trip through emit and
//! parse, against golden files in `tests/golden/forms/`.
//!
//! Regenerate with `UPDATE_GOLDEN=1 cargo test --test form_golden` and review the diff.

#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "a test fails by panicking; inputs are fixed"
)]

use std::path::PathBuf;

use mrtr_guard::{Field, Form};
use serde_json::Value;

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/forms")
        .join(format!("{name}.json"))
}

fn read_golden(name: &str) -> Value {
    let text =
        std::fs::read_to_string(golden_path(name)).unwrap_or_else(|e| panic!("golden {name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("golden {name}: {e}"))
}

fn one(field: Field) -> Form {
    Form::builder("Please answer")
        .field(field)
        .build()
        .unwrap_or_else(|e| panic!("build: {e}"))
}

fn cases() -> Vec<(&'static str, Form)> {
    vec![
        (
            "string",
            one(Field::string("fullName")
                .min_length(1)
                .max_length(100)
                .description("As on your passport")
                .default("Ada Lovelace")
                .required()),
        ),
        (
            "email",
            one(Field::email("email").title("Work email").required()),
        ),
        (
            "uri",
            one(Field::uri("homepage").default("https://example.com/")),
        ),
        ("date", one(Field::date("birthday").default("1815-12-10"))),
        ("date_time", one(Field::date_time("meeting_at").required())),
        (
            "integer",
            one(Field::integer("age")
                .minimum(0)
                .maximum(150)
                .default(30)
                .required()),
        ),
        (
            "number",
            one(Field::number("score")
                .minimum(-1.5)
                .maximum(100)
                .default(95.5)),
        ),
        (
            "boolean",
            one(Field::boolean("subscribe")
                .default(true)
                .description("Send me news")),
        ),
        // The five enum shapes of SEP-1330 (conformance `elicitation-sep1330-enums`).
        (
            "untitled_single",
            one(Field::choice("untitledSingle")
                .options(["option1", "option2", "option3"])
                .required()),
        ),
        (
            "titled_single",
            one(Field::choice("titledSingle")
                .titled_option("value1", "First Option")
                .titled_option("value2", "Second Option")
                .titled_option("value3", "Third Option")
                .default("value2")),
        ),
        (
            "untitled_multi",
            one(Field::multi_choice("untitledMulti")
                .options(["option1", "option2", "option3"])
                .min_items(1)
                .max_items(2)
                .default(vec!["option1"])),
        ),
        (
            "titled_multi",
            one(Field::multi_choice("titledMulti")
                .titled_option("value1", "First Choice")
                .titled_option("value2", "Second Choice")
                .titled_option("value3", "Third Choice")
                .max_items(3)),
        ),
        (
            "all_kinds",
            Form::builder("Everything at once")
                .field(Field::string("name").required())
                .field(Field::email("email").required())
                .field(Field::uri("site"))
                .field(Field::date("day"))
                .field(Field::date_time("when"))
                .field(Field::integer("count").minimum(1))
                .field(Field::number("ratio").maximum(1))
                .field(Field::boolean("ok"))
                .field(Field::choice("color").options(["red", "green"]))
                .field(
                    Field::multi_choice("tags")
                        .titled_option("a", "Alpha")
                        .titled_option("b", "Beta"),
                )
                .build()
                .unwrap_or_else(|e| panic!("build: {e}")),
        ),
    ]
}

#[test]
fn emit_matches_golden_and_parse_round_trips() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (name, form) in cases() {
        let emitted = form.requested_schema();
        if update {
            let text = serde_json::to_string_pretty(&emitted).unwrap_or_default() + "\n";
            std::fs::write(golden_path(name), text).unwrap_or_else(|e| panic!("write {name}: {e}"));
        }
        let golden = read_golden(name);
        assert_eq!(
            emitted, golden,
            "{name}: emitted schema differs from golden"
        );
        let parsed = Form::from_requested_schema(form.message(), &golden)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            parsed, form,
            "{name}: parse(golden) differs from the built form"
        );
        assert_eq!(
            parsed.requested_schema(),
            golden,
            "{name}: emit(parse(golden)) differs"
        );
    }
}

#[test]
fn legacy_enum_names_parse_as_titled_single() {
    let legacy = read_golden("legacy_enum_names");
    let parsed =
        Form::from_requested_schema("Please answer", &legacy).unwrap_or_else(|e| panic!("{e}"));
    let expected = one(Field::choice("legacyEnum")
        .titled_option("opt1", "Option One")
        .titled_option("opt2", "Option Two")
        .titled_option("opt3", "Option Three"));
    assert_eq!(parsed, expected);
    // It is emitted in the current (oneOf) shape, which parses back to the same form.
    let emitted = parsed.requested_schema();
    assert_eq!(emitted, read_golden("legacy_enum_names.emitted"));
    assert_eq!(
        Form::from_requested_schema("Please answer", &emitted),
        Ok(parsed)
    );
}

#[test]
fn required_is_omitted_when_empty() {
    let schema = one(Field::boolean("ok")).requested_schema();
    assert!(schema.get("required").is_none());
}
