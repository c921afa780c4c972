//! Whole-number fields (`type: "integer"`, `minimum`, `maximum`): emit, parse
//! and check. An integer field holds `i64::MIN..=u64::MAX` exactly.

use serde_json::{Map, Value};

use super::keywords::{Keywords, only};
use crate::form::error::FormError;
use crate::form::numbers::{Bound, int_json, whole_answer};
use crate::form::report::Reason;
use crate::form::value::Checked;

/// An integer field with inclusive bounds within `i64::MIN..=u64::MAX`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct IntegerKind {
    pub(crate) minimum: Option<i128>,
    pub(crate) maximum: Option<i128>,
}

impl IntegerKind {
    /// The keywords an integer property may carry.
    const KEYWORDS: &[&str] = &["minimum", "maximum"];

    pub(crate) fn emit(&self, out: &mut Keywords) {
        out.push(("type", "integer".into()));
        if let Some(n) = self.minimum {
            out.push(("minimum", int_json(n)));
        }
        if let Some(n) = self.maximum {
            out.push(("maximum", int_json(n)));
        }
    }

    /// Bounds are read as [`Bound`]s: exact in integer syntax, rounded inward
    /// in float syntax (`minimum: 0.5` is `1`).
    pub(crate) fn parse(name: &str, obj: &Map<String, Value>) -> Result<Self, FormError> {
        only(name, obj, Self::KEYWORDS)?;
        let bound = |keyword, lower| {
            obj.get(keyword)
                .map(|v| {
                    Bound::from_json(v)
                        .and_then(|b| b.to_int(lower))
                        .ok_or_else(|| FormError::bad(name, keyword))
                })
                .transpose()
        };
        Ok(Self {
            minimum: bound("minimum", true)?,
            maximum: bound("maximum", false)?,
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

    /// Type (a whole number in `i64::MIN..=u64::MAX`), then bounds.
    pub(crate) fn check<'v>(&self, v: &'v Value) -> Result<Checked<'v>, Reason> {
        let i = integer(v)?;
        if self.minimum.is_some_and(|lo| i < lo) {
            return Err(Reason::BelowMinimum);
        }
        if self.maximum.is_some_and(|hi| i > hi) {
            return Err(Reason::AboveMaximum);
        }
        Ok(Checked::Int(i))
    }
}

impl IntegerKind {
    /// What is wrong, in words a user understands (never the value).
    pub(crate) fn explain(&self, reason: Reason) -> String {
        match (reason, self.minimum, self.maximum) {
            (Reason::BelowMinimum, Some(lo), _) => format!("must be at least {lo}"),
            (Reason::AboveMaximum, _, Some(hi)) => format!("must be at most {hi}"),
            (Reason::OutOfRange, Some(lo), Some(hi)) => format!("must be between {lo} and {hi}"),
            (Reason::OutOfRange, _, _) => "is out of range".into(),
            _ => "must be a whole number".into(),
        }
    }
}

/// An integer answer: integer syntax anywhere in `i64::MIN..=u64::MAX` is
/// exact; float syntax (`1.0`, `1e2`) is read while an `f64` can tell a
/// whole number from a fraction (below 2^52), so `1.5` is not an integer and
/// `4503599627370497.5` (already rounded to a whole `f64`) is out of range, as
/// is anything beyond `i64::MIN..=u64::MAX`.
fn integer(v: &Value) -> Result<i128, Reason> {
    let Value::Number(n) = v else {
        return Err(Reason::WrongType);
    };
    if let Some(i) = n.as_i64() {
        return Ok(i.into());
    }
    if let Some(u) = n.as_u64() {
        return Ok(u.into());
    }
    // Float syntax, or an integer literal beyond `i64`/`u64` that serde_json
    // holds as an `f64`: its digits are already rounded.
    let f = n.as_f64().ok_or(Reason::WrongType)?;
    whole_answer(f).map_err(|fraction| {
        if fraction {
            Reason::NotAnInteger
        } else {
            Reason::OutOfRange
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::form::numbers::{INT_MAX, INT_MIN};

    #[test]
    fn integers() {
        assert_eq!(integer(&json!(1.0)), Ok(1));
        assert_eq!(integer(&json!(-0.0)), Ok(0));
        assert_eq!(integer(&json!(1.5)), Err(Reason::NotAnInteger));
        assert_eq!(integer(&json!(u64::MAX)), Ok(INT_MAX));
        assert_eq!(integer(&json!(1e19)), Err(Reason::OutOfRange));
        assert_eq!(
            integer(&json!(-9.223_372_036_854_776e18)),
            Err(Reason::OutOfRange)
        );
        assert_eq!(integer(&json!(i64::MIN)), Ok(INT_MIN));
        assert_eq!(
            integer(&json!(9_007_199_254_740_992.0)),
            Err(Reason::OutOfRange)
        );
        assert_eq!(
            integer(&json!(4_503_599_627_370_495.0)),
            Ok(4_503_599_627_370_495)
        );
        assert_eq!(integer(&json!("1")), Err(Reason::WrongType));
    }
}
