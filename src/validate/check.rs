//! The check of one answer value against one field.

use serde_json::Value;

use super::answers::AnswerRef;
use super::format;
use super::report::Reason;
use crate::form::{Choice, Field, Kind};

/// A checked answer, borrowing text from the input: typed, bounded, and for
/// choices an index into the field's options (so nothing submitted is kept
/// for them).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Checked<'v> {
    Text(&'v str),
    Int(i64),
    Num(f64),
    Bool(bool),
    Choice(usize),
    Choices(Vec<usize>),
}

impl<'v> Checked<'v> {
    /// The answer as seen by accessors (choices resolved to their values).
    pub(crate) fn to_ref<'a>(&self, field: &'a Field) -> AnswerRef<'a>
    where
        'v: 'a,
    {
        match self {
            Self::Text(s) => AnswerRef::Str(s),
            Self::Int(i) => AnswerRef::Int(*i),
            Self::Num(n) => AnswerRef::Num(*n),
            Self::Bool(b) => AnswerRef::Bool(*b),
            Self::Choice(i) => AnswerRef::Str(option_value(field, *i)),
            Self::Choices(list) => {
                AnswerRef::Strings(list.iter().map(|i| option_value(field, *i)).collect())
            }
        }
    }
}

/// The value of option `i` of `field` (`""` cannot happen for a checked index).
pub(crate) fn option_value(field: &Field, i: usize) -> &str {
    field.choices().get(i).map_or("", |c| c.value.as_str())
}

/// Checks `v` against `field`; the order is type, then bounds/options, then format.
pub(crate) fn check<'v>(field: &Field, v: &'v Value) -> Result<Checked<'v>, Reason> {
    if v.is_null() {
        return Err(Reason::Null);
    }
    match &field.kind {
        Kind::Text {
            min_length,
            max_length,
            format,
        } => {
            let s = v.as_str().ok_or(Reason::WrongType)?;
            check_length(s, *min_length, *max_length)?;
            if let Some(fmt) = format
                && !format::check(*fmt, s)
            {
                return Err(Reason::BadFormat);
            }
            Ok(Checked::Text(s))
        }
        Kind::Integer { minimum, maximum } => {
            let i = integer(v)?;
            if minimum.is_some_and(|lo| i < lo) {
                return Err(Reason::BelowMinimum);
            }
            if maximum.is_some_and(|hi| i > hi) {
                return Err(Reason::AboveMaximum);
            }
            Ok(Checked::Int(i))
        }
        Kind::Number { minimum, maximum } => {
            let n = v
                .as_f64()
                .filter(|n| n.is_finite())
                .ok_or(Reason::WrongType)?;
            // `-0` is `0`.
            let n = if n == 0.0 { 0.0 } else { n };
            if minimum.is_some_and(|lo| n < lo) {
                return Err(Reason::BelowMinimum);
            }
            if maximum.is_some_and(|hi| n > hi) {
                return Err(Reason::AboveMaximum);
            }
            Ok(Checked::Num(n))
        }
        Kind::Boolean => v.as_bool().map(Checked::Bool).ok_or(Reason::WrongType),
        Kind::Choice { options } => {
            let s = v.as_str().ok_or(Reason::WrongType)?;
            offered(options, s).map(Checked::Choice)
        }
        Kind::Multi {
            options,
            min_items,
            max_items,
        } => {
            let items = v.as_array().ok_or(Reason::WrongType)?;
            // More items than options means a duplicate or an unoffered item,
            // found within the first `options.len() + 1` items: the loop is
            // bounded by the form, not by the input.
            let mut picked = Vec::with_capacity(items.len().min(options.len()));
            for item in items {
                let s = item.as_str().ok_or(Reason::WrongType)?;
                let i = offered(options, s)?;
                if picked.contains(&i) {
                    return Err(Reason::DuplicateItem);
                }
                picked.push(i);
            }
            let n = u64::try_from(picked.len()).unwrap_or(u64::MAX);
            if min_items.is_some_and(|lo| n < lo) {
                return Err(Reason::TooFewItems);
            }
            if max_items.is_some_and(|hi| n > hi) {
                return Err(Reason::TooManyItems);
            }
            Ok(Checked::Choices(picked))
        }
    }
}

/// Length in Unicode code points, counted only as far as a bound needs.
fn check_length(s: &str, min: Option<u64>, max: Option<u64>) -> Result<(), Reason> {
    if min.is_none() && max.is_none() {
        return Ok(());
    }
    // Each code point is 1 to 4 bytes: decide from the byte length when possible.
    let bytes = u64::try_from(s.len()).unwrap_or(u64::MAX);
    let need_count = min.is_some_and(|lo| bytes >= lo && bytes / 4 < lo)
        || max.is_some_and(|hi| bytes > hi && bytes / 4 <= hi);
    if min.is_some_and(|lo| bytes < lo) {
        return Err(Reason::TooShort);
    }
    if max.is_some_and(|hi| bytes / 4 > hi) {
        return Err(Reason::TooLong);
    }
    if need_count {
        let n = u64::try_from(s.chars().count()).unwrap_or(u64::MAX);
        if min.is_some_and(|lo| n < lo) {
            return Err(Reason::TooShort);
        }
        if max.is_some_and(|hi| n > hi) {
            return Err(Reason::TooLong);
        }
    }
    Ok(())
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
    crate::form::exact_i64(f).ok_or(Reason::OutOfRange)
}

/// The index of the option whose value is exactly `s` (code point for code point).
fn offered(options: &[Choice], s: &str) -> Result<usize, Reason> {
    options
        .iter()
        .position(|c| c.value == s)
        .ok_or(Reason::NotOffered)
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

    #[test]
    fn lengths_count_code_points() {
        assert_eq!(check_length("💩💩", Some(2), Some(2)), Ok(()));
        assert_eq!(check_length("💩💩💩", None, Some(2)), Err(Reason::TooLong));
        assert_eq!(check_length("é", Some(2), None), Err(Reason::TooShort));
        assert_eq!(check_length("", Some(1), None), Err(Reason::TooShort));
        assert_eq!(check_length("abc", Some(0), Some(3)), Ok(()));
        assert_eq!(
            check_length(&"a".repeat(100), None, Some(10)),
            Err(Reason::TooLong)
        );
    }
}
