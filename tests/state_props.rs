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

mod common;

use common::{decode, encode};
use mrtr_guard::{Binding, Contents, MasterKey, Method, Mode, StateCodec, StateError};
use proptest::prelude::*;
use serde_json::{Map, Number, Value};
use time::OffsetDateTime;

fn now() -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap()
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn mint_then_open_round_trips(mode in mode(), app in json(), parts in binding_parts(),
                                   answers in prop::collection::btree_map("[a-z]{1,6}", json(), 0..4)) {
        let codec = codec(mode);
        let mut contents = Contents::new(app.clone());
        for (key, value) in &answers {
            contents = contents.answer(key.clone(), value.clone());
        }
        let token = codec.start_at(&parts.binding(), &contents, now()).unwrap();
        let claims = codec.open_at::<Value>(&token, &parts.binding(), now()).unwrap();
        prop_assert_eq!(claims.app(), &app);
        prop_assert_eq!(claims.answers(), &answers);
        prop_assert_eq!(claims.round(), 1);
    }

    #[test]
    fn flipping_any_bit_never_opens(mode in mode(), app in json(), bit in any::<prop::sample::Index>()) {
        let codec = codec(mode);
        let parts = BindingParts { principal: "ada".into(), method: Method::ToolsCall, target: "t".into(), arguments: Value::Null };
        let token = codec.start_at(&parts.binding(), &Contents::new(app), now()).unwrap();
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
        let token = codec.start_at(&parts.binding(), &Contents::new(app), now()).unwrap();
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
        let token = codec.start_at(&parts.binding(), &Contents::new(()), now()).unwrap();
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
        .start_at(&parts.binding(), &Contents::new(Map::new()), now())
        .unwrap();
    assert_eq!(encode(&decode(&token)), token);
}
