//! The canonical serializer: walks a JSON value and writes it as RFC 8785
//! says, its numbers written by `number`.
//!
//! The walk is iterative: however deeply a `Value` nests, it cannot exhaust the
//! stack here.

use serde_json::{Map, Value};

use super::number::write_number;

/// Appends the canonical serialization of `value` to `out`: RFC 8785 with exact
/// integers (see the docs of `json::canonical`).
///
/// The output is UTF-8 JSON text.
fn write_canonical(value: &Value, out: &mut Vec<u8>) {
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

    use super::canonical;
    use crate::json::canonical::number::tests::finite_f64;

    type TestResult = Result<(), Box<dyn Error>>;

    fn canonical_text(value: &Value) -> String {
        String::from_utf8_lossy(&canonical(value)).into_owned()
    }

    /// Parses `json` with `serde_json` and canonicalizes it.
    fn canonicalize(json: &str) -> Result<String, Box<dyn Error>> {
        let value: Value = serde_json::from_str(json)?;
        Ok(String::from_utf8(canonical(&value))?)
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
