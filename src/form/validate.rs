//! The strict validator: an untrusted `ElicitResult` checked against the
//! [`Form`] that asked for it.

use serde_json::{Map, Value};

use crate::form::answers::{Answers, Stored};
use crate::form::compiled::Form;
use crate::form::report::{Problem, Reason, Report};

/// What an answer to a form amounts to.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// `action: "accept"` and every required field answered validly.
    Accepted(Answers),
    /// `action: "decline"`: the user refused.
    Declined,
    /// `action: "cancel"`, or no `action` at all: the user dismissed the form.
    Cancelled,
    /// No response under the asked key of `inputResponses` (ask again).
    Missing,
    /// The result is malformed, or a required field is missing or invalid.
    Invalid(Report),
}

impl Form {
    /// Validates one untrusted `ElicitResult` against this form.
    ///
    /// - `action` must be exactly `"accept"`, `"decline"` or `"cancel"`; an
    ///   absent `action` is a cancel (never an accept); anything else is invalid.
    /// - Content is read only on accept; an absent `content` is `{}`.
    /// - Unknown content keys are stripped and listed in the report.
    /// - An invalid value of an optional field is dropped and reported
    ///   ([`Answers::report`]); of a required field, or a missing required
    ///   field, makes the answer invalid. This is the standalone rule (as the
    ///   prefab `acceptedFormInput` behaves). A
    ///   [`Round`](crate::runtime::Round) is stricter: it asks again when any
    ///   given field is invalid, unless the field
    ///   [drops invalid values](crate::form::Field::drop_if_invalid).
    ///
    /// ```
    /// use mrtr_guard::{Field, Form};
    /// use mrtr_guard::form::{Verdict, Reason};
    /// use serde_json::json;
    ///
    /// let form = Form::builder("Age?").field(Field::integer("age").minimum(0).maximum(150).required()).build()?;
    /// assert!(matches!(form.validate(&json!({"action": "accept", "content": {"age": 42}})), Verdict::Accepted(_)));
    /// assert_eq!(form.validate(&json!({"action": "decline"})), Verdict::Declined);
    /// let Verdict::Invalid(report) = form.validate(&json!({"action": "accept", "content": {"age": 1.5}})) else {
    ///     unreachable!()
    /// };
    /// assert_eq!(report.reason("age"), Some(Reason::NotAnInteger));
    /// # Ok::<(), mrtr_guard::form::FormError>(())
    /// ```
    #[must_use]
    pub fn validate(&self, result: &Value) -> Verdict {
        let Some(result) = result.as_object() else {
            return Verdict::Invalid(Report::from_problem(Problem::NotAnObject));
        };
        match result.get("action") {
            None => Verdict::Cancelled,
            Some(Value::String(a)) if a == "cancel" => Verdict::Cancelled,
            Some(Value::String(a)) if a == "decline" => Verdict::Declined,
            Some(Value::String(a)) if a == "accept" => match result.get("content") {
                None => self.validate_content(&Map::new()),
                Some(Value::Object(content)) => self.validate_content(content),
                Some(_) => Verdict::Invalid(Report::from_problem(Problem::ContentNotObject)),
            },
            Some(_) => Verdict::Invalid(Report::from_problem(Problem::BadAction)),
        }
    }

    /// Validates the answer stored under `key` of an `inputResponses` object:
    /// [`Verdict::Missing`] when there is none, otherwise as [`validate`](Self::validate).
    ///
    /// # Errors
    ///
    /// None as such: an `inputResponses` that is not an object gives
    /// [`Verdict::Invalid`] with [`Problem::ResponsesNotAnObject`].
    #[must_use]
    pub fn validate_response(&self, input_responses: &Value, key: &str) -> Verdict {
        match input_responses {
            Value::Object(responses) => responses
                .get(key)
                .map_or(Verdict::Missing, |r| self.validate(r)),
            _ => Verdict::Invalid(Report::from_problem(Problem::ResponsesNotAnObject)),
        }
    }

    fn validate_content(&self, content: &Map<String, Value>) -> Verdict {
        let fields = self.fields();
        let by_name = self.by_name();
        let mut values = vec![None; fields.len()];
        let mut text = String::new();
        let mut report = Report::default();
        // Content keys (a `Value`'s map) and `by_name` are usually both sorted
        // by name: try the next name first, fall back to a binary search.
        let mut next = 0;
        for (key, value) in content {
            let expected = by_name.get(next).and_then(|i| fields.get(*i));
            let rank = if expected.is_some_and(|f| f.name() == key) {
                next
            } else if let Some(rank) = self.name_rank(key) {
                rank
            } else {
                report.push_stripped(key);
                continue;
            };
            next = rank.saturating_add(1);
            let Some(&i) = by_name.get(rank) else {
                continue;
            };
            let (Some(field), Some(slot)) = (fields.get(i), values.get_mut(i)) else {
                continue;
            };
            match field.kind.check(value) {
                Ok(v) => {
                    if v.deduplicated() {
                        report.push_deduplicated(field.name());
                    }
                    *slot = Some(Stored::keep(v, &mut text));
                }
                Err(reason) => report.push_issue(field.name(), reason, field.is_required()),
            }
        }
        for (field, value) in fields.iter().zip(&values) {
            if field.is_required() && value.is_none() && report.reason(field.name()).is_none() {
                report.push_issue(field.name(), Reason::Missing, true);
            }
        }
        if report.has_required_issue() {
            Verdict::Invalid(report)
        } else {
            Verdict::Accepted(Answers::new(self.clone(), values, text, report))
        }
    }
}
