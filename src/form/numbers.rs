//! Numbers as the form profile reads and writes them: whole `f64`s that
//! name exactly one integer, counts, and canonical JSON numbers.

use serde_json::Value;

/// The largest magnitude an integer given as `f64` may have (2^53): beyond
/// it an `f64` no longer names one integer.
const EXACT_F64_INT: f64 = 9_007_199_254_740_992.0;

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
}
