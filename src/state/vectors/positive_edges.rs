//! The positive vectors at the edges: key rotation and size, the clock
//! checks, numbers in the arguments, the latest times, re-asks and effects.

use serde_json::{Value, json};

use super::file::KeysSpec;
use super::inputs::{
    Draft, KEY_1, KEY_2, T0, TIME_MAX, TIME_MIN, claims_value, digest_text, one_key, user,
};
use crate::state::layout;

/// Key rotation and a long application payload.
pub(super) fn key_and_size_drafts(mode: &'static str) -> Vec<Draft> {
    let mut drafts = Vec::new();
    drafts.push(Draft {
        name: "rotation-verify-only-key",
        description: "minted with key 1; opened by a ring where key 2 is active and key 1 verify-only",
        mode,
        anonymous: false,
        binding: user("user-7", "tools/call", "ShipOrder", Some(json!({"orderId": 42}))),
        claims: claims_value(1, 6, &[], &[], json!({"cart": 17})),
        mint_key: Some(KEY_1),
        keys: KeysSpec {
            active: KEY_2.to_owned(),
            verify_only: vec![KEY_1.to_owned()],
        },
        now: T0 + 60,
    });
    drafts.push(Draft {
        name: "app-data-512",
        description: "512 bytes of application data",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "tools/call",
            "signup",
            Some(json!({"source": "web"})),
        ),
        claims: claims_value(1, 7, &[], &[], json!({"blob": "a".repeat(500)})),
        mint_key: None,
        keys: one_key(),
        now: T0 + 60,
    });
    drafts
}

/// The edges of the clock checks.
pub(super) fn time_drafts(mode: &'static str) -> Vec<Draft> {
    let mut drafts = Vec::new();
    drafts.push(Draft {
        name: "last-valid-second",
        description: "opened one second before expiry",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "tools/call",
            "ShipOrder",
            Some(json!({"orderId": 42})),
        ),
        claims: claims_value(1, 8, &[], &[], json!({})),
        mint_key: None,
        keys: one_key(),
        now: T0 + 60 + 599,
    });
    drafts.push(Draft {
        name: "issued-at-skew-edge",
        description: "issued exactly the allowed skew (60 s) after the verifier's clock",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "tools/call",
            "ShipOrder",
            Some(json!({"orderId": 42})),
        ),
        claims: claims_value(1, 9, &[], &[], json!({})),
        mint_key: None,
        keys: one_key(),
        now: T0,
    });
    drafts
}

/// Numbers in the arguments, the latest times, re-asks and effects.
pub(super) fn number_drafts(mode: &'static str) -> Vec<Draft> {
    let mut drafts = Vec::new();
    drafts.push(Draft {
        name: "big-integer",
        description: "an integer argument beyond 2^53 is bound exactly (§4.1)",
        mode,
        anonymous: false,
        binding: user(
            "user-7",
            "tools/call",
            "ShipOrder",
            Some(json!({"orderId": 1_234_567_890_123_456_789_u64})),
        ),
        claims: claims_value(1, 10, &[], &[], json!({})),
        mint_key: None,
        keys: one_key(),
        now: T0 + 60,
    });
    drafts.push(Draft {
        name: "number-forms",
        description: "integers and doubles of every range: exact digits below 10^21, RFC 8785 otherwise (§4.1)",
        mode,
        anonymous: false,
        binding: user("user-7", "tools/call", "Measure", Some(number_forms())),
        claims: claims_value(1, 11, &[], &[], json!({})),
        mint_key: None,
        keys: one_key(),
        now: T0 + 60,
    });
    for (name, description, iat) in [
        (
            "latest-times",
            "times at the end of year 9999 (§5)",
            TIME_MAX - 1800,
        ),
        (
            "earliest-times",
            "times at the start of year -9999 (§5)",
            TIME_MIN,
        ),
    ] {
        drafts.push(Draft {
            name,
            description,
            mode,
            anonymous: false,
            binding: user(
                "user-7",
                "tools/call",
                "ShipOrder",
                Some(json!({"orderId": 42})),
            ),
            claims: json!({"iat": iat, "exp": iat + 600, "dl": iat + 1800, "rnd": 1,
                "fid": layout::encode_id(&[12; 16]), "q": {}, "ans": {}, "app": null}),
            mint_key: None,
            keys: one_key(),
            now: iat + 599,
        });
    }
    drafts.push(Draft {
        name: "reask-and-effects",
        description: "round 2 asking a form again after two invalid answers (`inv`), one effect run (`once`)",
        mode,
        anonymous: false,
        binding: user("user-7", "tools/call", "signup", None),
        claims: reask_claims(),
        mint_key: None,
        keys: one_key(),
        now: T0 + 150,
    });
    drafts
}

/// Round 2 of a flow that completed two steps outside a task (revision 4).
pub(super) fn step_draft(mode: &'static str) -> Draft {
    Draft {
        name: "steps",
        description: "round 2 of a flow that completed two steps outside a task (`step`, revision 4)",
        mode,
        anonymous: false,
        binding: user("user-7", "tools/call", "copy_rows", None),
        claims: step_claims(),
        mint_key: None,
        keys: one_key(),
        now: T0 + 150,
    }
}

/// Round 2 of `copy_rows`: asking to go on, after two steps.
fn step_claims() -> Value {
    let ask = json!({"method": "elicitation/create", "params": {"mode": "form",
        "message": "12 rows conflict: overwrite, skip or abort?",
        "requestedSchema": {"type": "object",
        "properties": {"resolution": {"type": "string", "enum": ["overwrite", "skip", "abort"]}},
        "required": ["resolution"]}}});
    let mut claims = claims_value(2, 13, &[("conflicts", ask)], &[], Value::Null);
    claims["step"] = json!({"copy": {"rows": 1200, "conflicts": 12}, "snapshot": "snap-0042"});
    claims
}

/// Arguments with a number of each kind and range `serde_json` holds.
fn number_forms() -> Value {
    json!({
        "small": 42,
        "negative": -7,
        "minusZero": -0.0,
        "fraction": 0.1,
        "tiny": 1e-7,
        "integralDouble": 1.0,
        "twoTo53PlusOne": 9_007_199_254_740_993_u64,
        "twoTo63Double": 9_223_372_036_854_775_808.0_f64,
        "u64Max": u64::MAX,
        "i64Min": i64::MIN,
        "twoTo64Double": 18_446_744_073_709_551_616.0_f64,
        "belowTenTo21": 999_999_999_999_999_868_928.0_f64,
        "tenTo21": 1e21,
        "large": 1e300,
        "nested": [2.5, {"b": 9_007_199_254_740_992.0_f64, "a": -9_007_199_254_740_993_i64}],
    })
}

/// Round 2 of a sign-up whose account form was answered invalidly twice:
/// `q` holds the digest of the re-ask sent (the form's message followed by
/// what to correct), `inv` the digest of the form as first asked and the
/// count; the welcome email already went out.
fn reask_claims() -> Value {
    let form = |message: &str| {
        json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
            "requestedSchema": {"type": "object",
            "properties": {"email": {"type": "string", "format": "email"}},
            "required": ["email"]}}})
    };
    let first = form("Create your account");
    let reask = form(
        "Create your account\n\nPlease correct: Email: the text does not have the field's format.",
    );
    let mut claims = claims_value(2, 13, &[("account", reask)], &[], Value::Null);
    claims["inv"] = json!({"account": {"q": digest_text(&first), "n": 2}});
    claims["once"] = json!(["welcome-email"]);
    claims
}
