//! What the vectors share: the master keys, the audience, the clock, the
//! default policy, the nonces, the claims of a flow's round, and the draft
//! of a positive vector's inputs.

use serde_json::{Value, json};

use super::file::{BindingSpec, KeysSpec, PolicySpec, hex};
use crate::json::JsonDigest;
use crate::state::layout::{self, NONCE_LEN};

pub(super) const KEY_1: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
pub(super) const KEY_2: &str = "//79/Pv6+fj39vX08/Lx8O/u7ezr6uno5+bl5OPi4eA=";
pub(super) const AUDIENCE: &str = "https://mcp.example.com/mcp";
pub(super) const T0: i64 = 1_800_000_000;

/// The first and last second of the claims' time range (§5).
pub(super) const TIME_MIN: i64 = -377_705_116_800;
pub(super) const TIME_MAX: i64 = 253_402_300_799;

pub(super) fn default_policy() -> PolicySpec {
    PolicySpec {
        ttl: 600,
        flow_ttl: 1800,
        skew: 60,
        max_rounds: 10,
        max_token_len: 8192,
    }
}

pub(super) fn nonce_for(n: u8) -> String {
    hex(&[n; NONCE_LEN]
        .iter()
        .enumerate()
        .map(|(i, b)| b ^ (i as u8))
        .collect::<Vec<_>>())
}

/// The spelling of the digest of `ask` in the claims.
pub(super) fn digest_text(ask: &Value) -> Value {
    Value::from(layout::encode_id(JsonDigest::of(ask).as_bytes()))
}

/// Claims of round `round` of the flow `[fid; 16]`: the questions asked, by
/// key, and the answers proven, by key, as (question asked, response).
pub(super) fn claims_value(
    round: u32,
    fid: u8,
    questions: &[(&str, Value)],
    answers: &[(&str, Value, Value)],
    app: Value,
) -> Value {
    let q: serde_json::Map<String, Value> = questions
        .iter()
        .map(|(key, ask)| ((*key).to_owned(), digest_text(ask)))
        .collect();
    let answers: serde_json::Map<String, Value> = answers
        .iter()
        .map(|(key, ask, response)| {
            let proven = json!({"q": digest_text(ask), "r": response});
            ((*key).to_owned(), proven)
        })
        .collect();
    // The flow started with round 1 at T0 + 60; one round a minute since.
    let iat = T0 + i64::from(round) * 60;
    let deadline = T0 + 60 + 1800;
    json!({
        "iat": iat,
        "exp": (iat + 600).min(deadline),
        "dl": deadline,
        "rnd": round,
        "fid": layout::encode_id(&[fid; 16]),
        "q": q,
        "ans": answers,
        "app": app,
    })
}

pub(super) fn user(
    principal: &str,
    method: &str,
    target: &str,
    arguments: Option<Value>,
) -> BindingSpec {
    BindingSpec {
        principal: Some(principal.to_owned()),
        method: method.to_owned(),
        target: target.to_owned(),
        arguments,
    }
}

pub(super) fn one_key() -> KeysSpec {
    KeysSpec {
        active: KEY_1.to_owned(),
        verify_only: vec![],
    }
}

/// The inputs of one positive vector, for one mode, before it is minted.
pub(super) struct Draft {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) mode: &'static str,
    pub(super) anonymous: bool,
    pub(super) binding: BindingSpec,
    pub(super) claims: Value,
    pub(super) mint_key: Option<&'static str>,
    pub(super) keys: KeysSpec,
    pub(super) now: i64,
}
