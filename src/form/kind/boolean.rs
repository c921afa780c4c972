//! Yes/no fields (`type: "boolean"`): emit, parse and check.

use serde_json::{Map, Value};

use super::keywords::{Keywords, only};
use crate::form::error::FormError;
use crate::form::report::Reason;
use crate::form::value::Checked;

/// A boolean field: no keywords of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct BooleanKind;

impl BooleanKind {
    pub(crate) fn emit(self, out: &mut Keywords) {
        out.push(("type", "boolean".into()));
    }

    pub(crate) fn parse(name: &str, obj: &Map<String, Value>) -> Result<Self, FormError> {
        only(name, obj, &[])?;
        Ok(Self)
    }

    /// What is wrong, in words a user understands: only the type can be.
    pub(crate) fn explain(self) -> String {
        "must be yes or no".into()
    }

    pub(crate) fn check<'v>(self, v: &'v Value) -> Result<Checked<'v>, Reason> {
        v.as_bool().map(Checked::Bool).ok_or(Reason::WrongType)
    }
}
