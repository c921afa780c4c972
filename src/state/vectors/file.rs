//! The vector files' shape (`docs/FORMAT.md` §10), and how a vector's
//! inputs become a codec, a binding and a clock.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::{Duration, OffsetDateTime};

use crate::json::JsonDigest;
use crate::state::binding::Binding;
use crate::state::codec::StateCodec;
use crate::state::generation::Generation;
use crate::state::keys::{KeyRing, MasterKey};
use crate::state::layout::Mode;
use crate::state::policy::Policy;
use crate::state::replay::MemoryReplayGuard;
use crate::wire::Method;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct VectorFile {
    pub(super) description: String,
    pub(super) vectors: Vec<Vector>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Vector {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) mode: String,
    pub(super) audience: String,
    /// Master keys (standard base64): the ring that opens.
    pub(super) keys: KeysSpec,
    /// The master key that minted, when not the opening ring's active key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) mint_key: Option<String>,
    pub(super) anonymous: bool,
    pub(super) policy: PolicySpec,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) replay_guard: bool,
    /// The verifier's replay-guard generation, 16 hex digits (with
    /// `replay_guard`; §10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) generation: Option<String>,
    pub(super) binding: BindingSpec,
    /// Intermediate values, for implementers (positive vectors only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) arguments_canonical: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) arguments_digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) context: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) claims_json: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) nonce: Option<String>,
    pub(super) token: String,
    /// Unix seconds at which the token is opened.
    pub(super) now: i64,
    /// `"valid"`, or `"fail"` with `reason`.
    pub(super) expect: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) reason: Option<String>,
    /// The verifier's application type: absent for any JSON value,
    /// `"object"` for a type that accepts only an object (§10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) app_type: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct KeysSpec {
    pub(super) active: String,
    pub(super) verify_only: Vec<String>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PolicySpec {
    pub(super) ttl: i64,
    pub(super) flow_ttl: i64,
    pub(super) skew: i64,
    pub(super) max_rounds: u32,
    pub(super) max_token_len: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BindingSpec {
    pub(super) principal: Option<String>,
    pub(super) method: String,
    pub(super) target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) arguments: Option<Value>,
}

impl BindingSpec {
    /// The canonical form of the arguments (§4.1): absent and `null` are `{}`.
    pub(super) fn arguments_canonical(&self) -> String {
        let empty = Value::Object(serde_json::Map::new());
        let arguments = self.arguments.as_ref().filter(|a| !a.is_null());
        String::from_utf8(crate::json::canonical::canonical(
            arguments.unwrap_or(&empty),
        ))
        .unwrap()
    }

    pub(super) fn binding(&self) -> Binding<'_> {
        let method = Method::from_name(&self.method).unwrap();
        match &self.principal {
            Some(principal) => {
                Binding::new(principal, method, &self.target, self.arguments.as_ref())
            }
            None => Binding::anonymous(method, &self.target, self.arguments.as_ref()),
        }
    }
}

impl Vector {
    pub(super) fn codec(&self, for_minting: bool) -> StateCodec {
        let active = match (&self.mint_key, for_minting) {
            (Some(key), true) => key,
            _ => &self.keys.active,
        };
        let mut ring = KeyRing::new(MasterKey::from_base64(active).unwrap());
        if !for_minting {
            for key in &self.keys.verify_only {
                ring = ring
                    .with_verify_only(MasterKey::from_base64(key).unwrap())
                    .unwrap();
            }
        }
        let mode = match self.mode.as_str() {
            "sealed" => Mode::Sealed,
            "signed" => Mode::Signed,
            other => panic!("unknown mode {other}"),
        };
        let policy = Policy::default()
            .with_ttl(Duration::seconds(self.policy.ttl))
            .with_flow_ttl(Duration::seconds(self.policy.flow_ttl))
            .with_skew(Duration::seconds(self.policy.skew))
            .with_max_rounds(self.policy.max_rounds)
            .with_max_token_len(self.policy.max_token_len);
        let mut builder = StateCodec::builder(self.audience.clone(), ring)
            .mode(mode)
            .policy(policy);
        if self.anonymous {
            builder = builder.allow_anonymous();
        }
        if self.replay_guard {
            let generation = self
                .generation
                .as_deref()
                .map(|text| Generation::parse_hex(text).unwrap());
            let guard = MemoryReplayGuard::new(16).with_fixed_generation(generation);
            builder = builder.replay_guard(Arc::new(guard));
        }
        builder.build().unwrap()
    }

    pub(super) fn now(&self) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(self.now).unwrap()
    }
}

pub(super) fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("vectors")
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// The token vector files; `arguments.json` holds the arguments digest cases.
pub(super) const TOKEN_FILES: [&str; 3] = ["negative.json", "sealed.json", "signed.json"];
pub(super) const ARGUMENTS_FILE: &str = "arguments.json";

/// `tests/vectors/arguments.json`: argument texts grouped by the binding they
/// share (FORMAT.md §4.1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ArgumentsFile {
    pub(super) description: String,
    pub(super) cases: Vec<ArgumentsCase>,
}

/// Argument texts that share one canonical form and digest.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ArgumentsCase {
    pub(super) name: String,
    pub(super) description: String,
    /// JSON texts of `params.arguments`, as a client may send them.
    pub(super) texts: Vec<String>,
    /// Their canonical form.
    pub(super) canonical: String,
    /// SHA-256 of the canonical form, hex.
    pub(super) digest: String,
}

/// The canonical form and the digest of the arguments `text`.
pub(super) fn canonical_and_digest(text: &str) -> (String, String) {
    let value: Value = serde_json::from_str(text).unwrap();
    let canonical = String::from_utf8(crate::json::canonical::canonical(&value)).unwrap();
    (canonical, hex(JsonDigest::of(&value).as_bytes()))
}
