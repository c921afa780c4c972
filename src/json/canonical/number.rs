//! How the canonical form writes a number: an integer of magnitude below
//! 10^21 as its exact digits, any other number as ECMAScript writes the
//! double (RFC 8785 §3.2.2.3).
//!
//! The canonical form is that of the double the parser produced, so the crate
//! enables `serde_json`'s `float_roundtrip` feature: its default float parser can
//! be one unit in the last place off, and then `333333333.33333329` would not come
//! out as RFC 8785 says, nor would a canonical form read back as itself.
//!
//! Without `serde_json`'s `arbitrary_precision` feature, which this crate does not
//! enable (a test below guards that), a `Value` cannot hold NaN, an infinity or a
//! number beyond the range of a double, so every `Value` has a canonical form and
//! writing it cannot fail.

use serde_json::Number;

/// Writes a number: an integer of magnitude below 10^21 as its exact digits,
/// any other number as RFC 8785 writes the double (§3.2.2.3).
pub(super) fn write_number(number: &Number, out: &mut Vec<u8>) {
    if number.is_u64() || number.is_i64() {
        write_display(number, out);
        return;
    }
    match number.as_f64() {
        // From 2^53 on every double is an integer.
        Some(value) if (EXACT_FROM..EXACT_BELOW).contains(&value.abs()) => {
            write_display(&format_args!("{value:.0}"), out);
        }
        Some(value) => write_f64(value, out),
        // Only reachable with `arbitrary_precision`, for a number beyond the range
        // of a double, which RFC 8785 cannot express. Its own text keeps it
        // distinct from every canonical number rather than folding it into one.
        None => write_display(number, out),
    }
}

/// 2^53: below it, RFC 8785 already writes an integral double's exact digits.
const EXACT_FROM: f64 = 9_007_199_254_740_992.0;
/// 10^21: from here on, RFC 8785 writes an exponent, never digits alone.
const EXACT_BELOW: f64 = 1e21;

/// Appends `value` as `Display` writes it, without an intermediate `String`.
fn write_display(value: &dyn std::fmt::Display, out: &mut Vec<u8>) {
    use std::io::Write as _;
    // Writing to a `Vec` does not fail.
    let _ = write!(out, "{value}");
}

/// Writes a double as ECMAScript's `Number::toString(x)` (ECMA-262 §6.1.6.1.20).
///
/// The digits are those of [`shortest_digits`], `d.ddd × 10^e`, laid out by the
/// ECMAScript rules: plain when -7 < e < 21 (1e-6 <= |x| < 1e21), else
/// `d[.ddd]e±e`; `-0` is `0`.
fn write_f64(value: f64, out: &mut Vec<u8>) {
    if !value.is_finite() {
        // A `Number` cannot hold NaN or an infinity; JSON.stringify's choice.
        out.extend_from_slice(b"null");
        return;
    }
    if value == 0.0 {
        // Both zeros.
        out.push(b'0');
        return;
    }
    if value.is_sign_negative() {
        out.push(b'-');
    }
    let scientific = shortest_digits(value.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    // `lead` is one digit, `fraction` the other significant digits, if any.
    let (lead, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let (negative, magnitude) = match exponent.strip_prefix('-') {
        Some(magnitude) => (true, magnitude),
        None => (false, exponent),
    };
    // At most 324: the fallback is unreachable.
    let magnitude: u16 = magnitude.parse().unwrap_or(0);
    let shift = usize::from(magnitude);

    if !negative && shift <= 20 {
        // 1 <= x < 1e21: all digits before the point, or some before and some after.
        out.extend_from_slice(lead.as_bytes());
        match fraction.split_at_checked(shift) {
            Some((integer_part, fraction_part)) => {
                out.extend_from_slice(integer_part.as_bytes());
                if !fraction_part.is_empty() {
                    out.push(b'.');
                    out.extend_from_slice(fraction_part.as_bytes());
                }
            }
            None => {
                out.extend_from_slice(fraction.as_bytes());
                let zeros = shift.saturating_sub(fraction.len());
                out.extend(std::iter::repeat_n(b'0', zeros));
            }
        }
    } else if negative && shift <= 6 {
        // 1e-6 <= x < 1: "0.", zeros, then the digits.
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', shift.saturating_sub(1)));
        out.extend_from_slice(lead.as_bytes());
        out.extend_from_slice(fraction.as_bytes());
    } else {
        out.extend_from_slice(lead.as_bytes());
        if !fraction.is_empty() {
            out.push(b'.');
            out.extend_from_slice(fraction.as_bytes());
        }
        out.extend_from_slice(if negative { b"e-" } else { b"e+" });
        out.extend_from_slice(magnitude.to_string().as_bytes());
    }
}

/// The significant digits ECMAScript chooses for `magnitude` (positive, finite),
/// as Rust's `{:e}` writes them: `d[.ddd]e[-]n`.
///
/// ECMAScript takes the fewest digits that read back as the double, and of those
/// the decimal closest to it; of two equally close, the one with the even last
/// digit. Rust's shortest `{:e}` gives the fewest digits and the closest decimal,
/// but breaks that tie upwards: 1424953923781206.25 becomes ...206.3 where
/// ECMAScript (RFC 8785 Appendix B) wants ...206.2. Rust's `{:.N$e}` rounds the
/// exact value, ties to even; at the same number of digits it gives the decimal
/// ECMAScript wants whenever that one reads back as the double.
fn shortest_digits(magnitude: f64) -> String {
    let shortest = format!("{magnitude:e}");
    let digits = shortest
        .bytes()
        .take_while(|&byte| byte != b'e')
        .filter(u8::is_ascii_digit)
        .count();
    let nearest = format!("{magnitude:.*e}", digits.saturating_sub(1));
    if nearest != shortest && nearest.parse::<f64>() == Ok(magnitude) {
        nearest
    } else {
        shortest
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
pub(super) mod tests {
    use std::error::Error;

    use proptest::prelude::*;
    use serde_json::{Number, Value};

    use super::write_f64;

    type TestResult = Result<(), Box<dyn Error>>;

    fn number(value: f64) -> String {
        let mut out = Vec::new();
        write_f64(value, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// RFC 8785 Appendix B, the finite rows (NaN and Infinity cannot be a `Value`).
    #[test]
    fn rfc8785_appendix_b_numbers() {
        let samples: [(u64, &str); 24] = [
            (0x0000_0000_0000_0000, "0"),
            (0x8000_0000_0000_0000, "0"),
            (0x0000_0000_0000_0001, "5e-324"),
            (0x8000_0000_0000_0001, "-5e-324"),
            (0x7fef_ffff_ffff_ffff, "1.7976931348623157e+308"),
            (0xffef_ffff_ffff_ffff, "-1.7976931348623157e+308"),
            (0x4340_0000_0000_0000, "9007199254740992"),
            (0xc340_0000_0000_0000, "-9007199254740992"),
            (0x4430_0000_0000_0000, "295147905179352830000"),
            (0x44b5_2d02_c7e1_4af5, "9.999999999999997e+22"),
            (0x44b5_2d02_c7e1_4af6, "1e+23"),
            (0x44b5_2d02_c7e1_4af7, "1.0000000000000001e+23"),
            (0x444b_1ae4_d6e2_ef4e, "999999999999999700000"),
            (0x444b_1ae4_d6e2_ef4f, "999999999999999900000"),
            (0x444b_1ae4_d6e2_ef50, "1e+21"),
            (0x3eb0_c6f7_a0b5_ed8c, "9.999999999999997e-7"),
            (0x3eb0_c6f7_a0b5_ed8d, "0.000001"),
            (0x41b3_de43_5555_5553, "333333333.3333332"),
            (0x41b3_de43_5555_5554, "333333333.33333325"),
            (0x41b3_de43_5555_5555, "333333333.3333333"),
            (0x41b3_de43_5555_5556, "333333333.3333334"),
            (0x41b3_de43_5555_5557, "333333333.33333343"),
            (0xbecb_f647_612f_3696, "-0.0000033333333333333333"),
            // Round to even.
            (0x4314_3ff3_c1cb_0959, "1424953923781206.2"),
        ];
        for (bits, expected) in samples {
            assert_eq!(number(f64::from_bits(bits)), expected, "{bits:#018x}");
        }
    }

    #[test]
    fn exponent_thresholds_and_layouts() {
        let samples: [(f64, &str); 20] = [
            (1.0, "1"),
            (-1.0, "-1"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (100.0, "100"),
            (123.456, "123.456"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (1.5e300, "1.5e+300"),
            (1e-6, "0.000001"),
            (1.25e-6, "0.00000125"),
            (1e-7, "1e-7"),
            (-1.5e-7, "-1.5e-7"),
            (1.23e-18, "1.23e-18"),
            (0.5, "0.5"),
            (-0.0, "0"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            // Ties between two shortest decimals go to the even digit: 2^50 + 0.25
            // and 2^50 + 0.75 (Rust's own `{}` writes ...624.3 for the first).
            (f64::from_bits(0x4310_0000_0000_0001), "1125899906842624.2"),
            (f64::from_bits(0x4310_0000_0000_0003), "1125899906842624.8"),
        ];
        for (value, expected) in samples {
            assert_eq!(number(value), expected, "{value:e}");
        }
    }

    /// The totality argument of the module docs: `serde_json` as this crate builds
    /// it has no `arbitrary_precision`, so numbers beyond a double are refused at
    /// parse time and no `Number` is NaN or infinite.
    #[test]
    fn values_hold_only_finite_doubles() {
        assert!(serde_json::from_str::<Value>("1e400").is_err());
        assert!(serde_json::from_str::<Value>("-1e400").is_err());
        assert!(Number::from_f64(f64::NAN).is_none());
        assert!(Number::from_f64(f64::INFINITY).is_none());
    }

    /// The significant digits of a number's text: no sign, point, exponent, or
    /// leading or trailing zeros.
    fn significant_digits(text: &str) -> String {
        let mantissa = text.split(['e', 'E']).next().unwrap_or_default();
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        digits.trim_matches('0').to_owned()
    }

    /// The canonical form is only as good as the parse before it: `serde_json`'s
    /// default float parser can be one ULP off, so the crate enables its
    /// `float_roundtrip` feature. RFC 8785 §3.2.2's example depends on it.
    #[test]
    fn the_parser_rounds_correctly() -> TestResult {
        let parsed: f64 = serde_json::from_str("333333333.33333329")?;
        assert_eq!(parsed.to_bits(), 0x41b3_de43_5555_5555);
        let parsed: f64 = serde_json::from_str("-2.7534391198702806e-143")?;
        assert_eq!(number(parsed), "-2.7534391198702806e-143");
        Ok(())
    }

    pub(in crate::json::canonical) fn finite_f64() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<u64>().prop_map(f64::from_bits),
            any::<f64>(),
            any::<i64>().prop_map(|integer| integer as f64),
        ]
        .prop_filter("finite", |value| value.is_finite())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// The text reads back as the same double, uses the exponent form exactly
        /// where ECMAScript does, has as few significant digits as can read back,
        /// and no superfluous character.
        #[test]
        fn numbers_round_trip_and_follow_ecmascript(value in finite_f64()) {
            let text = number(value);
            let expected = if value == 0.0 { 0.0 } else { value };
            prop_assert_eq!(text.parse::<f64>().map(f64::to_bits), Ok(expected.to_bits()));

            let magnitude = value.abs();
            let exponent_form = magnitude >= 1e21 || (magnitude < 1e-6 && magnitude != 0.0);
            prop_assert_eq!(text.contains('e'), exponent_form);
            prop_assert_eq!(
                significant_digits(&text).len(),
                significant_digits(&format!("{magnitude:e}")).len()
            );

            let unsigned = text.strip_prefix('-').unwrap_or(&text);
            prop_assert_eq!(unsigned.len() < text.len(), value < 0.0);
            let (mantissa, exponent) = unsigned.split_once('e').unwrap_or((unsigned, ""));
            prop_assert!(mantissa == "0" || mantissa.starts_with("0.") || !mantissa.starts_with('0'));
            if let Some((_, fraction)) = mantissa.split_once('.') {
                prop_assert!(!fraction.is_empty() && !fraction.ends_with('0'));
            }
            if exponent_form {
                prop_assert!(mantissa.len() == 1 || mantissa.as_bytes().get(1) == Some(&b'.'));
                let digits = exponent.strip_prefix(['+', '-']).unwrap_or_default();
                prop_assert!(!digits.is_empty() && !digits.starts_with('0'));
                prop_assert!(digits.bytes().all(|byte| byte.is_ascii_digit()));
            }
        }
    }
}
