//! Arbitrary bytes as a `requestState`: never opens, never panics; arbitrary
//! application data sealed into a token comes back unchanged; a real token
//! with any byte changed, cut or extended never opens.
//!
//! The first input byte picks the property (mod 3), the rest is its input.
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run token_open` (see CONTRIBUTING.md).

#![no_main]

use std::sync::LazyLock;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use libfuzzer_sys::fuzz_target;
use mrtr_guard::{Binding, StateContents, MasterKey, Method, Mode, StateCodec, StateError};
use mrtr_guard::json::JsonDigest;
use mrtr_guard::state::{MintError, ProvenAnswer, TokenInfo};
use serde_json::{Map, Value, json};
use time::{Duration, OffsetDateTime};

const AUDIENCE: &str = "https://mcp.example.com/mcp";

struct Fixture {
    codecs: [StateCodec; 2],
    /// One real token per codec, minted at `now()`.
    tokens: [String; 2],
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let codec = |mode| {
        StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[0x24; 32]).unwrap())
            .mode(mode)
            .build()
            .unwrap()
    };
    let codecs = [codec(Mode::Sealed), codec(Mode::Signed)];
    let contents = StateContents::new(json!({"cart": 17}))
        .question("ship", &json!({"method": "elicitation/create"}))
        .answer("email", carried(json!("ada@example.com")));
    let tokens = [0, 1].map(|i| codecs[i].start_at(&binding(), &contents, now()).unwrap());
    Fixture { codecs, tokens }
});

fn now() -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap()
}

fn binding() -> Binding<'static> {
    Binding::new("ada", Method::ToolsCall, "ShipOrder", None)
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, input)) = data.split_first() else {
        return;
    };
    match selector % 3 {
        0 => garbage_never_opens(input),
        1 => app_data_round_trips(input),
        _ => tampered_never_opens(input),
    }
});

/// Any text at all: refused, for a reason that needs no key, and the keyless
/// `TokenInfo` agrees with `open` on what it can tell.
fn garbage_never_opens(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let info = TokenInfo::parse(&text);
    for codec in &FIXTURE.codecs {
        let error = match codec.open_at::<Value>(&text, &binding(), now()) {
            Ok(_) => panic!("arbitrary text opened"),
            Err(error) => error,
        };
        assert!(
            matches!(
                error,
                StateError::TooLarge
                    | StateError::Malformed
                    | StateError::UnsupportedVersion
                    | StateError::UnknownKey
                    | StateError::Forged
            ),
            "{error:?}"
        );
        if text.len() <= codec.policy().max_token_len() {
            match &info {
                Err(parse_error) => assert_eq!(&error, parse_error),
                Ok(info) if info.mode() != codec.mode() => {
                    assert_eq!(error, StateError::UnsupportedVersion);
                }
                Ok(_) => assert!(
                    matches!(error, StateError::UnknownKey | StateError::Forged),
                    "{error:?}"
                ),
            }
        }
    }
}

/// Application data (as a string, and as JSON when the input is JSON) and an
/// answer survive minting and opening unchanged.
fn app_data_round_trips(input: &[u8]) {
    let text = String::from_utf8_lossy(input).into_owned();
    let json = serde_json::from_slice::<Value>(input).ok();
    for codec in &FIXTURE.codecs {
        round_trip(codec, &Value::String(text.clone()));
        if let Some(json) = &json {
            round_trip(codec, json);
        }
    }
}

/// `content` as the accepted answer to a fixed question.
fn carried(content: Value) -> ProvenAnswer {
    let question = JsonDigest::of(&json!({"method": "elicitation/create"}));
    let response = Map::from_iter([
        ("action".to_owned(), json!("accept")),
        ("content".to_owned(), content),
    ]);
    ProvenAnswer::new(question, response)
}

fn round_trip(codec: &StateCodec, app: &Value) {
    let contents = StateContents::new(app.clone()).answer("k", carried(app.clone()));
    let token = match codec.start_at(&binding(), &contents, now()) {
        Ok(token) => token,
        Err(MintError::TooLarge { len, max }) => {
            assert!(len > max);
            return;
        }
        Err(other) => panic!("mint failed: {other:?}"),
    };
    let later = now() + Duration::seconds(1);
    let claims = codec
        .open_at::<Value>(&token, &binding(), later)
        .unwrap_or_else(|error| panic!("a minted token did not open: {error:?}"));
    assert_eq!(claims.app(), app);
    assert_eq!(claims.answers().get("k"), Some(&carried(app.clone())));
    assert_eq!(claims.round(), 1);
}

/// A real token's bytes with edits: XOR at positions, then a cut or an
/// extension. Unless the edits cancel out, it never opens.
fn tampered_never_opens(input: &[u8]) {
    for (codec, token) in FIXTURE.codecs.iter().zip(&FIXTURE.tokens) {
        let original = URL_SAFE_NO_PAD.decode(token).unwrap();
        let mut bytes = original.clone();
        let mut edits = input.chunks_exact(3);
        for edit in &mut edits {
            let position = usize::from(u16::from_le_bytes([edit[0], edit[1]]));
            if let Some(byte) = bytes.get_mut(position % original.len()) {
                *byte ^= edit[2];
            }
        }
        match edits.remainder() {
            [cut] => bytes.truncate(usize::from(*cut) % (original.len() + 1)),
            [extra, fill] => bytes.extend(std::iter::repeat_n(*fill, usize::from(*extra))),
            _ => {}
        }
        if bytes == original {
            continue;
        }
        let text = URL_SAFE_NO_PAD.encode(&bytes);
        if let Ok(claims) = codec.open_at::<Value>(&text, &binding(), now()) {
            panic!("a tampered token opened: round {}", claims.round());
        }
    }
}
