//! Every default of the codec's policy, pinned at its boundary with an
//! injected clock, and the codec's configuration errors.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Arc;

use mrtr_guard::json::JsonDigest;
use mrtr_guard::state::{Claims, ConfigError, MintError, ProvenAnswer};
use mrtr_guard::{
    Binding, KeyRing, MasterKey, MemoryReplayGuard, Method, Mode, Policy, StateCodec,
    StateContents, StateError,
};
use serde_json::{Map, Value, json};
use time::{Duration, OffsetDateTime};

use mrtr_guard_test_support::T0;

fn at(seconds: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(T0 + seconds).unwrap()
}

fn codec_with(mode: Mode, policy: Policy) -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[3; 32]).unwrap(),
    )
    .mode(mode)
    .policy(policy)
    .build()
    .unwrap()
}

fn codec(mode: Mode) -> StateCodec {
    codec_with(mode, Policy::default())
}

fn binding() -> Binding<'static> {
    Binding::new("ada", Method::ToolsCall, "ShipOrder", None)
}

fn open(codec: &StateCodec, token: &str, now: OffsetDateTime) -> Result<Claims<Value>, StateError> {
    codec.open_at::<Value>(token, &binding(), now)
}

/// An accepted answer `{"email": email}` to an email question.
fn email_answer(email: &str) -> ProvenAnswer {
    let ask = json!({"method": "elicitation/create", "params": {"message": "Email?"}});
    let response: Map<String, Value> =
        serde_json::from_value(json!({"action": "accept", "content": {"email": email}})).unwrap();
    ProvenAnswer::new(JsonDigest::of(&ask), response)
}

const MODES: [Mode; 2] = [Mode::Sealed, Mode::Signed];

#[test]
fn defaults_are_the_documented_ones() {
    let policy = Policy::default();
    assert_eq!(policy.ttl(), Duration::minutes(10));
    assert_eq!(policy.flow_ttl(), Duration::minutes(30));
    assert_eq!(policy.skew(), Duration::seconds(60));
    assert_eq!(policy.max_rounds(), 10);
    assert_eq!(policy.max_token_len(), 8192);
    assert_eq!(codec(Mode::Sealed).mode(), Mode::default());
}

#[test]
fn ttl_boundary_last_second_then_expired() {
    for mode in MODES {
        let codec = codec(mode);
        let token = codec
            .start_at(&binding(), &StateContents::new(()), at(0))
            .unwrap();
        let claims = open(&codec, &token, at(599)).unwrap();
        assert_eq!(claims.expires_at(), at(600));
        assert_eq!(
            open(&codec, &token, at(600)).err(),
            Some(StateError::Expired),
            "exactly at expiry"
        );
        assert_eq!(
            open(&codec, &token, at(601)).err(),
            Some(StateError::Expired),
            "one second after"
        );
    }
}

#[test]
fn skew_boundary_for_issued_at() {
    for mode in MODES {
        let codec = codec(mode);
        let token = codec
            .start_at(&binding(), &StateContents::new(()), at(0))
            .unwrap();
        assert!(
            open(&codec, &token, at(-60)).is_ok(),
            "issued exactly the skew ahead"
        );
        assert_eq!(
            open(&codec, &token, at(-61)).err(),
            Some(StateError::NotYetValid),
            "one second beyond"
        );
    }
}

#[test]
fn flow_deadline_is_fixed_at_round_one_and_never_extended() {
    for mode in MODES {
        let codec = codec(mode);
        let mut token = codec
            .start_at(&binding(), &StateContents::new(()), at(0))
            .unwrap();
        // Keep the flow going every 9 minutes: each round's expiry is capped by the deadline.
        let mut now = 0;
        loop {
            now += 540;
            let claims = open(&codec, &token, at(now)).unwrap();
            assert_eq!(claims.deadline(), at(1800));
            assert!(claims.expires_at() <= at(1800));
            match codec.next_at(&binding(), &claims, &StateContents::new(()), at(now)) {
                Ok(next) => token = next,
                Err(error) => panic!("{error}"),
            }
            if now >= 1620 {
                break;
            }
        }
        // Minted at 1620: its expiry is clipped to the deadline at 1800.
        assert!(open(&codec, &token, at(1799)).is_ok());
        assert_eq!(
            open(&codec, &token, at(1800)).err(),
            Some(StateError::FlowExpired)
        );
        let claims = open(&codec, &token, at(1799)).unwrap();
        assert!(matches!(
            codec.next_at(&binding(), &claims, &StateContents::new(()), at(1800)),
            Err(MintError::FlowExpired)
        ));
    }
}

#[test]
fn round_cap_allows_exactly_max_rounds_asks() {
    for mode in MODES {
        let codec = codec_with(mode, Policy::default().with_max_rounds(3));
        let token = codec
            .start_at(&binding(), &StateContents::new(()), at(0))
            .unwrap();
        let one = open(&codec, &token, at(1)).unwrap();
        assert_eq!(one.round(), 1);
        let token = codec
            .next_at(&binding(), &one, &StateContents::new(()), at(1))
            .unwrap();
        let two = open(&codec, &token, at(2)).unwrap();
        let token = codec
            .next_at(&binding(), &two, &StateContents::new(()), at(2))
            .unwrap();
        let three = open(&codec, &token, at(3)).unwrap();
        assert_eq!(three.round(), 3, "the cap itself is allowed");
        assert!(matches!(
            codec.next_at(&binding(), &three, &StateContents::new(()), at(3)),
            Err(MintError::TooManyRounds { max_rounds: 3 })
        ));
        // A verifier whose cap was lowered refuses the round-3 token.
        let stricter = codec_with(mode, Policy::default().with_max_rounds(2));
        assert_eq!(
            open(&stricter, &token, at(4)).err(),
            Some(StateError::TooManyRounds)
        );
    }
}

#[test]
fn size_cap_boundary_and_refusal_before_decoding() {
    for mode in MODES {
        let codec = codec(mode);
        // Grow application data until the token is exactly at the cap.
        let base = codec
            .start_at(&binding(), &StateContents::new(String::new()), at(0))
            .unwrap()
            .len();
        let mut fill = 8192 - base;
        let token = loop {
            let token = codec.start_at(&binding(), &StateContents::new("x".repeat(fill)), at(0));
            match token {
                Ok(token) if token.len() == 8192 => break token,
                Ok(token) => fill += (8192 - token.len()) * 3 / 4 + 1,
                Err(MintError::TooLarge { len, .. }) => fill -= (len - 8192).div_ceil(4).max(1),
                Err(other) => panic!("{other}"),
            }
        };
        assert!(
            open(&codec, &token, at(1)).is_ok(),
            "a token exactly at the cap opens"
        );
        let over = codec.start_at(&binding(), &StateContents::new("x".repeat(fill + 3)), at(0));
        assert!(
            matches!(over, Err(MintError::TooLarge { max: 8192, .. })),
            "{over:?}"
        );
        // One character over: refused as too large, not as malformed, so it was never decoded.
        let mut long = token.clone();
        long.push('A');
        assert_eq!(open(&codec, &long, at(1)).err(), Some(StateError::TooLarge));
        let garbage = "\u{0}".repeat(8193);
        assert_eq!(
            open(&codec, &garbage, at(1)).err(),
            Some(StateError::TooLarge)
        );
        let garbage_at_cap = "\u{0}".repeat(8192);
        assert_eq!(
            open(&codec, &garbage_at_cap, at(1)).err(),
            Some(StateError::Malformed)
        );
    }
}

#[test]
fn each_round_mints_a_different_token_in_the_same_flow() {
    for mode in MODES {
        let codec = codec(mode);
        let first = codec
            .start_at(&binding(), &StateContents::new(json!({"a": 1})), at(0))
            .unwrap();
        let claims = open(&codec, &first, at(1)).unwrap();
        let second = codec
            .next_at(
                &binding(),
                &claims,
                &StateContents::new(json!({"a": 1})),
                at(1),
            )
            .unwrap();
        assert_ne!(first, second);
        let next = open(&codec, &second, at(2)).unwrap();
        assert_eq!(next.flow_id(), claims.flow_id());
        assert_eq!(next.round(), 2);
        let other_flow = codec
            .start_at(&binding(), &StateContents::new(json!({"a": 1})), at(0))
            .unwrap();
        assert_ne!(
            open(&codec, &other_flow, at(1)).unwrap().flow_id(),
            claims.flow_id()
        );
    }
}

#[test]
fn replay_guard_consumes_each_token_once() {
    for mode in MODES {
        let guard = Arc::new(MemoryReplayGuard::new(100));
        let codec = StateCodec::builder(
            "https://mcp.example.com",
            MasterKey::from_bytes(&[3; 32]).unwrap(),
        )
        .mode(mode)
        .replay_guard(guard.clone())
        .build()
        .unwrap();
        let token = codec
            .start_at(&binding(), &StateContents::new(()), at(0))
            .unwrap();
        // A forged or mis-bound presentation does not consume the token.
        let mallory = Binding::new("mallory", Method::ToolsCall, "ShipOrder", None);
        assert_eq!(
            codec.open_at::<()>(&token, &mallory, at(1)).err(),
            Some(StateError::Forged)
        );
        assert!(guard.is_empty());
        assert!(open(&codec, &token, at(1)).is_ok());
        assert_eq!(
            open(&codec, &token, at(2)).err(),
            Some(StateError::Replayed)
        );
        assert_eq!(guard.len(), 1);
    }
}

#[test]
fn full_replay_guard_fails_closed() {
    let guard = Arc::new(MemoryReplayGuard::new(1));
    let codec = StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[3; 32]).unwrap(),
    )
    .replay_guard(guard)
    .build()
    .unwrap();
    let first = codec
        .start_at(&binding(), &StateContents::new(()), at(0))
        .unwrap();
    let second = codec
        .start_at(&binding(), &StateContents::new(()), at(0))
        .unwrap();
    assert!(open(&codec, &first, at(1)).is_ok());
    let error = open(&codec, &second, at(1)).unwrap_err();
    assert_eq!(error.reason(), "replay_guard_failed");
    assert!(std::error::Error::source(&error).is_some());
}

#[test]
fn anonymous_use_is_an_explicit_opt_in() {
    let anonymous = Binding::anonymous(Method::ToolsCall, "ShipOrder", None);
    let empty = Binding::new("", Method::ToolsCall, "ShipOrder", None);
    let strict = codec(Mode::Sealed);
    assert!(matches!(
        strict.start_at(&anonymous, &StateContents::new(()), at(0)),
        Err(MintError::MissingPrincipal)
    ));
    assert!(matches!(
        strict.start_at(&empty, &StateContents::new(()), at(0)),
        Err(MintError::MissingPrincipal)
    ));
    let token = strict
        .start_at(&binding(), &StateContents::new(()), at(0))
        .unwrap();
    assert_eq!(
        strict.open_at::<()>(&token, &anonymous, at(1)).err(),
        Some(StateError::MissingPrincipal)
    );

    let open_codec = StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[3; 32]).unwrap(),
    )
    .allow_anonymous()
    .build()
    .unwrap();
    let token = open_codec
        .start_at(&anonymous, &StateContents::new(()), at(0))
        .unwrap();
    assert!(open_codec.open_at::<()>(&token, &anonymous, at(1)).is_ok());
    // An anonymous token does not open for a named principal, nor the reverse.
    assert_eq!(
        open_codec.open_at::<()>(&token, &binding(), at(1)).err(),
        Some(StateError::Forged)
    );
}

#[test]
fn configuration_errors_are_named() {
    let key = || MasterKey::from_bytes(&[3; 32]).unwrap();
    let build = |policy: Policy| {
        StateCodec::builder("https://mcp.example.com/mcp", key())
            .policy(policy)
            .build()
            .err()
    };
    assert_eq!(
        StateCodec::builder("", key()).build().err(),
        Some(ConfigError::EmptyAudience)
    );
    assert_eq!(
        build(Policy::default().with_ttl(Duration::milliseconds(900))),
        Some(ConfigError::TtlTooShort)
    );
    assert_eq!(
        build(Policy::default().with_flow_ttl(Duration::ZERO)),
        Some(ConfigError::FlowTtlTooShort)
    );
    assert_eq!(
        build(Policy::default().with_skew(Duration::seconds(-1))),
        Some(ConfigError::NegativeSkew)
    );
    assert_eq!(
        build(Policy::default().with_max_rounds(0)),
        Some(ConfigError::ZeroRounds)
    );
    assert_eq!(
        build(Policy::default().with_max_token_len(255)),
        Some(ConfigError::MaxTokenLenTooSmall { min: 256 })
    );
    assert_eq!(build(Policy::default().with_skew(Duration::ZERO)), None);
}

#[test]
fn mode_is_fixed_per_codec() {
    let sealed = codec(Mode::Sealed);
    let signed = codec(Mode::Signed);
    let a = sealed
        .start_at(&binding(), &StateContents::new(()), at(0))
        .unwrap();
    let b = signed
        .start_at(&binding(), &StateContents::new(()), at(0))
        .unwrap();
    assert_eq!(
        signed.open_at::<()>(&a, &binding(), at(1)).err(),
        Some(StateError::UnsupportedVersion)
    );
    assert_eq!(
        sealed.open_at::<()>(&b, &binding(), at(1)).err(),
        Some(StateError::UnsupportedVersion)
    );
}

#[test]
fn sealed_hides_the_claims_signed_does_not() {
    let secret = "carried-answer-7f3a9c";
    for (mode, readable) in [(Mode::Sealed, false), (Mode::Signed, true)] {
        let codec = codec(mode);
        let contents =
            StateContents::new(json!({"note": secret})).answer("email", email_answer(secret));
        let token = codec.start_at(&binding(), &contents, at(0)).unwrap();
        let bytes = mrtr_guard_test_support::decode(&token);
        let visible = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
        assert_eq!(visible, readable, "{mode:?}");
        let claims = open(&codec, &token, at(1)).unwrap();
        assert_eq!(claims.answers()["email"], email_answer(secret));
        assert_eq!(claims.app(), &json!({"note": secret}));
    }
}

#[test]
fn wrong_application_type_is_bad_claims_not_a_panic() {
    let codec = codec(Mode::Sealed);
    let token = codec
        .start_at(&binding(), &StateContents::new(json!({"a": 1})), at(0))
        .unwrap();
    assert_eq!(
        codec.open_at::<u64>(&token, &binding(), at(1)).err(),
        Some(StateError::BadClaims)
    );
}

#[test]
fn key_rotation_three_phases() {
    let old = || MasterKey::from_bytes(&[1; 32]).unwrap();
    let new = || MasterKey::from_bytes(&[2; 32]).unwrap();
    let codec = |ring: KeyRing| {
        StateCodec::builder("https://mcp.example.com/mcp", ring)
            .build()
            .unwrap()
    };
    let before = codec(KeyRing::new(old()));
    let old_token = before
        .start_at(&binding(), &StateContents::new(()), at(0))
        .unwrap();

    // Phase 1: new key known, old key still mints.
    let phase1 = codec(KeyRing::new(old()).with_verify_only(new()).unwrap());
    assert!(phase1.open_at::<()>(&old_token, &binding(), at(1)).is_ok());
    // Phase 2: new key mints, old tokens still open.
    let phase2 = codec(KeyRing::new(new()).with_verify_only(old()).unwrap());
    let new_token = phase2
        .start_at(&binding(), &StateContents::new(()), at(0))
        .unwrap();
    assert!(phase2.open_at::<()>(&old_token, &binding(), at(1)).is_ok());
    assert!(
        phase1.open_at::<()>(&new_token, &binding(), at(1)).is_ok(),
        "phase-1 instances open phase-2 tokens"
    );
    // Phase 3: old key gone.
    let phase3 = codec(KeyRing::new(new()));
    assert_eq!(
        phase3.open_at::<()>(&old_token, &binding(), at(1)).err(),
        Some(StateError::UnknownKey)
    );
    assert!(phase3.open_at::<()>(&new_token, &binding(), at(1)).is_ok());
}

#[test]
fn debug_of_codec_ring_and_key_prints_no_key_bytes() {
    let master = [0x5au8; 32];
    let codec = StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&master).unwrap(),
    )
    .replay_guard(Arc::new(MemoryReplayGuard::new(4)))
    .build()
    .unwrap();
    let key = MasterKey::from_bytes(&master).unwrap();
    let ring = KeyRing::new(MasterKey::from_bytes(&master).unwrap());
    for text in [
        format!("{codec:?}"),
        format!("{key:?}"),
        format!("{ring:#?}"),
    ] {
        assert!(text.contains(&key.id().to_string()), "{text}");
        // No byte list (`[12, 34, ...]`) and no hex run of the master appears.
        assert!(
            !text
                .as_bytes()
                .windows(2)
                .any(|w| w[0] == b'[' && w[1].is_ascii_digit()),
            "{text}"
        );
        assert!(!text.contains("5a5a"), "{text}");
    }
}

/// A state minted for one argument set never opens for another whose numbers
/// differ in value, however close: integers keep their exact value.
#[test]
fn arguments_bind_numbers_exactly() {
    let pairs = [
        (
            r#"{"orderId":1234567890123456789}"#,
            r#"{"orderId":1234567890123456700}"#,
        ),
        ("9007199254740993", "9007199254740992"),
        ("18446744073709551615", "18446744073709551614"),
        ("-9223372036854775807", "-9223372036854775806"),
        ("9223372036854775809", "9223372036854775809.0"),
    ];
    for mode in MODES {
        let codec = codec(mode);
        for (minted, presented) in pairs {
            let minted: Value = serde_json::from_str(minted).unwrap();
            let presented: Value = serde_json::from_str(presented).unwrap();
            let bind = |args| Binding::new("ada", Method::ToolsCall, "ShipOrder", Some(args));
            let token = codec
                .start_at(&bind(&minted), &StateContents::new(()), at(0))
                .unwrap();
            assert!(codec.open_at::<()>(&token, &bind(&minted), at(1)).is_ok());
            assert_eq!(
                codec.open_at::<()>(&token, &bind(&presented), at(1)).err(),
                Some(StateError::Forged),
                "{mode:?}: minted for {minted}, presented {presented}"
            );
        }
    }
}

/// Spellings of one value share a binding: `1`, `1.0` and `1e0`; `0` and `-0`.
#[test]
fn arguments_spelled_differently_with_equal_values_share_a_binding() {
    let codec = codec(Mode::Sealed);
    for (minted, presented) in [
        (r#"{"n":1}"#, r#"{"n":1.0}"#),
        (r#"{"n":1}"#, r#"{"n":1e0}"#),
        (r#"{"n":0}"#, r#"{"n":-0}"#),
        (r#"{"n":100}"#, r#"{"n":1E2}"#),
        (r#"{"n":9007199254740992}"#, r#"{"n":9007199254740992.0}"#),
    ] {
        let minted: Value = serde_json::from_str(minted).unwrap();
        let presented: Value = serde_json::from_str(presented).unwrap();
        let bind = |args| Binding::new("ada", Method::ToolsCall, "ShipOrder", Some(args));
        let token = codec
            .start_at(&bind(&minted), &StateContents::new(()), at(0))
            .unwrap();
        assert!(
            codec
                .open_at::<()>(&token, &bind(&presented), at(1))
                .is_ok(),
            "minted for {minted}, presented {presented}"
        );
    }
}

/// Step 10 of FORMAT.md §8: `iat + ttl` beyond the time range fails that
/// step, as `expired`.
#[test]
fn ttl_overflow_is_expired() {
    for mode in MODES {
        let token = codec(mode)
            .start_at(&binding(), &StateContents::new(()), at(0))
            .unwrap();
        let huge_ttl = Policy::default().with_ttl(Duration::seconds(i64::MAX));
        assert_eq!(
            open(&codec_with(mode, huge_ttl), &token, at(1)).err(),
            Some(StateError::Expired),
            "{mode:?}"
        );
    }
}

/// `Debug` of claims and contents shows times, round, flow id, question
/// digests and answer keys, never a carried answer or application data.
#[test]
fn debug_of_claims_and_contents_prints_no_answer_or_app_data() {
    let secret = "carried-secret-4d1e";
    for mode in MODES {
        let codec = codec(mode);
        let contents = StateContents::new(json!({"note": secret}))
            .question("ship", &json!({"method": "elicitation/create"}))
            .answer("email", email_answer(secret));
        let token = codec.start_at(&binding(), &contents, at(0)).unwrap();
        let claims = open(&codec, &token, at(1)).unwrap();
        for text in [
            format!("{contents:?}"),
            format!("{contents:#?}"),
            format!("{claims:?}"),
            format!("{claims:#?}"),
        ] {
            assert!(!text.contains(secret), "{text}");
            assert!(!text.contains("note"), "{text}");
            assert!(text.contains("email") && text.contains("ship"), "{text}");
        }
    }
}
