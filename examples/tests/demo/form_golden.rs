//! Every field kind and the five enum shapes round-trip through emit and
//! parse, against golden files in `examples/tests/golden/forms/`.
//!
//! The files hold the ordered schema text ([`Form::schema`]): properties and
//! `required` in declaration order. Regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p mrtr-guard-examples --test demo form_golden` and review the diff.

#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "a test fails by panicking; inputs are fixed"
)]

use std::path::PathBuf;

use mrtr_guard::form::FormError;
use mrtr_guard::json::JsonError;
use mrtr_guard::{Field, Form};
use serde_json::Value;

/// The demo server's forms (`examples/src/signup_tools.rs`).
use mrtr_guard_examples::signup_tools;

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

/// The form's ordered schema as the golden files hold it.
fn ordered_text(form: &Form) -> String {
    serde_json::to_string_pretty(form.schema()).unwrap_or_else(|e| panic!("{e}")) + "\n"
}

#[test]
fn emit_matches_golden_and_parse_round_trips() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (name, form) in cases() {
        let emitted = ordered_text(&form);
        if update {
            std::fs::write(golden_path(name), &emitted)
                .unwrap_or_else(|e| panic!("write {name}: {e}"));
        }
        // Text, so key order counts: properties and `required` as declared.
        let golden = std::fs::read_to_string(golden_path(name))
            .unwrap_or_else(|e| panic!("golden {name}: {e}"));
        assert_eq!(
            emitted, golden,
            "{name}: emitted schema differs from golden"
        );
        let parsed = Form::from_requested_schema_json(form.message(), &golden)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            parsed, form,
            "{name}: parse(golden) differs from the built form"
        );
        assert_eq!(
            ordered_text(&parsed),
            golden,
            "{name}: emit(parse(golden)) differs"
        );
        // The `Value` forms agree, whatever their key order; parsed from a
        // `Value`, fields come sorted by name, and so does `required`.
        let value = read_golden(name);
        assert_eq!(form.requested_schema(), value, "{name}");
        let from_value = Form::from_requested_schema(form.message(), &value)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            same_order_free(&from_value.requested_schema()),
            same_order_free(&value),
            "{name}"
        );
    }
}

/// A schema `Value` with `required` sorted: what it says, whatever the order.
fn same_order_free(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    }
    schema
}

#[test]
fn the_signup_forms_reach_the_client_in_declaration_order() {
    let forms = signup_tools::forms().unwrap_or_else(|e| panic!("{e}"));
    let team = forms.team.schema().to_json_string();
    assert!(
        team.starts_with(
            r#"{"type":"object","properties":{"teamSize":{"type":"integer","minimum":2,"maximum":500,"title":"Team Size"},"roles":{"type":"array","#
        ),
        "{team}"
    );
    assert!(
        team.ends_with(r#""required":["teamSize","roles"]}"#),
        "{team}"
    );
    let account = forms.account.schema().to_json_string();
    let (email, plan) = (account.find(r#""email""#), account.find(r#""plan""#));
    assert!(email.is_some() && email < plan, "{account}");
    // The order survives a round trip through the text.
    let again = Form::from_requested_schema_json(forms.team.message(), &team)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again, forms.team);
    let names: Vec<&str> = again.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, ["teamSize", "roles"]);
    // A `Value` sorts its keys: that path lists `roles` first, and the
    // built form (declared `teamSize`, `roles`) differs from it in order only.
    let from_value =
        Form::from_requested_schema(forms.team.message(), &forms.team.requested_schema())
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(from_value.fields()[0].name(), "roles");
    assert_eq!(
        same_order_free(&from_value.requested_schema()),
        same_order_free(&forms.team.requested_schema())
    );
}

#[test]
fn schema_text_must_be_strict_json() {
    let dup = r#"{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"integer"}}}"#;
    assert!(matches!(
        Form::from_requested_schema_json("m", dup),
        Err(FormError::Json(JsonError::DuplicateKey { .. }))
    ));
    assert!(matches!(
        Form::from_requested_schema_json("m", r#"{"type":"object","properties":{}} x"#),
        Err(FormError::Json(JsonError::TrailingData { .. }))
    ));
    assert_eq!(
        Form::from_requested_schema_json("m", r#"{"type":"object","properties":[]}"#),
        Err(FormError::BadKeywordValue {
            field: None,
            keyword: "properties"
        })
    );
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
