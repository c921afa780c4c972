//! The cases of `arguments.json`: argument texts that share one canonical
//! form and digest (`docs/FORMAT.md` §4.1), and no two cases a digest.

use super::file::{ArgumentsCase, canonical_and_digest};

impl ArgumentsCase {
    fn new(name: &str, description: &str, texts: &[&str]) -> Self {
        let (canonical, digest) = canonical_and_digest(texts[0]);
        Self {
            name: name.to_owned(),
            description: description.to_owned(),
            texts: texts.iter().map(|text| (*text).to_owned()).collect(),
            canonical,
            digest,
        }
    }
}

pub(super) fn arguments_cases() -> Vec<ArgumentsCase> {
    [small_number_cases(), large_integer_cases(), other_cases()].concat()
}

/// Small numbers: the spellings of one value share a form.
fn small_number_cases() -> Vec<ArgumentsCase> {
    let case = ArgumentsCase::new;
    vec![
        case(
            "one",
            "spellings of 1",
            &[
                r#"{"n":1}"#,
                r#"{"n":1.0}"#,
                r#"{"n":1e0}"#,
                r#"{"n":1E+0}"#,
                r#"{"n":10e-1}"#,
                r#"{"n":0.1e1}"#,
                r#"{"n":1.0000000000000001}"#,
            ],
        ),
        case(
            "zero",
            "0 and -0, and a number too small for a double",
            &[
                r#"{"n":0}"#,
                r#"{"n":-0}"#,
                r#"{"n":0.0}"#,
                r#"{"n":-0.0}"#,
                r#"{"n":0e7}"#,
                r#"{"n":-0E-3}"#,
                r#"{"n":1e-400}"#,
                r#"{"n":-1e-400}"#,
            ],
        ),
        case(
            "hundred",
            "exponent forms of an integer",
            &[
                r#"{"n":100}"#,
                r#"{"n":1E2}"#,
                r#"{"n":1e+2}"#,
                r#"{"n":100.0}"#,
                r#"{"n":10000e-2}"#,
            ],
        ),
        case(
            "negative-fraction",
            "a negative fraction",
            &[r#"{"n":-1.5}"#, r#"{"n":-15e-1}"#, r#"{"n":-0.15E1}"#],
        ),
        case(
            "tenth",
            "decimals that parse to one double",
            &[
                r#"{"n":0.1}"#,
                r#"{"n":0.10}"#,
                r#"{"n":1e-1}"#,
                r#"{"n":0.1000000000000000055511151231257827}"#,
            ],
        ),
        case("three-tenths", "0.3", &[r#"{"n":0.3}"#]),
        case(
            "three-tenths-neighbour",
            "the next double after 0.3",
            &[r#"{"n":0.30000000000000004}"#],
        ),
        case(
            "tiny",
            "RFC 8785's exponent form below 10^-6",
            &[r#"{"n":1e-7}"#, r#"{"n":0.0000001}"#, r#"{"n":1E-7}"#],
        ),
    ]
}

/// Integers from 2^53 up: exact digits, not the nearest double (§4.1).
fn large_integer_cases() -> Vec<ArgumentsCase> {
    let case = ArgumentsCase::new;
    vec![
        case(
            "two-to-53",
            "2^53, and a fraction that parses to it",
            &[
                r#"{"n":9007199254740992}"#,
                r#"{"n":9007199254740992.0}"#,
                r#"{"n":9.007199254740992e15}"#,
                r#"{"n":9007199254740993.0}"#,
            ],
        ),
        case(
            "two-to-53-plus-one",
            "an integer no double holds: exact",
            &[r#"{"n":9007199254740993}"#],
        ),
        case(
            "big-integer",
            "an order id beyond 2^53",
            &[r#"{"orderId":1234567890123456789}"#],
        ),
        case(
            "big-integer-neighbour",
            "another order id, equal as doubles",
            &[r#"{"orderId":1234567890123456700}"#],
        ),
        case(
            "big-integer-as-double",
            "the double nearest 1234567890123456789, written exactly",
            &[
                r#"{"orderId":1234567890123456768}"#,
                r#"{"orderId":1234567890123456789.0}"#,
                r#"{"orderId":1.234567890123456789e18}"#,
            ],
        ),
        case(
            "two-to-63",
            "2^63 as an integer and as a double",
            &[
                r#"{"n":9223372036854775808}"#,
                r#"{"n":9.223372036854775808e18}"#,
                r#"{"n":9223372036854775808.0}"#,
                r#"{"n":9.223372036854776e18}"#,
            ],
        ),
        case(
            "two-to-63-shortest",
            "the digits RFC 8785 writes for 2^63, as an integer",
            &[r#"{"n":9223372036854776000}"#],
        ),
        case(
            "u64-max",
            "the largest integer serde_json holds exactly",
            &[r#"{"n":18446744073709551615}"#],
        ),
        case(
            "two-to-64",
            "beyond u64, integers are parsed as doubles",
            &[
                r#"{"n":18446744073709551616}"#,
                r#"{"n":18446744073709551617}"#,
                r#"{"n":1.8446744073709552e19}"#,
                r#"{"n":18446744073709551616.0}"#,
            ],
        ),
        case(
            "i64-min",
            "the smallest integer serde_json holds exactly, and one below it",
            &[
                r#"{"n":-9223372036854775808}"#,
                r#"{"n":-9223372036854775809}"#,
                r#"{"n":-9.223372036854775808e18}"#,
            ],
        ),
    ]
}

/// Doubles of 10^21 and more, a string, member order and nesting.
fn other_cases() -> Vec<ArgumentsCase> {
    let case = ArgumentsCase::new;
    vec![
        case(
            "just-below-ten-to-21",
            "the largest double below 10^21, written exactly",
            &[
                r#"{"n":999999999999999868928}"#,
                r#"{"n":9.999999999999999e20}"#,
            ],
        ),
        case(
            "ten-to-21",
            "from 10^21 on, RFC 8785's exponent form",
            &[
                r#"{"n":1e21}"#,
                r#"{"n":1E21}"#,
                r#"{"n":1e+21}"#,
                r#"{"n":1000000000000000000000}"#,
                r#"{"n":1000000000000000000000.0}"#,
                r#"{"n":999999999999999999999}"#,
            ],
        ),
        case(
            "large-double",
            "a large double",
            &[r#"{"n":1e300}"#, r#"{"n":1E300}"#, r#"{"n":10e299}"#],
        ),
        case("string-one", "a string is not a number", &[r#"{"n":"1"}"#]),
        case(
            "order-and-nesting",
            "member order, white space and nested spellings",
            &[
                r#"{"a":1,"b":[1.0,-0,{"y":2,"x":1}]}"#,
                r#"{ "b" : [ 1e0 , 0 , { "x" : 1.0 , "y" : 2E0 } ] , "a" : 1 }"#,
            ],
        ),
    ]
}
