//! Negative vectors for every rule of the claims (`docs/FORMAT.md` §5, §8
//! step 7): authentic tokens whose claims break exactly one rule.

use serde_json::{Value, json};

use super::file::Vector;
use super::inputs::digest_text;
use super::negative::{mint_raw, negative};
use crate::state::layout;

/// Claims that open: every negative of [`claims_rule_negatives`] breaks one
/// rule of §5 in a copy of them.
pub(super) fn good_claims_text() -> String {
    let ship =
        digest_text(&json!({"method": "elicitation/create", "params": {"message": "Ship?"}}));
    let email =
        digest_text(&json!({"method": "elicitation/create", "params": {"message": "Email?"}}));
    format!(
        concat!(
            r#"{{"iat":1800000060,"exp":1800000660,"dl":1800001800,"rnd":1,"fid":"CwsLCwsLCwsLCwsLCwsLCw","#,
            r#""q":{{"ship":{ship}}},"ans":{{"email":{{"q":{email},"r":{{"action":"decline"}}}}}},"app":{{}}}}"#
        ),
        ship = ship,
        email = email,
    )
}

/// A negative vector for every rule of the claims (§5, §8 step 7): authentic
/// tokens whose claims break exactly one rule, each an edit of the good
/// claims (which open, checked first).
pub(super) fn claims_rule_negatives(base: &Vector) -> Vec<Vector> {
    let good = good_claims_text();
    let (ship, email) = (ship_digest(), email_digest());
    let control = mint_raw(base, good.as_bytes(), 99);
    let opened = base
        .codec(false)
        .open_at::<Value>(&control, &base.binding.binding(), base.now());
    assert!(opened.is_ok(), "the claims the negatives edit must open");
    let with_both = good.replacen(
        CLAIMS_TAIL,
        &format!(r#","inv":{{"ship":{{"q":"{ship}","n":2}}}},"once":["mail"]{CLAIMS_TAIL}"#),
        1,
    );
    let control = mint_raw(base, with_both.as_bytes(), 98);
    let opened = base
        .codec(false)
        .open_at::<Value>(&control, &base.binding.binding(), base.now());
    assert!(opened.is_ok(), "the claims with inv and once open");
    // The order fixes each vector's nonce: new edits go last.
    let edits = [
        member_and_number_edits(&good),
        identifier_edits(&ship),
        answer_edits(&email),
        reask_and_effect_edits(&ship, &email),
        strictness_edits(&good, &email),
        step_edits(),
    ]
    .concat();
    edits
        .into_iter()
        .enumerate()
        .map(|(index, (name, description, from, to))| {
            assert_eq!(good.matches(from.as_str()).count(), 1, "{name}");
            let plain = good.replacen(&from, &to, 1);
            let description = format!("authentic, but the claims break a rule: {description}");
            negative(
                base,
                &format!("claims-{name}"),
                &description,
                "bad_claims",
                |v| {
                    v.token = mint_raw(v, plain.as_bytes(), 100 + index as u8);
                },
            )
        })
        .collect()
}

/// One edit of the good claims: name, description, the text replaced, and
/// what replaces it.
type Edit = (&'static str, &'static str, String, String);

/// How the good claims end; `inv` and `once`, absent from them, go before it.
const CLAIMS_TAIL: &str = r#","app":{}}"#;

fn ship_digest() -> String {
    let ship =
        digest_text(&json!({"method": "elicitation/create", "params": {"message": "Ship?"}}));
    ship.as_str().unwrap().to_owned()
}

fn email_digest() -> String {
    let email =
        digest_text(&json!({"method": "elicitation/create", "params": {"message": "Email?"}}));
    email.as_str().unwrap().to_owned()
}

/// An identifier of `n` bytes, spelled as the claims spell them.
fn id(n: usize) -> String {
    layout::encode_id(&vec![7; n])
}

/// Adds `inv` with `value` to the good claims.
fn inv_edit(name: &'static str, description: &'static str, value: String) -> Edit {
    (
        name,
        description,
        CLAIMS_TAIL.to_owned(),
        format!(r#","inv":{value}{CLAIMS_TAIL}"#),
    )
}

/// Adds `once` with `value` to the good claims.
fn once_edit(name: &'static str, description: &'static str, value: &str) -> Edit {
    (
        name,
        description,
        CLAIMS_TAIL.to_owned(),
        format!(r#","once":{value}{CLAIMS_TAIL}"#),
    )
}

/// The claims as a whole, the times and `rnd`.
fn member_and_number_edits(good: &str) -> Vec<Edit> {
    vec![
        (
            "duplicate-member",
            "a top-level member twice",
            r#""rnd":1,"#.into(),
            r#""rnd":1,"rnd":1,"#.into(),
        ),
        (
            "not-an-object",
            "the claims are a JSON array",
            good.to_owned(),
            format!("[{good}]"),
        ),
        (
            "iat-after-range",
            "iat one second after year 9999",
            "1800000060".into(),
            "253402300800".into(),
        ),
        (
            "dl-before-range",
            "dl one second before year -9999",
            "1800001800".into(),
            "-377705116801".into(),
        ),
        (
            "exp-beyond-i64",
            "exp beyond a signed 64-bit integer",
            "1800000660".into(),
            "9223372036854775808".into(),
        ),
        (
            "iat-fraction",
            "a fractional time",
            "1800000060".into(),
            "1800000060.5".into(),
        ),
        (
            "iat-integral-fraction",
            "a time written as a fraction",
            "1800000060".into(),
            "1800000060.0".into(),
        ),
        (
            "iat-exponent",
            "a time written with an exponent",
            "1800000060".into(),
            "1.80000006e9".into(),
        ),
        (
            "iat-string",
            "a time as a string",
            "1800000060".into(),
            r#""1800000060""#.into(),
        ),
        (
            "rnd-above-u32",
            "rnd 2^32",
            r#""rnd":1"#.into(),
            r#""rnd":4294967296"#.into(),
        ),
        (
            "rnd-negative",
            "rnd -1",
            r#""rnd":1"#.into(),
            r#""rnd":-1"#.into(),
        ),
        (
            "rnd-minus-zero",
            "rnd -0, which JSON parsers read as a double",
            r#""rnd":1"#.into(),
            r#""rnd":-0"#.into(),
        ),
    ]
}

/// The flow id and the digests of `q`.
fn identifier_edits(ship: &str) -> Vec<Edit> {
    vec![
        (
            "fid-15-bytes",
            "a flow id of 15 bytes",
            "CwsLCwsLCwsLCwsLCwsLCw".into(),
            id(15),
        ),
        (
            "fid-17-bytes",
            "a flow id of 17 bytes",
            "CwsLCwsLCwsLCwsLCwsLCw".into(),
            id(17),
        ),
        (
            "fid-padded",
            "a flow id with base64 padding",
            "CwsLCwsLCwsLCwsLCwsLCw".into(),
            "CwsLCwsLCwsLCwsLCwsLCw==".into(),
        ),
        (
            "fid-standard-alphabet",
            "a flow id in the standard alphabet",
            "CwsLCwsLCwsLCwsLCwsLCw".into(),
            "+wsLCwsLCwsLCwsLCwsLCw".into(),
        ),
        (
            "q-digest-31-bytes",
            "a question digest of 31 bytes",
            ship.into(),
            id(31),
        ),
        (
            "q-digest-33-bytes",
            "a question digest of 33 bytes",
            ship.into(),
            id(33),
        ),
        (
            "q-key-twice",
            "a question key twice",
            r#""q":{"#.into(),
            format!(r#""q":{{"ship":"{ship}","#),
        ),
        (
            "q-not-object",
            "q an array",
            format!(r#""q":{{"ship":"{ship}"}}"#),
            "\"q\":[]".into(),
        ),
    ]
}

/// `ans` and its answers.
fn answer_edits(email: &str) -> Vec<Edit> {
    vec![
        (
            "ans-digest-31-bytes",
            "an answer's question digest of 31 bytes",
            email.into(),
            id(31),
        ),
        (
            "ans-missing-response",
            "an answer without r",
            r#","r":{"action":"decline"}"#.into(),
            String::new(),
        ),
        (
            "ans-missing-question",
            "an answer without q",
            format!(r#""q":"{email}","#),
            String::new(),
        ),
        (
            "ans-extra-member",
            "an answer with a third member",
            r#","r":"#.into(),
            r#","x":1,"r":"#.into(),
        ),
        (
            "ans-response-not-object",
            "an answer whose r is a string",
            r#""r":{"action":"decline"}"#.into(),
            r#""r":"decline""#.into(),
        ),
        (
            "ans-bare-value",
            "an answer as a bare value (the untyped layout)",
            format!(r#"{{"q":"{email}","r":{{"action":"decline"}}}}"#),
            r#""ada@example.com""#.into(),
        ),
        (
            "ans-key-twice",
            "an answer key twice",
            r#""ans":{"#.into(),
            format!(r#""ans":{{"email":{{"q":"{email}","r":{{}}}},"#),
        ),
    ]
}

/// `inv` and `once`.
fn reask_and_effect_edits(ship: &str, email: &str) -> Vec<Edit> {
    vec![
        inv_edit("inv-empty", "inv present but empty", "{}".into()),
        inv_edit(
            "inv-not-object",
            "inv an array",
            format!(r#"[{{"q":"{ship}","n":1}}]"#),
        ),
        inv_edit(
            "inv-key-not-asked",
            "a re-ask under a key that is not in q",
            format!(r#"{{"email":{{"q":"{email}","n":1}}}}"#),
        ),
        inv_edit(
            "inv-key-twice",
            "a re-ask key twice",
            format!(r#"{{"ship":{{"q":"{ship}","n":1}},"ship":{{"q":"{ship}","n":2}}}}"#),
        ),
        inv_edit(
            "inv-count-zero",
            "a re-ask after 0 invalid answers",
            format!(r#"{{"ship":{{"q":"{ship}","n":0}}}}"#),
        ),
        inv_edit(
            "inv-count-above-u32",
            "a re-ask count of 2^32",
            format!(r#"{{"ship":{{"q":"{ship}","n":4294967296}}}}"#),
        ),
        inv_edit(
            "inv-count-fraction",
            "a re-ask count written as a fraction",
            format!(r#"{{"ship":{{"q":"{ship}","n":1.0}}}}"#),
        ),
        inv_edit(
            "inv-missing-count",
            "a re-ask without n",
            format!(r#"{{"ship":{{"q":"{ship}"}}}}"#),
        ),
        inv_edit(
            "inv-extra-member",
            "a re-ask with a third member",
            format!(r#"{{"ship":{{"q":"{ship}","n":1,"x":1}}}}"#),
        ),
        inv_edit(
            "inv-digest-31-bytes",
            "a re-ask's question digest of 31 bytes",
            format!(r#"{{"ship":{{"q":"{}","n":1}}}}"#, id(31)),
        ),
        once_edit("once-empty", "once present but empty", "[]"),
        once_edit(
            "once-name-twice",
            "an effect name twice",
            r#"["mail","mail"]"#,
        ),
        once_edit("once-not-strings", "an effect name that is a number", "[1]"),
        once_edit("once-not-array", "once a string", r#""mail""#),
    ]
}

/// `step` (revision 4), appended after the older edits, so those keep
/// their nonces.
fn step_edits() -> Vec<Edit> {
    let step = |name, description, value: &str| {
        (
            name,
            description,
            CLAIMS_TAIL.to_owned(),
            format!(r#","step":{value}{CLAIMS_TAIL}"#),
        )
    };
    vec![
        step("step-empty", "step present but empty", "{}"),
        step("step-not-object", "step an array", r#"[{"copy":12}]"#),
        step(
            "step-name-twice",
            "a step name twice",
            r#"{"copy":12,"copy":13}"#,
        ),
    ]
}

/// The edits for the rules of §5.2 that revision 2 first wrote down: `ans`
/// not an object, how deep the claims nest, which number literals `rnd` is,
/// lone surrogates and numbers beyond a double anywhere in the claims.
/// Appended after the older edits, so those keep their nonces.
fn strictness_edits(good: &str, email: &str) -> Vec<Edit> {
    let ans = format!(r#""ans":{{"email":{{"q":"{email}","r":{{"action":"decline"}}}}}}"#);
    assert_eq!(good.matches(ans.as_str()).count(), 1);
    let app = r#""app":{}"#;
    let too_deep = format!(r#""app":{}{}"#, "[".repeat(127), "]".repeat(127));
    vec![
        ("ans-not-object", "ans an array", ans, r#""ans":[]"#.into()),
        (
            "app-too-deep",
            "app 127 arrays deep: with the claims object, 128 levels of nesting",
            app.into(),
            too_deep,
        ),
        (
            "app-lone-surrogate",
            "a lone surrogate escape in app",
            app.into(),
            r#""app":"\ud800""#.into(),
        ),
        (
            "app-number-beyond-double",
            "a number in app beyond the range of a double",
            app.into(),
            r#""app":1e400"#.into(),
        ),
        (
            "rnd-integral-fraction",
            "rnd written as a fraction",
            r#""rnd":1,"#.into(),
            r#""rnd":1.0,"#.into(),
        ),
        (
            "rnd-exponent",
            "rnd written with an exponent",
            r#""rnd":1,"#.into(),
            r#""rnd":1e0,"#.into(),
        ),
    ]
}
