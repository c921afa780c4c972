//! Checked answer values: [`Checked`] as a kind's check returns it (borrowing
//! the input), [`AnswerRef`] as accessors give it, and its canonical JSON.

use serde_json::Value;

use crate::form::numbers::{int_json, number_json};
use crate::form::option::{ChoiceOption, option_value};

/// A checked answer, borrowing text from the input: typed, bounded, and for
/// choices an index into the field's options (so nothing submitted is kept
/// for them).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Checked<'v> {
    Str(&'v str),
    Int(i128),
    Num(f64),
    Bool(bool),
    Choice(usize),
    /// The picked options in the order given; `deduplicated` when repeated
    /// items were removed (the first of each kept).
    Choices {
        picked: Vec<usize>,
        deduplicated: bool,
    },
}

impl<'v> Checked<'v> {
    /// Whether the check removed repeated items.
    pub(crate) fn deduplicated(&self) -> bool {
        matches!(
            self,
            Self::Choices {
                deduplicated: true,
                ..
            }
        )
    }

    /// The answer as seen by accessors (choices resolved to their values in
    /// `options`, the field's options).
    pub(crate) fn to_ref<'a>(&self, options: &'a [ChoiceOption]) -> AnswerRef<'a>
    where
        'v: 'a,
    {
        match self {
            Self::Str(s) => AnswerRef::Str(s),
            Self::Int(i) => AnswerRef::Int(*i),
            Self::Num(n) => AnswerRef::Num(*n),
            Self::Bool(b) => AnswerRef::Bool(*b),
            Self::Choice(i) => AnswerRef::Str(option_value(options, *i)),
            Self::Choices { picked, .. } => {
                AnswerRef::Strings(picked.iter().map(|i| option_value(options, *i)).collect())
            }
        }
    }
}

/// One answer, borrowed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AnswerRef<'a> {
    /// Text, or the value of a single choice.
    Str(&'a str),
    /// An integer field: a value in `i64::MIN..=u64::MAX`.
    Int(i128),
    /// A number field.
    Num(f64),
    /// A boolean field.
    Bool(bool),
    /// The values of a multi-choice, in the order given.
    Strings(Vec<&'a str>),
}

/// The canonical JSON of one answer (`-0` is `0`, whole numbers on number
/// fields as integers).
pub(crate) fn ref_to_json(r: &AnswerRef<'_>) -> Value {
    match r {
        AnswerRef::Str(s) => Value::from(*s),
        AnswerRef::Int(i) => int_json(*i),
        AnswerRef::Num(n) => number_json(*n),
        AnswerRef::Bool(b) => Value::Bool(*b),
        AnswerRef::Strings(list) => list.iter().map(|s| Value::from(*s)).collect(),
    }
}
