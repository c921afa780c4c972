//! [`Kind`]: the compiled shape of a field, one variant per kind file, and
//! the dispatch from a field to its kind's emit, parse and checks.

use serde_json::{Map, Value};

use crate::form::kind::boolean::Boolean;
use crate::form::kind::choice::Choice;
use crate::form::kind::integer::Integer;
use crate::form::kind::keywords::Keywords;
use crate::form::kind::multi::Multi;
use crate::form::kind::number::Number;
use crate::form::kind::single::Single;
use crate::form::kind::text::Text;

use crate::form::error::FormError;
use crate::form::report::Reason;
use crate::form::value::Checked;

/// The compiled shape of a field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Text(Text),
    Integer(Integer),
    Number(Number),
    Boolean(Boolean),
    Choice(Single),
    Multi(Multi),
}

impl Kind {
    /// The kind's keywords, `type` first.
    pub(crate) fn emit(&self, out: &mut Keywords) {
        match self {
            Self::Text(k) => k.emit(out),
            Self::Integer(k) => k.emit(out),
            Self::Number(k) => k.emit(out),
            Self::Boolean(k) => k.emit(out),
            Self::Choice(k) => k.emit(out),
            Self::Multi(k) => k.emit(out),
        }
    }

    /// The kind of property `name` (whose `type` is `ty`), told by `type` and
    /// key presence, never by trying shapes in turn.
    pub(crate) fn parse(name: &str, ty: &str, obj: &Map<String, Value>) -> Result<Self, FormError> {
        Ok(match ty {
            "string" if Single::is_choice(obj) => Self::Choice(Single::parse(name, obj)?),
            "string" => Self::Text(Text::parse(name, obj)?),
            "integer" => Self::Integer(Integer::parse(name, obj)?),
            "number" => Self::Number(Number::parse(name, obj)?),
            "boolean" => Self::Boolean(Boolean::parse(name, obj)?),
            "array" => Self::Multi(Multi::parse(name, obj)?),
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
            Self::Text(k) => k.compile(name),
            Self::Integer(k) => k.compile(name),
            Self::Number(k) => k.compile(name),
            Self::Boolean(_) => Ok(()),
            Self::Choice(k) => k.compile(name),
            Self::Multi(k) => k.compile(name),
        }
    }

    /// Checks one answer; `null` is never a value. Each kind checks type,
    /// then bounds or options, then format.
    pub(crate) fn check<'v>(&self, v: &'v Value) -> Result<Checked<'v>, Reason> {
        if v.is_null() {
            return Err(Reason::Null);
        }
        match self {
            Self::Text(k) => k.check(v),
            Self::Integer(k) => k.check(v),
            Self::Number(k) => k.check(v),
            Self::Boolean(k) => k.check(v),
            Self::Choice(k) => k.check(v),
            Self::Multi(k) => k.check(v),
        }
    }

    /// What is wrong with an answer refused for `reason`, in words a user
    /// understands: made from the definition, never from the value.
    pub(crate) fn explain(&self, reason: Reason) -> String {
        match (reason, self) {
            (Reason::Missing, _) => "an answer is required".into(),
            (_, Self::Text(k)) => k.explain(reason),
            (_, Self::Integer(k)) => k.explain(reason),
            (_, Self::Number(k)) => k.explain(reason),
            (_, Self::Boolean(k)) => k.explain(),
            (_, Self::Choice(k)) => k.explain(reason),
            (_, Self::Multi(k)) => k.explain(reason),
        }
    }

    /// The options of a choice; empty for other kinds.
    pub(crate) fn options(&self) -> &[Choice] {
        match self {
            Self::Choice(k) => &k.options,
            Self::Multi(k) => &k.options,
            _ => &[],
        }
    }
}
