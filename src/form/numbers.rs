//! Numbers as the form profile reads and writes them: the integer range,
//! whole `f64`s, bounds given as either, counts, and canonical JSON numbers.

use serde_json::Value;

/// The largest magnitude an integer given as `f64` may have (2^53): beyond
/// it an `f64` no longer names one integer.
const EXACT_F64_INT: f64 = 9_007_199_254_740_992.0;

/// From this magnitude on (2^52) every `f64` is whole: a literal such as
/// `4503599627370497.5` has already been rounded to a whole `f64`, so an
/// answer in float syntax can no longer be told from a fraction.
const WHOLE_F64: f64 = 4_503_599_627_370_496.0;

/// The smallest value an integer field holds: `i64::MIN`.
pub(crate) const INT_MIN: i128 = i64::MIN as i128;
/// The largest value an integer field holds: `u64::MAX`.
pub(crate) const INT_MAX: i128 = u64::MAX as i128;

/// An inclusive bound given to [`Field::minimum`](crate::form::Field::minimum) or
/// [`Field::maximum`](crate::form::Field::maximum): any Rust integer up to 64 bits,
/// or a float.
///
/// On an integer field a bound is exact when it is an integer, and a float
/// bound is rounded inward (a `minimum` of `0.5` is `1`, a `maximum` of
/// `10.5` is `10`); either must land in `i64::MIN..=u64::MAX`. On a number
/// field a bound is an `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    repr: Repr,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Repr {
    Int(i128),
    Float(f64),
}

impl Bound {
    /// The bound of an integer field: rounded inward when it is a float
    /// (`lower`: up, else down); `None` when not finite or out of range.
    pub(crate) fn to_int(self, lower: bool) -> Option<i128> {
        match self.repr {
            Repr::Int(i) => Some(i).filter(|i| (INT_MIN..=INT_MAX).contains(i)),
            Repr::Float(f) => whole_bound(f, lower),
        }
    }

    /// The bound of a number field (an integer beyond 2^53 is rounded to the
    /// nearest `f64`).
    pub(crate) fn to_f64(self) -> f64 {
        match self.repr {
            #[expect(
                clippy::cast_precision_loss,
                reason = "documented: a number field's bound is an f64"
            )]
            Repr::Int(i) => i as f64,
            Repr::Float(f) => f,
        }
    }

    /// The bound a JSON number gives: exact for integer syntax, else an `f64`.
    pub(crate) fn from_json(v: &Value) -> Option<Self> {
        let repr = match (v.as_i64(), v.as_u64()) {
            (Some(i), _) => Repr::Int(i.into()),
            (None, Some(u)) => Repr::Int(u.into()),
            (None, None) => Repr::Float(v.as_f64()?),
        };
        Some(Self { repr })
    }
}

macro_rules! int_bound {
    ($($t:ty),*) => {$(
        impl From<$t> for Bound {
            fn from(v: $t) -> Self {
                Self { repr: Repr::Int(i128::from(v)) }
            }
        }
    )*};
}
int_bound!(i8, i16, i32, i64, u8, u16, u32, u64);

impl From<f64> for Bound {
    fn from(v: f64) -> Self {
        Self {
            repr: Repr::Float(v),
        }
    }
}

impl From<f32> for Bound {
    fn from(v: f32) -> Self {
        Self::from(f64::from(v))
    }
}

/// A float bound of an integer field, rounded inward (`lower`: up, else
/// down), if it is finite and lands in `INT_MIN..=INT_MAX`.
fn whole_bound(f: f64, lower: bool) -> Option<i128> {
    let r = if lower { f.ceil() } else { f.floor() };
    #[expect(
        clippy::cast_precision_loss,
        reason = "i64::MIN is -2^63 and u64::MAX + 1 is 2^64, both exact in f64"
    )]
    let (lo, hi) = (INT_MIN as f64, (INT_MAX + 1) as f64);
    if r.is_finite() && r >= lo && r < hi {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "whole and within i64::MIN..=u64::MAX, so exact"
        )]
        Some(r as i128)
    } else {
        None
    }
}

/// An integer answer in float syntax (`1.0`, `1e2`): whole and of magnitude
/// below 2^52, where an `f64` still tells a whole number from a fraction.
/// `Err(true)` when it has a fraction, `Err(false)` when it is too large to
/// tell.
pub(crate) fn whole_answer(f: f64) -> Result<i128, bool> {
    if !f.is_finite() || f.abs() >= WHOLE_F64 {
        return Err(false);
    }
    if f.fract() != 0.0 {
        return Err(true);
    }
    #[expect(
        clippy::cast_possible_truncation,
        reason = "whole and below 2^52, so exact"
    )]
    Ok(f as i128)
}

/// An integer of `INT_MIN..=INT_MAX` as a JSON integer.
pub(crate) fn int_json(i: i128) -> Value {
    match (i64::try_from(i), u64::try_from(i)) {
        (Ok(v), _) => Value::from(v),
        (_, Ok(v)) => Value::from(v),
        _ => Value::Null,
    }
}

/// `v` as an `i64` when it is a whole number of magnitude at most 2^53.
pub(crate) fn exact_i64(v: f64) -> Option<i64> {
    if v.is_finite() && v.fract() == 0.0 && v.abs() <= EXACT_F64_INT {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "whole and within 2^53, so exact"
        )]
        Some(v as i64)
    } else {
        None
    }
}

/// A whole `f64` within 2^53 as a JSON integer (`3`, not `3.0`), others as floats.
pub(crate) fn number_json(v: f64) -> Value {
    match exact_i64(v) {
        Some(i) => Value::from(i),
        None => serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
    }
}

/// A non-negative whole count (`2` or `2.0`).
pub(crate) fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .and_then(exact_i64)
            .and_then(|i| u64::try_from(i).ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_integers_only() {
        assert_eq!(exact_i64(2.0), Some(2));
        assert_eq!(exact_i64(-0.0), Some(0));
        assert_eq!(exact_i64(1.5), None);
        assert_eq!(exact_i64(1e300), None);
        assert_eq!(exact_i64(f64::NAN), None);
    }

    #[test]
    fn bounds_round_inward_and_stay_in_range() {
        let int = |b: Bound, lower| b.to_int(lower);
        assert_eq!(int(0.5.into(), true), Some(1));
        assert_eq!(int(0.5.into(), false), Some(0));
        assert_eq!(int((-0.5).into(), true), Some(0));
        assert_eq!(int(u64::MAX.into(), false), Some(INT_MAX));
        assert_eq!(int(i64::MIN.into(), true), Some(INT_MIN));
        assert_eq!(int(1.8e19.into(), false), Some(18_000_000_000_000_000_000));
        assert_eq!(int(1.9e19.into(), false), None);
        assert_eq!(int((-9.3e18).into(), true), None);
        assert_eq!(int(f64::NAN.into(), true), None);
        assert_eq!(int(f64::INFINITY.into(), false), None);
    }

    #[test]
    fn whole_answers_stop_at_two_to_the_52() {
        assert_eq!(whole_answer(1.0), Ok(1));
        assert_eq!(whole_answer(-0.0), Ok(0));
        assert_eq!(whole_answer(1.5), Err(true));
        assert_eq!(
            whole_answer(4_503_599_627_370_495.0),
            Ok(4_503_599_627_370_495)
        );
        assert_eq!(whole_answer(4_503_599_627_370_495.5), Err(true));
        assert_eq!(whole_answer(WHOLE_F64), Err(false));
        assert_eq!(whole_answer(-WHOLE_F64), Err(false));
        assert_eq!(whole_answer(1e300), Err(false));
    }

    #[test]
    fn integers_as_json() {
        assert_eq!(int_json(INT_MAX), Value::from(u64::MAX));
        assert_eq!(int_json(INT_MIN), Value::from(i64::MIN));
        assert_eq!(int_json(-1), Value::from(-1));
    }
}
