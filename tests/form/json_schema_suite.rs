//! Runs the JSON-Schema-Test-Suite subset in `tests/data/json-schema-test-suite`
//! through forms.
//!
//! As that folder's README says: each leaf schema `S` becomes a one-field form
//! `{"type":"object","properties":{"v": S + type},"required":["v"]}` with
//! content `{"v": data}`; an object schema (with `properties`/`required`) is
//! used as the form itself, its untyped properties adapted the same way.
//! Tests whose data is not of the field's JSON type are skipped when the
//! runner added the type (in the profile they are type errors, not "ignored").
//! A case the form profile cannot express (the parser refuses the adapted
//! schema) is skipped whole, with the parser's reason printed.
//!
//! Adaptations, all meaning-preserving: `$schema`/`$comment` are dropped; a
//! string `const` becomes a one-option `enum`; a numeric `const` becomes
//! `minimum` = `maximum`. A test is "valid" when the answer is accepted with
//! no field refused (stripped unknown keys are fine: JSON Schema allows them).
//!
//! Deliberate deviations are counted on their own, each with its reason:
//! integer fields hold `i64::MIN..=u64::MAX`, so a 50-digit "bignum integer"
//! is out of range by design (a whole case, skipped); and the default `email`
//! format takes the addresses a person types, so the suite's quoted local
//! parts and address literals, valid RFC 5321 mailboxes, are refused (five
//! tests, each checked to be refused; `Format::EmailRfc5321` accepts them,
//! `tests/form/formats.rs`).

#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "a test fails by panicking; inputs are fixed"
)]

use std::fmt::Write as _;
use std::path::Path;

use mrtr_guard::Form;
use mrtr_guard::form::Verdict;
use serde_json::{Map, Value, json};

const ROOT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/json-schema-test-suite"
);

const KEYWORD_FILES: &[&str] = &[
    "const.json",
    "default.json",
    "enum.json",
    "maxItems.json",
    "maxLength.json",
    "maximum.json",
    "minItems.json",
    "minLength.json",
    "minimum.json",
    "properties.json",
    "required.json",
    "type.json",
    "optional/bignum.json",
];

const FORMAT_FILES: &[&str] = &[
    "optional/format/date-time.json",
    "optional/format/date.json",
    "optional/format/email.json",
    "optional/format/uri.json",
];

/// Cases that are expressible but deliberately decided otherwise.
const DEVIATIONS: &[(&str, &str, &str)] = &[(
    "optional/bignum.json",
    "integer",
    "integer fields hold i64::MIN..=u64::MAX by design",
)];

/// Single tests decided otherwise (file, test description, why): each must
/// get the opposite of the suite's verdict, or the test fails.
const TEST_DEVIATIONS: &[(&str, &str, &str)] = &[
    (
        "optional/format/email.json",
        "a quoted string with a space in the local part is valid",
        EMAIL_AS_TYPED,
    ),
    (
        "optional/format/email.json",
        "a quoted string with a double dot in the local part is valid",
        EMAIL_AS_TYPED,
    ),
    (
        "optional/format/email.json",
        "a quoted string with a @ in the local part is valid",
        EMAIL_AS_TYPED,
    ),
    (
        "optional/format/email.json",
        "an IPv4-address-literal after the @ is valid",
        EMAIL_AS_TYPED,
    ),
    (
        "optional/format/email.json",
        "an IPv6-address-literal after the @ is valid",
        EMAIL_AS_TYPED,
    ),
];

const EMAIL_AS_TYPED: &str = "the default email format is an address a person types; \
                              RFC 5321's whole grammar is Format::EmailRfc5321";

#[derive(Default)]
struct Tally {
    ran: usize,
    passed: usize,
    failed: Vec<String>,
    skipped_cases: usize,
    skipped_tests: usize,
    deviations: usize,
    log: String,
}

/// The JSON type the runner added to a field, used to skip data of another type.
#[derive(Clone, Copy, PartialEq)]
enum Added {
    Nothing,
    String,
    Number,
    Array,
}

impl Added {
    fn fits(self, data: &Value) -> bool {
        match self {
            Self::Nothing => true,
            Self::String => data.is_string(),
            Self::Number => data.is_number(),
            Self::Array => data.is_array(),
        }
    }
}

/// `S + type` for a leaf schema, or why it cannot be expressed.
fn adapt_leaf(schema: &Value) -> Result<(Value, Added), String> {
    let mut s: Map<String, Value> = schema.as_object().ok_or("boolean schema")?.clone();
    s.remove("$schema");
    s.remove("$comment");
    let mut added = Added::Nothing;
    if let Some(c) = s.remove("const") {
        match c {
            Value::String(_) => {
                s.insert("enum".into(), json!([c]));
            }
            Value::Number(_) => {
                s.insert("minimum".into(), c.clone());
                s.insert("maximum".into(), c);
                if !s.contains_key("type") {
                    s.insert("type".into(), "number".into());
                    added = Added::Number;
                }
            }
            _ => return Err("const of a type the profile has no constant for".into()),
        }
    }
    if !s.contains_key("type") {
        let has = |k: &str| s.contains_key(k);
        let (ty, a) = if has("enum") {
            let all_strings = s
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|e| e.iter().all(Value::is_string));
            if !all_strings {
                return Err("enum of non-strings".into());
            }
            ("string", Added::String)
        } else if has("minLength") || has("maxLength") || has("format") {
            ("string", Added::String)
        } else if has("minimum") || has("maximum") {
            ("number", Added::Number)
        } else if has("minItems") || has("maxItems") {
            ("array", Added::Array)
        } else {
            return Err("no keyword of the profile to infer a type from".into());
        };
        s.insert("type".into(), ty.into());
        added = a;
    }
    Ok((Value::Object(s), added))
}

enum Adapted {
    Leaf(Form, Added),
    Object(Form, Vec<(String, Added)>),
}

fn adapt(schema: &Value) -> Result<Adapted, String> {
    let obj = schema.as_object().ok_or("boolean schema")?;
    let is_object_schema = obj.contains_key("properties") || obj.contains_key("required");
    if !is_object_schema {
        let (leaf, added) = adapt_leaf(schema)?;
        let form_schema = json!({"type": "object", "properties": {"v": leaf}, "required": ["v"]});
        let form = Form::from_requested_schema("suite", &form_schema).map_err(|e| e.to_string())?;
        return Ok(Adapted::Leaf(form, added));
    }
    let mut s = obj.clone();
    s.remove("$schema");
    s.remove("$comment");
    s.entry("type").or_insert_with(|| "object".into());
    let mut added = Vec::new();
    if let Some(Value::Object(props)) = s.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            let (leaf, a) = adapt_leaf(prop).map_err(|e| format!("property {name:?}: {e}"))?;
            *prop = leaf;
            added.push((name.clone(), a));
        }
    }
    let form =
        Form::from_requested_schema("suite", &Value::Object(s)).map_err(|e| e.to_string())?;
    Ok(Adapted::Object(form, added))
}

fn accepted_clean(form: &Form, content: Value) -> bool {
    match form.validate(&json!({"action": "accept", "content": content})) {
        Verdict::Accepted(a) => a.report().issues().is_empty(),
        _ => false,
    }
}

fn run_file(rel: &str, t: &mut Tally) {
    let path = Path::new(ROOT).join(rel);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let cases: Vec<Value> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {rel}: {e}"));
    let (mut ran, mut passed, mut skipped) = (0, 0, 0);
    for case in &cases {
        let desc = case["description"].as_str().unwrap_or("?");
        let tests = case["tests"].as_array().map_or(&[][..], Vec::as_slice);
        if let Some((_, _, why)) = DEVIATIONS.iter().find(|(f, d, _)| *f == rel && *d == desc) {
            t.deviations += tests.len();
            let _ = writeln!(
                t.log,
                "  deviation {rel} / {desc}: {why} ({} tests)",
                tests.len()
            );
            continue;
        }
        let adapted = match adapt(&case["schema"]) {
            Ok(a) => a,
            Err(why) => {
                t.skipped_cases += 1;
                t.skipped_tests += tests.len();
                skipped += tests.len();
                let _ = writeln!(
                    t.log,
                    "  skipped {rel} / {desc}: {why} ({} tests)",
                    tests.len()
                );
                continue;
            }
        };
        for test in tests {
            let data = &test["data"];
            let expected = test["valid"].as_bool().unwrap_or(false);
            let got = match &adapted {
                Adapted::Leaf(form, added) => {
                    if !added.fits(data) {
                        t.skipped_tests += 1;
                        skipped += 1;
                        continue;
                    }
                    accepted_clean(form, json!({"v": data}))
                }
                Adapted::Object(form, added) => {
                    let Some(obj) = data.as_object() else {
                        t.skipped_tests += 1;
                        skipped += 1;
                        continue;
                    };
                    if added
                        .iter()
                        .any(|(k, a)| obj.get(k).is_some_and(|v| !a.fits(v)))
                    {
                        t.skipped_tests += 1;
                        skipped += 1;
                        continue;
                    }
                    accepted_clean(form, data.clone())
                }
            };
            let name = test["description"].as_str().unwrap_or("?");
            if let Some((_, _, why)) = TEST_DEVIATIONS
                .iter()
                .find(|(f, d, _)| *f == rel && *d == name)
            {
                t.deviations += 1;
                let _ = writeln!(t.log, "  deviation {rel} / {name}: {why}");
                if got == expected {
                    t.failed.push(format!(
                        "{rel} / {desc} / {name}: listed as a deviation, but got the suite's {expected}"
                    ));
                }
                continue;
            }
            t.ran += 1;
            ran += 1;
            if got == expected {
                t.passed += 1;
                passed += 1;
            } else {
                t.failed.push(format!(
                    "{rel} / {desc} / {}: expected {expected}",
                    test["description"]
                ));
            }
        }
    }
    let _ = writeln!(
        t.log,
        "{rel}: ran {ran}, passed {passed}, skipped {skipped}"
    );
}

#[test]
fn json_schema_test_suite() {
    let mut formats = Tally::default();
    for f in FORMAT_FILES {
        run_file(f, &mut formats);
    }
    let mut keywords = Tally::default();
    for f in KEYWORD_FILES {
        run_file(f, &mut keywords);
    }
    println!("{}{}", formats.log, keywords.log);
    for (name, t) in [("format files", &formats), ("keyword files", &keywords)] {
        println!(
            "json-schema suite, {name}: ran {}, passed {}, failed {}, skipped {} tests ({} whole cases inexpressible, \
             plus non-matching data types), deviations {}",
            t.ran,
            t.passed,
            t.failed.len(),
            t.skipped_tests,
            t.skipped_cases,
            t.deviations
        );
    }
    let failures: Vec<&String> = formats.failed.iter().chain(&keywords.failed).collect();
    assert!(failures.is_empty(), "failing cases:\n{failures:#?}");
    // The format files apply in full: every string test ran, no case was skipped whole.
    assert_eq!(formats.skipped_cases, 0, "a format case was skipped");
    assert_eq!(formats.deviations, TEST_DEVIATIONS.len());
    // Only the six "all string formats ignore <non-string>" tests per file are skipped.
    assert_eq!(
        formats.skipped_tests,
        6 * FORMAT_FILES.len(),
        "unexpected skips in the format files"
    );
    assert!(
        formats.ran + formats.deviations >= 160,
        "too few format tests ran: {} and {} deviations",
        formats.ran,
        formats.deviations
    );
    assert!(
        keywords.ran >= 100,
        "too few keyword tests ran: {}",
        keywords.ran
    );
}
