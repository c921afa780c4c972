//! A hostile case: raw bytes, the outcome they must get, and the limits
//! they are parsed under; the one form every case is validated against;
//! and the check.

use mrtr_guard::form::{Problem, Reason, Verdict};
use mrtr_guard::json::{JsonError, Limits, parse_strict};
use mrtr_guard::{Field, Form};
use serde_json::Value;

/// A case's name, its bytes, the outcome they must get, and the limits they
/// are parsed under.
pub(super) type Case = (&'static str, Vec<u8>, Expect, Limits);

/// Every case of every rule's file.
pub(super) fn every_case() -> Vec<Case> {
    [
        super::strict_json::cases(),
        super::envelope::cases(),
        super::values::cases(),
        super::choices::cases(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The form every case is validated against.
pub(super) fn form() -> Form {
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
pub(super) enum Expect {
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
pub(super) fn acc(extra: &str) -> Vec<u8> {
    let sep = if extra.is_empty() { "" } else { "," };
    format!(r#"{{"action":"accept","content":{{"name":"Ada"{sep}{extra}}}}}"#).into_bytes()
}

pub(super) fn raw(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

pub(super) fn is_dup(e: &JsonError) -> bool {
    matches!(e, JsonError::DuplicateKey { .. })
}
pub(super) fn is_reserved(e: &JsonError) -> bool {
    matches!(e, JsonError::ReservedKey { .. })
}
pub(super) fn is_surrogate(e: &JsonError) -> bool {
    matches!(e, JsonError::LoneSurrogate { .. })
}
pub(super) fn is_control(e: &JsonError) -> bool {
    matches!(e, JsonError::ControlCharacter { .. })
}
pub(super) fn is_utf8(e: &JsonError) -> bool {
    matches!(e, JsonError::InvalidUtf8 { .. })
}
pub(super) fn is_eof(e: &JsonError) -> bool {
    matches!(e, JsonError::UnexpectedEnd { .. })
}
pub(super) fn is_syntax(e: &JsonError) -> bool {
    matches!(e, JsonError::Syntax { .. })
}

/// Parses `bytes` under `limits`, validates them against `form`, and
/// checks the outcome is `expect`.
pub(super) fn check(name: &str, form: &Form, bytes: &[u8], expect: &Expect, limits: &Limits) {
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
