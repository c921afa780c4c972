//! Property tests: arbitrary JSON never panics the validator; an accepted
//! answer validates again as accepted and holds only declared keys.

use mrtr_guard::form::Verdict;
use mrtr_guard::json::{Limits, parse_strict};
use mrtr_guard::{Field, Form};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// The form the properties run over. It must build: a property over a
/// form with no fields would hold vacuously.
#[allow(clippy::panic, reason = "test code: a panic is a failing test")]
fn form() -> Form {
    Form::builder("Props")
        .field(Field::string("name").min_length(1).max_length(8))
        .field(Field::email("email"))
        .field(Field::date_time("at"))
        .field(Field::integer("n").minimum(-5).maximum(5))
        .field(Field::number("x"))
        .field(Field::boolean("b"))
        .field(Field::choice("c").options(["a", "b", "\u{b5}"]))
        .field(
            Field::multi_choice("m")
                .titled_option("a", "A")
                .titled_option("b", "B")
                .max_items(2),
        )
        .build()
        .unwrap_or_else(|e| panic!("the properties' form does not build: {e}"))
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("name".to_owned()),
        Just("email".to_owned()),
        Just("at".to_owned()),
        Just("n".to_owned()),
        Just("x".to_owned()),
        Just("b".to_owned()),
        Just("c".to_owned()),
        Just("m".to_owned()),
        Just("__proto__".to_owned()),
        "\\PC{0,6}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        Just(json!(-0.0)),
        Just(json!(1.0)),
        prop_oneof![
            Just("a".to_owned()),
            Just("b".to_owned()),
            Just("ada@example.com".to_owned()),
            Just("2024-02-29T23:59:60Z".to_owned()),
            "\\PC{0,12}"
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn content() -> impl Strategy<Value = Value> {
    prop::collection::vec((key(), json_value()), 0..10)
        .prop_map(|kv| Value::Object(kv.into_iter().collect()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn arbitrary_json_never_panics(result in json_value()) {
        let _ = form().validate(&result);
    }

    #[test]
    fn arbitrary_content_never_panics_and_accepted_is_a_fixed_point(content in content()) {
        let form = form();
        let outcome = form.validate(&json!({"action": "accept", "content": content}));
        if let Verdict::Accepted(answers) = outcome {
            let stripped = answers.to_json();
            let declared: Vec<&str> = form.fields().iter().map(Field::name).collect();
            let obj = stripped.as_object().unwrap_or_else(|| unreachable!());
            prop_assert!(obj.keys().all(|k| declared.contains(&k.as_str())));
            let again = form.validate(&json!({"action": "accept", "content": stripped}));
            let Verdict::Accepted(again) = again else {
                return Err(TestCaseError::fail(format!("re-validation refused: {again:?}")));
            };
            prop_assert!(again.report().is_clean());
            prop_assert_eq!(again.to_json(), answers.to_json());
        }
    }

    #[test]
    fn strict_parser_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = parse_strict(&bytes, &Limits::default());
    }

    #[test]
    fn strict_parser_agrees_with_serde_json_on_valid_json(v in json_value()) {
        // Same number parsing as serde_json (its default, not `float_roundtrip`).
        let text = serde_json::to_vec(&v).unwrap_or_default();
        let plain: Option<Value> = serde_json::from_slice(&text).ok();
        prop_assert!(plain.is_some());
        prop_assert_eq!(parse_strict(&text, &Limits::default()).ok(), plain);
    }
}
