//! [`Kind`]: the compiled shape of a field, one variant per kind file, and
//! the dispatch from a field to its kind's emit, parse and checks.

use serde_json::{Map, Value};

use crate::form::kind::boolean::BooleanKind;
use crate::form::kind::choice::ChoiceKind;
use crate::form::kind::integer::IntegerKind;
use crate::form::kind::keywords::Keywords;
use crate::form::kind::multi_choice::MultiChoiceKind;
use crate::form::kind::number::NumberKind;
use crate::form::kind::string::StringKind;
use crate::form::option::ChoiceOption;

use crate::form::error::FormError;
use crate::form::report::Reason;
use crate::form::value::Checked;

/// The compiled shape of a field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    String(StringKind),
    Integer(IntegerKind),
    Number(NumberKind),
    Boolean(BooleanKind),
    Choice(ChoiceKind),
    MultiChoice(MultiChoiceKind),
}

impl Kind {
    /// The kind's keywords, `type` first.
    pub(crate) fn emit(&self, out: &mut Keywords) {
        match self {
            Self::String(k) => k.emit(out),
            Self::Integer(k) => k.emit(out),
            Self::Number(k) => k.emit(out),
            Self::Boolean(k) => k.emit(out),
            Self::Choice(k) => k.emit(out),
            Self::MultiChoice(k) => k.emit(out),
        }
    }

    /// The kind of property `name` (whose `type` is `ty`), told by `type` and
    /// key presence, never by trying shapes in turn.
    pub(crate) fn parse(name: &str, ty: &str, obj: &Map<String, Value>) -> Result<Self, FormError> {
        Ok(match ty {
            "string" if ChoiceKind::is_choice(obj) => Self::Choice(ChoiceKind::parse(name, obj)?),
            "string" => Self::String(StringKind::parse(name, obj)?),
            "integer" => Self::Integer(IntegerKind::parse(name, obj)?),
            "number" => Self::Number(NumberKind::parse(name, obj)?),
            "boolean" => Self::Boolean(BooleanKind::parse(name, obj)?),
            "array" => Self::MultiChoice(MultiChoiceKind::parse(name, obj)?),
            "object" => {
                return Err(FormError::Nested {
                    field: name.to_owned(),
                });
            }
            _ => {
                return Err(FormError::UnsupportedType {
                    field: Some(name.to_owned()),
                });
            }
        })
    }

    /// Checks the definition (bounds in order, options valid).
    pub(crate) fn compile(&self, name: &str) -> Result<(), FormError> {
        match self {
            Self::String(k) => k.compile(name),
            Self::Integer(k) => k.compile(name),
            Self::Number(k) => k.compile(name),
            Self::Boolean(_) => Ok(()),
            Self::Choice(k) => k.compile(name),
            Self::MultiChoice(k) => k.compile(name),
        }
    }

    /// Checks one answer; `null` is never a value. Each kind checks type,
    /// then bounds or options, then format.
    pub(crate) fn check<'v>(&self, v: &'v Value) -> Result<Checked<'v>, Reason> {
        if v.is_null() {
            return Err(Reason::Null);
        }
        match self {
            Self::String(k) => k.check(v),
            Self::Integer(k) => k.check(v),
            Self::Number(k) => k.check(v),
            Self::Boolean(k) => k.check(v),
            Self::Choice(k) => k.check(v),
            Self::MultiChoice(k) => k.check(v),
        }
    }

    /// What is wrong with an answer refused for `reason`, in words a user
    /// understands: made from the definition, never from the value.
    pub(crate) fn explain(&self, reason: Reason) -> String {
        match (reason, self) {
            (Reason::Missing, _) => "an answer is required".into(),
            (_, Self::String(k)) => k.explain(reason),
            (_, Self::Integer(k)) => k.explain(reason),
            (_, Self::Number(k)) => k.explain(reason),
            (_, Self::Boolean(k)) => k.explain(),
            (_, Self::Choice(k)) => k.explain(reason),
            (_, Self::MultiChoice(k)) => k.explain(reason),
        }
    }

    /// The options of a choice; empty for other kinds.
    pub(crate) fn options(&self) -> &[ChoiceOption] {
        match self {
            Self::Choice(k) => &k.options,
            Self::MultiChoice(k) => &k.options,
            _ => &[],
        }
    }
}
