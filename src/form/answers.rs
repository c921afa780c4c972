//! Accepted answers: typed accessors, iteration, JSON, binding.

use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::form::bind::{AnswersDeserializer, BindError};
use crate::form::compiled::Form;
use crate::form::field::Field;
use crate::form::option::option_value;
use crate::form::report::Report;
use crate::form::value::{AnswerRef, Checked, ref_to_json};

/// The checked answers of an accepted form: only declared fields, each of its
/// field's type and within its bounds.
///
/// `Debug` prints field names only, never values, so an `Answers` in a log
/// line leaks nothing the user typed.
///
/// ```
/// use mrtr_guard::{Field, Form};
/// use mrtr_guard::form::Verdict;
/// use serde_json::json;
///
/// let form = Form::builder("Ship")
///     .field(Field::string("name").required())
///     .field(Field::integer("qty").minimum(1))
///     .build()?;
/// let Verdict::Accepted(answers) = form.validate(&json!({
///     "action": "accept",
///     "content": {"name": "Ada", "qty": 2.0, "extra": true}
/// })) else { unreachable!() };
/// assert_eq!(answers.str("name")?, "Ada");
/// assert_eq!(answers.i64("qty")?, 2);
/// assert_eq!(answers.to_json(), json!({"name": "Ada", "qty": 2}));
/// assert_eq!(answers.report().stripped(), ["extra"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct Answers {
    form: Form,
    /// One slot per form field, in the form's order.
    values: Vec<Option<Stored>>,
    /// All text answers, back to back (one allocation for all of them).
    text: String,
    report: Report,
}

/// A checked answer as kept: text as a range of `Answers::text`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stored {
    Str(Range<usize>),
    Int(i128),
    Num(f64),
    Bool(bool),
    Choice(usize),
    Choices(Vec<usize>),
}

impl Stored {
    /// Keeps a checked answer, copying its text (if any) into `text`.
    pub(crate) fn keep(checked: Checked<'_>, text: &mut String) -> Self {
        match checked {
            Checked::Str(s) => {
                if text.capacity() == 0 {
                    text.reserve(s.len().max(128));
                }
                let start = text.len();
                text.push_str(s);
                Self::Str(start..text.len())
            }
            Checked::Int(i) => Self::Int(i),
            Checked::Num(n) => Self::Num(n),
            Checked::Bool(b) => Self::Bool(b),
            Checked::Choice(i) => Self::Choice(i),
            Checked::Choices { picked, .. } => Self::Choices(picked),
        }
    }
}

/// A typed accessor of [`Answers`] could not give what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnswerError {
    /// The form has no field of this name.
    UnknownField {
        /// The name asked for.
        field: String,
    },
    /// The field is optional and was not answered (or its value was dropped).
    Absent {
        /// The field.
        field: String,
    },
    /// The field holds another kind of value than the accessor reads.
    WrongKind {
        /// The field.
        field: String,
        /// What the accessor reads, e.g. `"an integer"`.
        expected: &'static str,
    },
    /// The integer answer does not fit the accessor's type (e.g. a value
    /// above `i64::MAX` read with [`Answers::i64`]).
    OutOfRange {
        /// The field.
        field: String,
        /// The type asked for, e.g. `"i64"`.
        target: &'static str,
    },
}

impl fmt::Display for AnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownField { field } => write!(f, "the form has no field {field:?}"),
            Self::Absent { field } => write!(f, "field {field:?} was not answered"),
            Self::WrongKind { field, expected } => {
                write!(f, "field {field:?} does not hold {expected}")
            }
            Self::OutOfRange { field, target } => {
                write!(f, "field {field:?} holds an integer beyond {target}")
            }
        }
    }
}

impl std::error::Error for AnswerError {}

impl Answers {
    pub(crate) fn new(
        form: Form,
        values: Vec<Option<Stored>>,
        text: String,
        report: Report,
    ) -> Self {
        Self {
            form,
            values,
            text,
            report,
        }
    }

    /// The answer to `name`, if the field exists and was answered.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<AnswerRef<'_>> {
        let i = self.form.index_of(name)?;
        self.entry(i).map(|(_, r)| r)
    }

    /// Whether `name` was answered.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Text, or the chosen value of a single choice.
    ///
    /// # Errors
    ///
    /// Unknown field, not answered, or not a text or single-choice field.
    pub fn str(&self, name: &str) -> Result<&str, AnswerError> {
        match self.lookup(name)? {
            AnswerRef::Str(s) => Ok(s),
            _ => Err(wrong(name, "text")),
        }
    }

    /// An integer field, as an `i64`.
    ///
    /// # Errors
    ///
    /// Unknown field, not answered, not an integer field, or a value beyond
    /// `i64` (an integer field holds up to `u64::MAX`; see [`u64`](Self::u64)).
    pub fn i64(&self, name: &str) -> Result<i64, AnswerError> {
        self.int(name)
            .and_then(|i| i64::try_from(i).map_err(|_| out_of_range(name, "i64")))
    }

    /// An integer field, as a `u64`.
    ///
    /// # Errors
    ///
    /// Unknown field, not answered, not an integer field, or a negative value.
    pub fn u64(&self, name: &str) -> Result<u64, AnswerError> {
        self.int(name)
            .and_then(|i| u64::try_from(i).map_err(|_| out_of_range(name, "u64")))
    }

    /// An integer field, as an `i128` (it holds `i64::MIN..=u64::MAX`).
    ///
    /// # Errors
    ///
    /// Unknown field, not answered, or not an integer field.
    pub fn int(&self, name: &str) -> Result<i128, AnswerError> {
        match self.lookup(name)? {
            AnswerRef::Int(i) => Ok(i),
            _ => Err(wrong(name, "an integer")),
        }
    }

    /// A number field (an integer field is read as `f64` too).
    ///
    /// # Errors
    ///
    /// Unknown field, not answered, or not a number or integer field.
    pub fn f64(&self, name: &str) -> Result<f64, AnswerError> {
        match self.lookup(name)? {
            AnswerRef::Num(n) => Ok(n),
            #[expect(
                clippy::cast_precision_loss,
                reason = "documented: an integer read as f64"
            )]
            AnswerRef::Int(i) => Ok(i as f64),
            _ => Err(wrong(name, "a number")),
        }
    }

    /// A boolean field.
    ///
    /// # Errors
    ///
    /// Unknown field, not answered, or not a boolean field.
    pub fn bool(&self, name: &str) -> Result<bool, AnswerError> {
        match self.lookup(name)? {
            AnswerRef::Bool(b) => Ok(b),
            _ => Err(wrong(name, "a boolean")),
        }
    }

    /// The chosen values of a multi-choice field.
    ///
    /// # Errors
    ///
    /// Unknown field, not answered, or not a multi-choice field.
    pub fn strings(&self, name: &str) -> Result<Vec<&str>, AnswerError> {
        match self.lookup(name)? {
            AnswerRef::Strings(v) => Ok(v),
            _ => Err(wrong(name, "a list of choices")),
        }
    }

    /// The answered fields as `(name, answer)`, in the form's order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, AnswerRef<'_>)> + '_ {
        (0..self.values.len()).filter_map(|i| self.entry(i))
    }

    /// How many fields were answered.
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.iter().filter(|v| v.is_some()).count()
    }

    /// Whether no field was answered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stripped content object: declared, valid fields only, canonical
    /// numbers (`-0` is `0`, `2.0` on an integer field is `2`).
    #[must_use]
    pub fn to_json(&self) -> Value {
        // Collected at once: the map is built in bulk, not insert by insert.
        let map: Map<String, Value> = self
            .iter()
            .map(|(name, r)| (name.to_owned(), ref_to_json(&r)))
            .collect();
        Value::Object(map)
    }

    /// Deserializes the answers into the user's serde type. Field names are
    /// the wire names; absent optional fields are absent keys.
    ///
    /// # Errors
    ///
    /// A [`BindError`] naming the field that does not fit `T` (missing, wrong
    /// type, unknown to `T` under `deny_unknown_fields`); it never holds the value.
    pub fn bind<'a, T: Deserialize<'a>>(&'a self) -> Result<T, BindError> {
        T::deserialize(AnswersDeserializer::new(self.iter()))
    }

    /// What was stripped or dropped on the way (unknown keys, invalid values
    /// of optional fields).
    #[must_use]
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The form these answers belong to.
    #[must_use]
    pub fn form(&self) -> &Form {
        &self.form
    }

    pub(crate) fn entry(&self, i: usize) -> Option<(&str, AnswerRef<'_>)> {
        let field = self.form.fields().get(i)?;
        let value = self.values.get(i)?.as_ref()?;
        Some((field.name(), self.answer_ref(field, value)))
    }

    fn answer_ref<'a>(&'a self, field: &'a Field, value: &'a Stored) -> AnswerRef<'a> {
        match value {
            Stored::Str(range) => AnswerRef::Str(self.text.get(range.clone()).unwrap_or_default()),
            Stored::Int(i) => AnswerRef::Int(*i),
            Stored::Num(n) => AnswerRef::Num(*n),
            Stored::Bool(b) => AnswerRef::Bool(*b),
            Stored::Choice(i) => AnswerRef::Str(option_value(field.offered_options(), *i)),
            Stored::Choices(list) => AnswerRef::Strings(
                list.iter()
                    .map(|i| option_value(field.offered_options(), *i))
                    .collect(),
            ),
        }
    }

    fn lookup(&self, name: &str) -> Result<AnswerRef<'_>, AnswerError> {
        let i = self
            .form
            .index_of(name)
            .ok_or_else(|| AnswerError::UnknownField {
                field: name.to_owned(),
            })?;
        self.entry(i)
            .map(|(_, r)| r)
            .ok_or_else(|| AnswerError::Absent {
                field: name.to_owned(),
            })
    }
}

fn out_of_range(name: &str, target: &'static str) -> AnswerError {
    AnswerError::OutOfRange {
        field: name.to_owned(),
        target,
    }
}

fn wrong(name: &str, expected: &'static str) -> AnswerError {
    AnswerError::WrongKind {
        field: name.to_owned(),
        expected,
    }
}

impl fmt::Debug for Answers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Answers")
            .field(
                "fields",
                &self.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            )
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}
