//! The canonical form of a JSON value, for the arguments digest: RFC 8785's
//! JSON Canonicalization Scheme (JCS) with one change, exact integers.
//!
//! The digest of a tool call's arguments must not depend on how a client spelled
//! them: member order, whitespace, `1.0` against `1`, `\u00e9` against `é`. It
//! must depend on every value the handler sees. JCS fixes one spelling for every
//! JSON value:
//!
//! - objects have their members sorted by name, the names compared as sequences of
//!   UTF-16 code units (RFC 8785 §3.2.3), not as UTF-8 bytes;
//! - there is no whitespace;
//! - strings escape `"`, `\` and U+0000..U+001F only; `\b \t \n \f \r` take the
//!   short forms and the other controls `\u00xx` in lowercase hex; everything else,
//!   `/`, U+2028, U+2029 and all non-ASCII characters included, is written as
//!   UTF-8 (RFC 8785 §3.2.2.2);
//! - numbers are written as ECMAScript's `Number.prototype.toString` writes the
//!   IEEE-754 double they denote (RFC 8785 §3.2.2.3).
//!
//! The change: RFC 8785 first rounds every number to a double, so
//! `9007199254740993` and `9007199254740992` would share a form although
//! `serde_json` hands the handler two different integers. Here a number whose
//! value is an integer of magnitude below 10^21 is written as its exact decimal
//! digits: every `serde_json` integer (`u64`, `i64`), and every double from 2^53
//! up to 10^21 (each of those is an integer). Below 2^53 the digits are what
//! RFC 8785 writes anyway; from 10^21 on RFC 8785 writes an exponent (`1e+21`),
//! and a fraction always has a `.` or an `e-`, so digits alone never stand for
//! two values. Two numbers share a form exactly when their values are equal
//! (`0` and `-0` are).
//!
//! The canonical form is that of the double the parser produced, so the crate
//! enables `serde_json`'s `float_roundtrip` feature: its default float parser can
//! be one unit in the last place off, and then `333333333.33333329` would not come
//! out as RFC 8785 says, nor would a canonical form read back as itself.
//!
//! Without `serde_json`'s `arbitrary_precision` feature, which this crate does not
//! enable (a test below guards that), a `Value` cannot hold NaN, an infinity or a
//! number beyond the range of a double, so every `Value` has a canonical form and
//! the functions here are total.
//!
//! The walk is iterative: however deeply a `Value` nests, it cannot exhaust the
//! stack here.

use serde_json::{Map, Number, Value};

/// Appends the canonical serialization of `value` to `out`: RFC 8785 with exact
/// integers (see the module docs).
///
/// The output is UTF-8 JSON text.
pub(crate) fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    let mut pending = vec![Step::Value(value)];
    while let Some(step) = pending.pop() {
        match step {
            Step::Byte(byte) => out.push(byte),
            Step::Name(name) => {
                write_string(name, out);
                out.push(b':');
            }
            Step::Value(Value::Null) => out.extend_from_slice(b"null"),
            Step::Value(Value::Bool(true)) => out.extend_from_slice(b"true"),
            Step::Value(Value::Bool(false)) => out.extend_from_slice(b"false"),
            Step::Value(Value::Number(number)) => write_number(number, out),
            Step::Value(Value::String(text)) => write_string(text, out),
            Step::Value(Value::Array(items)) => {
                out.push(b'[');
                pending.push(Step::Byte(b']'));
                // Pushed last to first, so that they are written first to last.
                for (index, item) in items.iter().enumerate().rev() {
                    pending.push(Step::Value(item));
                    if index != 0 {
                        pending.push(Step::Byte(b','));
                    }
                }
            }
            Step::Value(Value::Object(members)) => {
                out.push(b'{');
                pending.push(Step::Byte(b'}'));
                for (index, (name, item)) in sorted_members(members).into_iter().enumerate().rev() {
                    pending.push(Step::Value(item));
                    pending.push(Step::Name(name));
                    if index != 0 {
                        pending.push(Step::Byte(b','));
                    }
                }
            }
        }
    }
}

/// The canonical serialization of `value`; see [`write_canonical`].
pub(crate) fn canonical(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_canonical(value, &mut out);
    out
}

/// What is left to write, on the explicit stack of [`write_canonical`].
#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    /// A value, written with everything inside it.
    Value(&'a Value),
    /// A member name and the `:` after it.
    Name(&'a str),
    /// A structural byte: `,`, `]` or `}`.
    Byte(u8),
}

/// The members of an object, sorted by name as UTF-16 code unit sequences.
///
/// `serde_json`'s map iterates in UTF-8 byte order (or insertion order with
/// `preserve_order`). UTF-8 byte order and UTF-16 code unit order disagree when a
/// character above U+FFFF (a surrogate pair, D800..DFFF) meets one in
/// U+E000..U+FFFF, so the sort is done here whatever order the map keeps. Names in
/// one map are distinct, so an unstable sort is deterministic.
fn sorted_members(members: &Map<String, Value>) -> Vec<(&str, &Value)> {
    let mut sorted: Vec<(&str, &Value)> = members
        .iter()
        .map(|(name, item)| (name.as_str(), item))
        .collect();
    sorted.sort_unstable_by(|(left, _), (right, _)| left.encode_utf16().cmp(right.encode_utf16()));
    sorted
}

/// Writes a string literal as RFC 8785 §3.2.2.2 says.
fn write_string(text: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    // Every byte that needs escaping is ASCII, and no byte of a multi-byte UTF-8
    // sequence is ASCII, so the string can be walked byte by byte.
    for &byte in text.as_bytes() {
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x00..=0x1f => out.extend_from_slice(format!("\\u{byte:04x}").as_bytes()),
            _ => out.push(byte),
        }
    }
    out.push(b'"');
}

/// Writes a number: an integer of magnitude below 10^21 as its exact digits,
/// any other number as RFC 8785 writes the double (§3.2.2.3).
fn write_number(number: &Number, out: &mut Vec<u8>) {
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
mod tests {
    use std::error::Error;

    use proptest::prelude::*;
    use serde_json::{Map, Number, Value, json};

    use super::{canonical, write_f64};

    type TestResult = Result<(), Box<dyn Error>>;

    fn number(value: f64) -> String {
        let mut out = Vec::new();
        write_f64(value, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    fn canonical_text(value: &Value) -> String {
        String::from_utf8_lossy(&canonical(value)).into_owned()
    }

    /// Parses `json` with `serde_json` and canonicalizes it.
    fn canonicalize(json: &str) -> Result<String, Box<dyn Error>> {
        let value: Value = serde_json::from_str(json)?;
        Ok(String::from_utf8(canonical(&value))?)
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

    #[test]
    fn equal_values_share_a_form() -> TestResult {
        assert_eq!(
            canonicalize("[1, 1.0, 1e0, 100e-2, 0.1e1, 1.0000000000000001]")?,
            "[1,1,1,1,1,1]"
        );
        assert_eq!(
            canonicalize("[0, -0, 0.0, -0.0, 0e7, -0E-3, 1e-400, -1e-400]")?,
            "[0,0,0,0,0,0,0,0]"
        );
        // 2^53 + 1 is no double: as a fraction it is rounded to 2^53 when parsed.
        assert_eq!(
            canonicalize("[9007199254740992, 9007199254740992.0, 9007199254740993.0]")?,
            "[9007199254740992,9007199254740992,9007199254740992]"
        );
        // Beyond the integers `serde_json` holds, integers are parsed as doubles.
        assert_eq!(
            canonicalize("[18446744073709551616, 18446744073709551617, 1.8446744073709552e19]")?,
            "[18446744073709551616,18446744073709551616,18446744073709551616]"
        );
        assert_eq!(
            canonicalize("[-9223372036854775808, -9223372036854775809, -9.223372036854775808e18]")?,
            "[-9223372036854775808,-9223372036854775808,-9223372036854775808]"
        );
        Ok(())
    }

    #[test]
    fn integers_keep_their_exact_value() -> TestResult {
        assert_eq!(canonicalize("9007199254740993")?, "9007199254740993");
        assert_eq!(canonicalize("1234567890123456789")?, "1234567890123456789");
        assert_eq!(canonical_text(&json!(u64::MAX)), "18446744073709551615");
        assert_eq!(canonical_text(&json!(i64::MIN)), "-9223372036854775808");
        assert_eq!(canonical_text(&json!(i64::MAX)), "9223372036854775807");
        // Doubles of integral value below 10^21 are written exactly too, so
        // that no integer's digits stand for a double of another value.
        assert_eq!(canonical_text(&json!(2f64.powi(63))), "9223372036854775808");
        assert_eq!(
            canonical_text(&json!(9_223_372_036_854_776_000_u64)),
            "9223372036854776000"
        );
        assert_eq!(
            canonical_text(&json!(2f64.powi(64))),
            "18446744073709551616"
        );
        assert_eq!(
            canonical_text(&json!(-(2f64.powi(69)))),
            "-590295810358705651712"
        );
        // From 10^21 on, RFC 8785's exponent form: never digits alone.
        assert_eq!(
            canonicalize("[1e21, 1E+21, 1000000000000000000000]")?,
            "[1e+21,1e+21,1e+21]"
        );
        assert_eq!(
            canonical_text(&json!(2f64.powi(70))),
            "1.1805916207174113e+21"
        );
        Ok(())
    }

    /// The example of RFC 8785 §3.2.2 (and cyberphone's `values.json`).
    #[test]
    fn rfc8785_primitive_example() -> TestResult {
        let input = r#"{
            "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
            "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
            "literals": [null, true, false]
        }"#;
        let expected = r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#;
        assert_eq!(canonicalize(input)?, expected);
        Ok(())
    }

    /// The example of RFC 8785 §3.2.3: the emoji (D83D DE00) sorts before U+FB33
    /// although its UTF-8 bytes (F0 ..) come after U+FB33's (EF ..).
    #[test]
    fn rfc8785_sorting_example() -> TestResult {
        let input = r#"{
            "\u20ac": "Euro Sign",
            "\r": "Carriage Return",
            "\ufb33": "Hebrew Letter Dalet With Dagesh",
            "1": "One",
            "\ud83d\ude00": "Emoji: Grinning Face",
            "\u0080": "Control",
            "\u00f6": "Latin Small Letter O With Diaeresis"
        }"#;
        let expected = concat!(
            r#"{"\r":"Carriage Return","1":"One","#,
            "\"\u{80}\":\"Control\",",
            "\"\u{f6}\":\"Latin Small Letter O With Diaeresis\",",
            "\"\u{20ac}\":\"Euro Sign\",",
            "\"\u{1f600}\":\"Emoji: Grinning Face\",",
            "\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}",
        );
        assert_eq!(canonicalize(input)?, expected);
        Ok(())
    }

    /// The pairs of `testdata/` in cyberphone/json-canonicalization, the RFC
    /// author's reference implementations.
    #[test]
    fn reference_test_data() -> TestResult {
        let pairs = [
            (
                r#"[56, {"d": true, "10": null, "1": [ ]}]"#,
                r#"[56,{"1":[],"10":null,"d":true}]"#,
            ),
            (
                r#"{"peach": "This sorting order", "péché": "is wrong according to French",
                    "pêche": "but canonicalization MUST", "sin": "ignore locale"}"#,
                r#"{"peach":"This sorting order","péché":"is wrong according to French","pêche":"but canonicalization MUST","sin":"ignore locale"}"#,
            ),
            (
                r#"{"1": {"f": {"f": "hi","F": 5} ,"\n": 56.0}, "10": { }, "": "empty",
                    "a": { }, "111": [ {"e": "yes","E": "no" } ], "A": { }}"#,
                r#"{"":"empty","1":{"\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{"E":"no","e":"yes"}],"A":{},"a":{}}"#,
            ),
            // No Unicode normalization.
            (
                r#"{"Unnormalized Unicode":"A\u030a"}"#,
                "{\"Unnormalized Unicode\":\"A\u{30a}\"}",
            ),
            (
                r#"{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\u000a": "Newline",
                    "1": "One", "\u0080": "Control\u007f", "\ud83d\ude02": "Smiley",
                    "\u00f6": "Latin Small Letter O With Diaeresis",
                    "\ufb33": "Hebrew Letter Dalet With Dagesh", "</script>": "Browser Challenge"}"#,
                concat!(
                    r#"{"\n":"Newline","\r":"Carriage Return","1":"One","</script>":"Browser Challenge","#,
                    "\"\u{80}\":\"Control\u{7f}\",",
                    "\"\u{f6}\":\"Latin Small Letter O With Diaeresis\",",
                    "\"\u{20ac}\":\"Euro Sign\",",
                    "\"\u{1f602}\":\"Smiley\",",
                    "\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}",
                ),
            ),
        ];
        for (input, expected) in pairs {
            assert_eq!(canonicalize(input)?, expected, "{input}");
        }
        Ok(())
    }

    /// U+E000 is EE 80 80 in UTF-8 and E000 in UTF-16; U+10000 is F0 90 80 80 and
    /// D800 DC00. The map's own order is the UTF-8 one; the canonical one is not.
    #[test]
    fn names_sort_by_utf16_not_utf8() {
        let mut members = Map::new();
        members.insert("\u{e000}".to_owned(), json!(1));
        members.insert("\u{10000}".to_owned(), json!(2));
        members.insert("\u{ffff}".to_owned(), json!(3));
        members.insert("a".to_owned(), json!(4));
        let value = Value::Object(members);
        let map_order = serde_json::to_string(&value).unwrap_or_default();
        assert_eq!(
            map_order,
            "{\"a\":4,\"\u{e000}\":1,\"\u{ffff}\":3,\"\u{10000}\":2}"
        );
        assert_eq!(
            canonical_text(&value),
            "{\"a\":4,\"\u{10000}\":2,\"\u{e000}\":1,\"\u{ffff}\":3}"
        );
    }

    #[test]
    fn shorter_name_sorts_first() -> TestResult {
        assert_eq!(
            canonicalize(r#"{"ab":1,"a":2,"":3}"#)?,
            r#"{"":3,"a":2,"ab":1}"#
        );
        Ok(())
    }

    #[test]
    fn strings_escape_only_what_rfc8785_says() {
        let all_controls: String = (0_u8..0x20).map(char::from).collect();
        assert_eq!(
            canonical_text(&json!(all_controls)),
            concat!(
                r#""\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f"#,
                r#"\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f""#,
            )
        );
        let literal = "/ \u{7f} \u{80} \u{2028} \u{2029} é € 😀 \u{fffd} <>&'";
        assert_eq!(canonical_text(&json!(literal)), format!("\"{literal}\""));
        assert_eq!(canonical_text(&json!("\"\\")), r#""\"\\""#);
    }

    #[test]
    fn literals_and_empty_containers() -> TestResult {
        assert_eq!(
            canonicalize(" [ null , true , false , [ ] , { } , \"\" ] ")?,
            r#"[null,true,false,[],{},""]"#
        );
        Ok(())
    }

    #[test]
    fn member_order_does_not_matter() -> TestResult {
        assert_eq!(canonicalize(r#"{"b":1,"a":2}"#)?, r#"{"a":2,"b":1}"#);
        assert_eq!(canonicalize(r#"{"a":2,"b":1}"#)?, r#"{"a":2,"b":1}"#);
        assert_eq!(
            canonicalize(r#"{"z":{"y":[3,{"b":null,"a":1.0}],"x":"s"},"a":[]}"#)?,
            r#"{"a":[],"z":{"x":"s","y":[3,{"a":1,"b":null}]}}"#
        );
        Ok(())
    }

    #[test]
    fn canonical_form_is_a_fixed_point() -> TestResult {
        let input = r#"{"b": [1.50, -0, 0.1e1, 1e21, 123456789012345678901234],
                        "a": {"\u00e9": "\u2028", "e\u0301": 1e-7}}"#;
        let once = canonicalize(input)?;
        assert_eq!(canonicalize(&once)?, once);
        Ok(())
    }

    #[test]
    fn deep_nesting_does_not_exhaust_the_stack() {
        const DEPTH: usize = 100_000;
        let mut value = Value::Null;
        for _ in 0..DEPTH {
            value = Value::Array(vec![value]);
        }
        let out = canonical(&value);
        // `Value`'s own drop recurses; take it apart by hand before any assertion
        // can unwind through it.
        while let Value::Array(mut items) = value {
            value = items.pop().unwrap_or(Value::Null);
        }
        let expected = format!("{}null{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
        assert!(out == expected.as_bytes());
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

    fn finite_f64() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<u64>().prop_map(f64::from_bits),
            any::<f64>(),
            any::<i64>().prop_map(|integer| integer as f64),
        ]
        .prop_filter("finite", |value| value.is_finite())
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            finite_f64()
                .prop_filter_map("finite", |value| Number::from_f64(value).map(Value::Number)),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
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

        /// Canonicalizing the canonical form changes nothing.
        #[test]
        fn canonical_is_idempotent(value in any_value()) {
            let once = canonical(&value);
            let reparsed: Value = serde_json::from_slice(&once)
                .map_err(|error| TestCaseError::fail(error.to_string()))?;
            prop_assert_eq!(canonical(&reparsed), once);
        }
    }
}
