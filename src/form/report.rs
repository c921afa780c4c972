//! What the validator found: reason codes per field, never submitted values.

use std::fmt;

/// Why a field's answer was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reason {
    /// A required field has no answer.
    Missing,
    /// The answer is `null`, which is never a value.
    Null,
    /// The answer has the wrong JSON type (e.g. a number for a text field,
    /// an array for a single choice, a non-string item in a multi-choice).
    WrongType,
    /// A number with a fractional part for an integer field.
    NotAnInteger,
    /// A whole number an integer field cannot hold exactly: beyond
    /// `i64::MIN..=u64::MAX`, or in float syntax (`1e300`, `4503599627370497.5`)
    /// at a magnitude of 2^52 or more, where an `f64` no longer tells a whole
    /// number from a fraction. Integer syntax is exact over the whole range.
    OutOfRange,
    /// Fewer code points than `minLength`.
    TooShort,
    /// More code points than `maxLength`.
    TooLong,
    /// Below `minimum`.
    BelowMinimum,
    /// Above `maximum`.
    AboveMaximum,
    /// The text does not have the field's `format`.
    BadFormat,
    /// A value (or item) that is not an offered option.
    NotOffered,
    /// A multi-choice item given twice, on a field that refuses duplicates
    /// ([`Field::refuse_duplicates`](crate::form::Field::refuse_duplicates); by
    /// default they are removed).
    DuplicateItem,
    /// Fewer items than `minItems`.
    TooFewItems,
    /// More items than `maxItems`.
    TooManyItems,
}

impl Reason {
    /// A stable snake_case code for logs and metrics.
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            Self::Missing => "missing",
            Self::Null => "null",
            Self::WrongType => "wrong_type",
            Self::NotAnInteger => "not_an_integer",
            Self::OutOfRange => "out_of_range",
            Self::TooShort => "too_short",
            Self::TooLong => "too_long",
            Self::BelowMinimum => "below_minimum",
            Self::AboveMaximum => "above_maximum",
            Self::BadFormat => "bad_format",
            Self::NotOffered => "not_offered",
            Self::DuplicateItem => "duplicate_item",
            Self::TooFewItems => "too_few_items",
            Self::TooManyItems => "too_many_items",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Missing => "a required answer is missing",
            Self::Null => "null is not a value",
            Self::WrongType => "the value has the wrong type",
            Self::NotAnInteger => "expected a whole number",
            Self::OutOfRange => "the number is beyond the exact integer range",
            Self::TooShort => "the text is shorter than minLength",
            Self::TooLong => "the text is longer than maxLength",
            Self::BelowMinimum => "the number is below minimum",
            Self::AboveMaximum => "the number is above maximum",
            Self::BadFormat => "the text does not have the field's format",
            Self::NotOffered => "the value is not an offered option",
            Self::DuplicateItem => "an item is given twice",
            Self::TooFewItems => "fewer items than minItems",
            Self::TooManyItems => "more items than maxItems",
        })
    }
}

/// A problem with the `ElicitResult` as a whole (not with one field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Problem {
    /// The `ElicitResult` is not a JSON object.
    NotAnObject,
    /// `action` is not exactly `"accept"`, `"decline"` or `"cancel"`.
    BadAction,
    /// `content` on an accept is present but not a JSON object.
    ContentNotObject,
    /// `inputResponses` is not a JSON object.
    ResponsesNotAnObject,
    /// The answer is valid, but too long for the flow to carry to its next
    /// round (the flow's answers share a budget: see
    /// [`Flow::answer_budget`](crate::runtime::Flow::answer_budget)).
    TooLarge,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::NotAnObject => "the elicitation result is not a JSON object",
            Self::BadAction => "action must be exactly \"accept\", \"decline\" or \"cancel\"",
            Self::ContentNotObject => "content must be a JSON object",
            Self::ResponsesNotAnObject => "inputResponses must be a JSON object",
            Self::TooLarge => "the answer is too long to keep; please shorten it",
        })
    }
}

/// One refused field answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    field: String,
    reason: Reason,
    required: bool,
}

impl Issue {
    /// The field's wire name (from the form, never from the client).
    #[must_use]
    pub fn field(&self) -> &str {
        &self.field
    }

    /// Why the answer was refused.
    #[must_use]
    pub fn reason(&self) -> Reason {
        self.reason
    }

    /// `true` when the field is required (the answer is then invalid);
    /// `false` when [`Form::validate`](crate::form::Form::validate) only
    /// dropped the value from an optional field (a
    /// [`Round`](crate::runtime::Round) asks again instead, unless the field
    /// [drops invalid values](crate::form::Field::drop_if_invalid)).
    #[must_use]
    pub fn is_required(&self) -> bool {
        self.required
    }
}

/// How many stripped key names a report keeps, and how long each may be.
const MAX_STRIPPED_NAMES: usize = 16;
const MAX_STRIPPED_NAME_CHARS: usize = 64;

/// What the validator found: field issues with reason codes, fix-ups made
/// on the way (stripped unknown keys, multi-choice duplicates removed), or a
/// problem with the result as a whole.
///
/// A report never holds a submitted value. Unknown key names are kept (at
/// most 16, each cut to 64 characters, printed escaped) with a total count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    problem: Option<Problem>,
    issues: Vec<Issue>,
    deduplicated: Vec<String>,
    stripped: Vec<String>,
    stripped_count: usize,
}

impl Report {
    /// The problem with the result as a whole, if any.
    #[must_use]
    pub fn problem(&self) -> Option<Problem> {
        self.problem
    }

    /// The refused field answers.
    #[must_use]
    pub fn issues(&self) -> &[Issue] {
        &self.issues
    }

    /// The reason given for `field`, if its answer was refused.
    #[must_use]
    pub fn reason(&self, field: &str) -> Option<Reason> {
        self.issues
            .iter()
            .find(|i| i.field == field)
            .map(|i| i.reason)
    }

    /// The multi-choice fields whose repeated items were removed (a fix-up,
    /// not an issue: the answer was kept, without the repeats).
    #[must_use]
    pub fn deduplicated(&self) -> &[String] {
        &self.deduplicated
    }

    /// Names of unknown content keys that were stripped (at most 16, each cut
    /// to 64 characters).
    #[must_use]
    pub fn stripped(&self) -> &[String] {
        &self.stripped
    }

    /// How many unknown content keys were stripped.
    #[must_use]
    pub fn stripped_count(&self) -> usize {
        self.stripped_count
    }

    /// `true` when nothing was refused, stripped or de-duplicated.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.problem.is_none()
            && self.issues.is_empty()
            && self.deduplicated.is_empty()
            && self.stripped_count == 0
    }

    pub(crate) fn from_problem(problem: Problem) -> Self {
        Self {
            problem: Some(problem),
            ..Self::default()
        }
    }

    pub(crate) fn push_issue(&mut self, field: &str, reason: Reason, required: bool) {
        self.issues.push(Issue {
            field: field.to_owned(),
            reason,
            required,
        });
    }

    /// `field` is the form's own name for it, never the client's.
    pub(crate) fn push_deduplicated(&mut self, field: &str) {
        self.deduplicated.push(field.to_owned());
    }

    pub(crate) fn push_stripped(&mut self, key: &str) {
        self.stripped_count = self.stripped_count.saturating_add(1);
        if self.stripped.len() < MAX_STRIPPED_NAMES {
            self.stripped
                .push(key.chars().take(MAX_STRIPPED_NAME_CHARS).collect());
        }
    }

    pub(crate) fn has_required_issue(&self) -> bool {
        self.issues.iter().any(|i| i.required)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if let Some(p) = self.problem {
            write!(f, "{p}")?;
            sep = "; ";
        }
        for i in &self.issues {
            let what = if i.required {
                ""
            } else {
                " (optional, dropped)"
            };
            write!(f, "{sep}field {:?}: {}{what}", i.field, i.reason.code())?;
            sep = "; ";
        }
        for field in &self.deduplicated {
            write!(f, "{sep}field {field:?}: duplicates removed")?;
            sep = "; ";
        }
        if self.stripped_count > 0 {
            write!(f, "{sep}{} unknown key(s) stripped: ", self.stripped_count)?;
            for (n, k) in self.stripped.iter().enumerate() {
                write!(f, "{}{k:?}", if n == 0 { "" } else { ", " })?;
            }
            sep = "; ";
        }
        if sep.is_empty() {
            f.write_str("no problems")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_golden() {
        let mut r = Report::default();
        assert_eq!(r.to_string(), "no problems");
        r.push_issue("age", Reason::AboveMaximum, true);
        r.push_issue("nick", Reason::TooLong, false);
        r.push_deduplicated("roles");
        r.push_stripped("evil\nkey");
        assert_eq!(
            r.to_string(),
            "field \"age\": above_maximum; field \"nick\": too_long (optional, dropped); \
             field \"roles\": duplicates removed; 1 unknown key(s) stripped: \"evil\\nkey\""
        );
        assert_eq!(
            Report::from_problem(Problem::BadAction).to_string(),
            Problem::BadAction.to_string()
        );
    }

    #[test]
    fn stripped_names_are_capped() {
        let mut r = Report::default();
        let long = "k".repeat(1000);
        for _ in 0..100 {
            r.push_stripped(&long);
        }
        assert_eq!(r.stripped_count(), 100);
        assert_eq!(r.stripped().len(), MAX_STRIPPED_NAMES);
        assert!(
            r.stripped()
                .iter()
                .all(|k| k.chars().count() == MAX_STRIPPED_NAME_CHARS)
        );
    }
}
