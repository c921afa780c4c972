//! Whole-number fields (`type: "integer"`, `minimum`, `maximum`): emit, parse
//! and check.

use serde_json::{Map, Value};

use super::keywords::{Keywords, only};
use crate::form::error::FormError;
use crate::form::numbers::exact_i64;
use crate::form::report::Reason;
use crate::form::value::Checked;

/// An integer field with inclusive bounds.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Integer {
    pub(crate) minimum: Option<i64>,
    pub(crate) maximum: Option<i64>,
}

impl Integer {
    /// The keywords an integer property may carry.
    const KEYWORDS: &[&str] = &["minimum", "maximum"];

    pub(crate) fn emit(&self, out: &mut Keywords) {
        out.push(("type", "integer".into()));
        if let Some(n) = self.minimum {
            out.push(("minimum", n.into()));
        }
        if let Some(n) = self.maximum {
            out.push(("maximum", n.into()));
        }
    }

    pub(crate) fn parse(name: &str, obj: &Map<String, Value>) -> Result<Self, FormError> {
        only(name, obj, Self::KEYWORDS)?;
        let bound = |keyword| {
            obj.get(keyword)
                .map(|v| bound(v).ok_or_else(|| FormError::bad(name, keyword)))
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

    /// Type (a whole number), then bounds.
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

/// A whole bound for an integer field (`-2`, `2.0`; not `1.5`, not beyond `i64`).
fn bound(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| {
        if v.is_u64() {
            None
        } else {
            v.as_f64().and_then(exact_i64)
        }
    })
}

/// An integer answer: `1` and `1.0` are 1, `-0` is 0, `1.5` is not an
/// integer; an integer literal beyond `i64`, or one in float syntax beyond
/// 2^53, is out of range.
fn integer(v: &Value) -> Result<i64, Reason> {
    let Value::Number(n) = v else {
        return Err(Reason::WrongType);
    };
    if let Some(i) = n.as_i64() {
        return Ok(i);
    }
    if n.is_u64() {
        return Err(Reason::OutOfRange);
    }
    // Float syntax (`1.0`, `1e2`) or an integer literal beyond `i64`/`u64`:
    // serde_json holds it as an `f64`, which names one integer only up to 2^53;
    // beyond that the submitted digits are already lost, so it is refused.
    let f = n
        .as_f64()
        .filter(|f| f.is_finite())
        .ok_or(Reason::WrongType)?;
    if f.fract() != 0.0 {
        return Err(Reason::NotAnInteger);
    }
    exact_i64(f).ok_or(Reason::OutOfRange)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn integers() {
        assert_eq!(integer(&json!(1.0)), Ok(1));
        assert_eq!(integer(&json!(-0.0)), Ok(0));
        assert_eq!(integer(&json!(1.5)), Err(Reason::NotAnInteger));
        assert_eq!(integer(&json!(u64::MAX)), Err(Reason::OutOfRange));
        assert_eq!(integer(&json!(1e19)), Err(Reason::OutOfRange));
        assert_eq!(
            integer(&json!(-9.223_372_036_854_776e18)),
            Err(Reason::OutOfRange)
        );
        assert_eq!(integer(&json!(i64::MIN)), Ok(i64::MIN));
        assert_eq!(
            integer(&json!(9_007_199_254_740_992.0)),
            Ok(9_007_199_254_740_992)
        );
        assert_eq!(integer(&json!("1")), Err(Reason::WrongType));
    }
}
