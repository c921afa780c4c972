//! The strict JSON entry and the form validator on hostile input.
//!
//! Input: `len(2, little-endian) | schema bytes | answer bytes`.
//! - Schema bytes go through `parse_strict` and `Form::from_requested_schema`;
//!   a form that builds emits a `requestedSchema` that parses back to the same
//!   form (one source).
//! - Answer bytes go through `parse_strict` and `Form::validate`, against that
//!   form or, when the schema did not build, a fixed form with every field
//!   kind. Nothing panics, and accepted answers validate again to themselves
//!   with a clean report.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run validate` (see CONTRIBUTING.md).

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use mrtr_guard::Form;
use mrtr_guard::form::Verdict;
use mrtr_guard::json::{Limits, parse_strict};
use serde_json::{Value, json};

/// Every field kind and enum shape of the MCP form profile.
static EVERY_KIND: LazyLock<Form> = LazyLock::new(|| {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 20},
            "email": {"type": "string", "format": "email"},
            "site": {"type": "string", "format": "uri"},
            "day": {"type": "string", "format": "date"},
            "at": {"type": "string", "format": "date-time"},
            "count": {"type": "integer", "minimum": -5, "maximum": 100},
            "ratio": {"type": "number", "minimum": 0, "maximum": 1.5},
            "ok": {"type": "boolean", "default": false},
            "plain": {"type": "string", "enum": ["a", "b", "é"]},
            "titled": {"type": "string", "oneOf": [
                {"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]},
            "legacy": {"type": "string", "enum": ["p", "q"], "enumNames": ["Pe", "Qu"]},
            "many": {"type": "array", "minItems": 1, "maxItems": 2,
                     "items": {"type": "string", "enum": ["r", "s", "t"]}},
            "tagged": {"type": "array",
                       "items": {"anyOf": [{"const": "u", "title": "You"}, {"const": "v", "title": "Vee"}]}}
        },
        "required": ["name", "count"]
    });
    Form::from_requested_schema("Every kind", &schema).unwrap()
});

fuzz_target!(|data: &[u8]| {
    let Some((len, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let split = usize::from(u16::from_le_bytes(*len)).min(rest.len());
    let (schema_bytes, answer_bytes) = rest.split_at(split);
    let limits = Limits::new();

    let parsed_form = parse_strict(schema_bytes, &limits)
        .ok()
        .and_then(|schema| Form::from_requested_schema("Fuzzed", &schema).ok());
    if let Some(form) = &parsed_form {
        let emitted = form.requested_schema();
        let again = Form::from_requested_schema(form.message(), &emitted)
            .unwrap_or_else(|error| panic!("an emitted schema does not parse back: {error}"));
        assert_eq!(
            again.requested_schema(),
            emitted,
            "emit/parse is not stable"
        );
    }
    let form = parsed_form.as_ref().unwrap_or(&EVERY_KIND);

    let Ok(answer) = parse_strict(answer_bytes, &limits) else {
        return;
    };
    check(form, &answer);
    // The same bytes as the content of an accept, so content is reached often.
    check(form, &json!({"action": "accept", "content": answer}));
});

fn check(form: &Form, result: &Value) {
    if let Verdict::Accepted(answers) = form.validate(result) {
        let content = answers.to_json();
        let again = json!({"action": "accept", "content": content});
        match form.validate(&again) {
            Verdict::Accepted(second) => {
                assert_eq!(second.to_json(), content, "accepted answers changed");
                assert!(
                    second.report().is_clean(),
                    "accepted answers re-validate with issues"
                );
            }
            _ => panic!("accepted answers do not validate again"),
        }
    }
}
