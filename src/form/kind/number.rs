//! Number fields (`type: "number"`, `minimum`, `maximum`): emit, parse and
//! check.

use serde_json::{Map, Value};

use super::keywords::{Keywords, only};
use crate::form::error::FormError;
use crate::form::numbers::number_json;
use crate::form::report::Reason;
use crate::form::value::Checked;

/// A number field with inclusive, finite bounds.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct NumberKind {
    pub(crate) minimum: Option<f64>,
    pub(crate) maximum: Option<f64>,
}

impl NumberKind {
    /// The keywords a number property may carry.
    const KEYWORDS: &[&str] = &["minimum", "maximum"];

    pub(crate) fn emit(&self, out: &mut Keywords) {
        out.push(("type", "number".into()));
        if let Some(n) = self.minimum {
            out.push(("minimum", number_json(n)));
        }
        if let Some(n) = self.maximum {
            out.push(("maximum", number_json(n)));
        }
    }

    pub(crate) fn parse(name: &str, obj: &Map<String, Value>) -> Result<Self, FormError> {
        only(name, obj, Self::KEYWORDS)?;
        let bound = |keyword| {
            obj.get(keyword)
                .map(|v| v.as_f64().ok_or_else(|| FormError::bad(name, keyword)))
                .transpose()
        };
        Ok(Self {
            minimum: bound("minimum")?,
            maximum: bound("maximum")?,
        })
    }

    /// Checks the definition: `minimum <= maximum`.
    pub(crate) fn compile(&self, name: &str) -> Result<(), FormError> {
        match (self.minimum, self.maximum) {
            (Some(lo), Some(hi)) if lo > hi => Err(FormError::MinAboveMax {
                field: name.to_owned(),
                keyword: "minimum",
            }),
            _ => Ok(()),
        }
    }

    /// What is wrong, in words a user understands (never the value).
    pub(crate) fn explain(&self, reason: Reason) -> String {
        match (reason, self.minimum, self.maximum) {
            (Reason::BelowMinimum, Some(lo), _) => format!("must be at least {}", number_json(lo)),
            (Reason::AboveMaximum, _, Some(hi)) => format!("must be at most {}", number_json(hi)),
            _ => "must be a number".into(),
        }
    }

    /// Type (a finite number), then bounds.
    pub(crate) fn check<'v>(&self, v: &'v Value) -> Result<Checked<'v>, Reason> {
        let n = v
            .as_f64()
            .filter(|n| n.is_finite())
            .ok_or(Reason::WrongType)?;
        // `-0` is `0`.
        let n = if n == 0.0 { 0.0 } else { n };
        if self.minimum.is_some_and(|lo| n < lo) {
            return Err(Reason::BelowMinimum);
        }
        if self.maximum.is_some_and(|hi| n > hi) {
            return Err(Reason::AboveMaximum);
        }
        Ok(Checked::Num(n))
    }
}
