//! Property tests of the codec: round trips for any application data, and no
//! altered token or other binding ever opens.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use mrtr_guard_test_support::{decode, encode};
use std::collections::BTreeMap;

use mrtr_guard::json::JsonDigest;
use mrtr_guard::state::ProvenAnswer;
use mrtr_guard::{Binding, MasterKey, Method, Mode, StateCodec, StateContents, StateError};
use proptest::prelude::*;
use serde_json::{Map, Number, Value};
use time::OffsetDateTime;

fn now() -> OffsetDateTime {
    mrtr_guard_test_support::t0()
}

fn codec(mode: Mode) -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[5; 32]).unwrap(),
    )
    .mode(mode)
    .build()
    .unwrap()
}

fn mode() -> impl Strategy<Value = Mode> {
    prop_oneof![Just(Mode::Sealed), Just(Mode::Signed)]
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter_map("finite", Number::from_f64)
            .prop_map(Value::Number),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[derive(Debug, Clone)]
struct BindingParts {
    principal: String,
    method: Method,
    target: String,
    arguments: Value,
}

impl BindingParts {
    fn binding(&self) -> Binding<'_> {
        Binding::new(
            &self.principal,
            self.method,
            &self.target,
            Some(&self.arguments),
        )
    }
}

fn method() -> impl Strategy<Value = Method> {
    prop_oneof![
        Just(Method::ToolsCall),
        Just(Method::PromptsGet),
        Just(Method::ResourcesRead)
    ]
}

fn binding_parts() -> impl Strategy<Value = BindingParts> {
    (".{1,16}", method(), ".{0,16}", json()).prop_map(|(principal, method, target, arguments)| {
        BindingParts {
            principal,
            method,
            target,
            arguments,
        }
    })
}

/// Numbers of every kind `serde_json` holds, weighted towards the places
/// where doubles and integers part: around 2^53, 2^63 and 2^64.
fn number() -> impl Strategy<Value = Number> {
    prop_oneof![
        any::<u64>().prop_map(Number::from),
        any::<i64>().prop_map(Number::from),
        (-4096_i64..4096).prop_map(Number::from),
        (0_u64..4096).prop_map(|d| Number::from((1_u64 << 53) + d)),
        (0_u64..4096).prop_map(|d| Number::from((1_u64 << 63) + d)),
        (0_u64..4096).prop_map(|d| Number::from(u64::MAX - d)),
        (0_i64..4096).prop_map(|d| Number::from(i64::MIN + d)),
        any::<u64>().prop_filter_map("finite", |bits| Number::from_f64(f64::from_bits(bits))),
        any::<u64>().prop_filter_map("finite", |n| Number::from_f64(n as f64)),
        any::<i64>().prop_filter_map("finite", |n| Number::from_f64(n as f64)),
        (-80_i32..80).prop_filter_map("finite", |e| Number::from_f64(2_f64.powi(e))),
        (-1e6_f64..1e6).prop_filter_map("finite", Number::from_f64),
    ]
}

/// JSON arguments with numbers of every kind in them.
fn arguments_with_numbers() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number().prop_map(Value::Number),
        number().prop_map(Value::Number),
        "[a-z0-9]{0,6}".prop_map(Value::String),
    ];
    let tree = leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{0,4}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    (tree, number()).prop_map(|(tree, first)| {
        let mut members = Map::new();
        members.insert("n".to_owned(), Value::Number(first));
        members.insert("rest".to_owned(), tree);
        Value::Object(members)
    })
}

/// How the property tests change one number.
#[derive(Debug, Clone)]
enum Change {
    /// Replace it with this one.
    Other(Number),
    /// Add this to an integer, or move a double this many units in the last place.
    Step(i16),
    /// The nearest double.
    AsDouble,
    /// The integer of the same value, if the number is an integral double.
    AsInteger,
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        number().prop_map(Change::Other),
        any::<i16>().prop_map(Change::Step),
        Just(Change::AsDouble),
        Just(Change::AsInteger),
    ]
}

impl Change {
    fn apply(&self, old: &Number) -> Option<Number> {
        match self {
            Self::Other(number) => Some(number.clone()),
            Self::Step(step) => {
                if let Some(n) = old.as_u64() {
                    n.checked_add_signed(i64::from(*step)).map(Number::from)
                } else if let Some(n) = old.as_i64() {
                    n.checked_add(i64::from(*step)).map(Number::from)
                } else {
                    let bits = old
                        .as_f64()?
                        .to_bits()
                        .checked_add_signed(i64::from(*step))?;
                    Number::from_f64(f64::from_bits(bits))
                }
            }
            Self::AsDouble => Number::from_f64(old.as_f64()?),
            Self::AsInteger => {
                let exact = exact_integer(old)?;
                u64::try_from(exact)
                    .map(Number::from)
                    .or_else(|_| i64::try_from(exact).map(Number::from))
                    .ok()
            }
        }
    }
}

/// A number's value when it is an integer of magnitude below 2^100.
fn exact_integer(number: &Number) -> Option<i128> {
    if let Some(n) = number.as_u64() {
        return Some(i128::from(n));
    }
    if let Some(n) = number.as_i64() {
        return Some(i128::from(n));
    }
    let value = number.as_f64()?;
    (value.fract() == 0.0 && value.abs() < 2_f64.powi(100)).then_some(value as i128)
}

/// Whether two numbers have the same mathematical value (0 and -0 do).
fn same_value(a: &Number, b: &Number) -> bool {
    match (exact_integer(a), exact_integer(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a.is_f64() && b.is_f64() && a.as_f64() == b.as_f64(),
    }
}

fn count_numbers(value: &Value) -> usize {
    match value {
        Value::Number(_) => 1,
        Value::Array(items) => items.iter().map(count_numbers).sum(),
        Value::Object(members) => members.values().map(count_numbers).sum(),
        _ => 0,
    }
}

/// The `index`-th number of `value` in document order, for `edit`.
fn nth_number(value: &mut Value, index: &mut usize, edit: &mut dyn FnMut(&mut Number)) -> bool {
    match value {
        Value::Number(number) if *index == 0 => {
            edit(number);
            true
        }
        Value::Number(_) => {
            *index -= 1;
            false
        }
        Value::Array(items) => items.iter_mut().any(|item| nth_number(item, index, edit)),
        Value::Object(members) => members
            .values_mut()
            .any(|item| nth_number(item, index, edit)),
        _ => false,
    }
}

/// `arguments` with its `which`-th number changed by `change`, and whether
/// the new number has the same value as the old one. `None` when the change
/// does not apply to that number.
fn changed(
    arguments: &Value,
    which: prop::sample::Index,
    change: &Change,
) -> Option<(Value, bool)> {
    let mut other = arguments.clone();
    let mut index = which.index(count_numbers(arguments));
    let mut outcome = None;
    nth_number(&mut other, &mut index, &mut |number| {
        if let Some(new) = change.apply(number) {
            outcome = Some(same_value(number, &new));
            *number = new;
        }
    });
    Some((other, outcome?))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn mint_then_open_round_trips(mode in mode(), app in json(), parts in binding_parts(),
                                   answers in prop::collection::btree_map("[a-z]{1,6}", (json(), json()), 0..4)) {
        let codec = codec(mode);
        let mut contents = StateContents::new(app.clone());
        let answers: BTreeMap<String, ProvenAnswer> = answers
            .into_iter()
            .map(|(key, (question, response))| {
                let response = Map::from_iter([("content".to_owned(), response)]);
                (key, ProvenAnswer::new(JsonDigest::of(&question), response))
            })
            .collect();
        for (key, proven) in &answers {
            contents = contents.answer(key.clone(), proven.clone());
        }
        let token = codec.start_at(&parts.binding(), &contents, now()).unwrap();
        let claims = codec.open_at::<Value>(&token, &parts.binding(), now()).unwrap();
        prop_assert_eq!(claims.app(), &app);
        prop_assert_eq!(claims.answers(), &answers);
        prop_assert_eq!(claims.round(), 1);
    }

    /// The arguments digest is exact: two argument values that differ in any
    /// one number's value never share a digest, whatever kind of number
    /// either is; two that differ only in how an equal value is held share one.
    #[test]
    fn numbers_of_different_value_never_share_a_digest(arguments in arguments_with_numbers(),
                                                        which in any::<prop::sample::Index>(),
                                                        change in change()) {
        let Some((other, same)) = changed(&arguments, which, &change) else {
            return Ok(());
        };
        let (digest, other_digest) = (JsonDigest::of(&arguments), JsonDigest::of(&other));
        if same {
            prop_assert_eq!(digest, other_digest, "{} / {}", arguments, other);
        } else {
            prop_assert_ne!(digest, other_digest, "{} / {}", arguments, other);
        }
    }

    #[test]
    fn flipping_any_bit_never_opens(mode in mode(), app in json(), bit in any::<prop::sample::Index>()) {
        let codec = codec(mode);
        let parts = BindingParts { principal: "ada".into(), method: Method::ToolsCall, target: "t".into(), arguments: Value::Null };
        let token = codec.start_at(&parts.binding(), &StateContents::new(app), now()).unwrap();
        let mut bytes = decode(&token);
        let index = bit.index(bytes.len() * 8);
        bytes[index / 8] ^= 1 << (index % 8);
        let altered = encode(&bytes);
        prop_assert!(codec.open_at::<Value>(&altered, &parts.binding(), now()).is_err());
    }

    #[test]
    fn truncating_or_extending_never_opens(mode in mode(), app in json(), cut in any::<prop::sample::Index>(),
                                           extra in prop::collection::vec(any::<u8>(), 1..40)) {
        let codec = codec(mode);
        let parts = BindingParts { principal: "ada".into(), method: Method::ToolsCall, target: "t".into(), arguments: Value::Null };
        let token = codec.start_at(&parts.binding(), &StateContents::new(app), now()).unwrap();
        let bytes = decode(&token);
        let shorter = encode(&bytes[..cut.index(bytes.len())]);
        prop_assert!(codec.open_at::<Value>(&shorter, &parts.binding(), now()).is_err());
        let text_cut = &token[..cut.index(token.len())];
        prop_assert!(codec.open_at::<Value>(text_cut, &parts.binding(), now()).is_err());
        let mut longer = bytes.clone();
        longer.extend(&extra);
        prop_assert!(codec.open_at::<Value>(&encode(&longer), &parts.binding(), now()).is_err());
    }

    #[test]
    fn another_value_of_any_one_binding_field_never_opens(mode in mode(), parts in binding_parts(), other in binding_parts(),
                                                         field in 0usize..5) {
        let codec = codec(mode);
        let token = codec.start_at(&parts.binding(), &StateContents::new(()), now()).unwrap();
        let mut changed = parts.clone();
        let audience_changed;
        match field {
            0 => changed.principal = other.principal.clone(),
            1 => changed.method = other.method,
            2 => changed.target = other.target.clone(),
            3 => changed.arguments = other.arguments.clone(),
            _ => {}
        }
        if field == 4 {
            audience_changed = StateCodec::builder("https://other.example.com", MasterKey::from_bytes(&[5; 32]).unwrap())
                .mode(mode)
                .build()
                .unwrap();
            prop_assert_eq!(audience_changed.open_at::<()>(&token, &parts.binding(), now()).err(), Some(StateError::Forged));
        } else {
            let same = changed.binding() == parts.binding();
            let result = codec.open_at::<()>(&token, &changed.binding(), now());
            if same {
                prop_assert!(result.is_ok());
            } else {
                prop_assert_eq!(result.err(), Some(StateError::Forged));
            }
        }
    }

    #[test]
    fn arbitrary_text_never_opens_and_never_panics(text in ".{0,200}", bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let codec = codec(Mode::Sealed);
        let parts = BindingParts { principal: "ada".into(), method: Method::ToolsCall, target: "t".into(), arguments: Value::Null };
        prop_assert!(codec.open_at::<Value>(&text, &parts.binding(), now()).is_err());
        prop_assert!(codec.open_at::<Value>(&encode(&bytes), &parts.binding(), now()).is_err());
    }
}

#[test]
fn test_base64_helpers_agree_with_the_codec() {
    // The helpers above must spell tokens exactly as the codec does.
    let codec = codec(Mode::Signed);
    let parts = BindingParts {
        principal: "ada".into(),
        method: Method::ToolsCall,
        target: "t".into(),
        arguments: Value::Null,
    };
    let token = codec
        .start_at(&parts.binding(), &StateContents::new(Map::new()), now())
        .unwrap();
    assert_eq!(encode(&decode(&token)), token);
}
