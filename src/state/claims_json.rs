//! The claims as JSON (`docs/FORMAT.md` §5): short fixed member names, in a
//! fixed order, parsed strictly; and the identifiers inside them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use time::OffsetDateTime;

use crate::json::JsonDigest;
use crate::state::claims::{Claims, FlowId, Meta, ProvenAnswer, Reask, StateContents};
use crate::state::generation::Generation;

/// As in the claims: strict unpadded base64url of the 16 bytes.
impl Serialize for FlowId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        id_text::serialize(self.as_bytes(), serializer)
    }
}

/// Strict: unpadded base64url of exactly 16 bytes, nothing else.
impl<'de> Deserialize<'de> for FlowId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        id_text::deserialize(deserializer).map(Self::from_bytes)
    }
}

/// As in the claims: strict unpadded base64url of the 8 bytes.
impl Serialize for Generation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        id_text::serialize(self.as_bytes(), serializer)
    }
}

/// Strict: unpadded base64url of exactly 8 bytes, nothing else.
impl<'de> Deserialize<'de> for Generation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        id_text::deserialize(deserializer).map(Self::from_bytes)
    }
}

/// As in the claims: strict unpadded base64url of the 32 bytes.
impl Serialize for JsonDigest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        id_text::serialize(self.as_bytes(), serializer)
    }
}

/// Strict: unpadded base64url of exactly 32 bytes, nothing else.
impl<'de> Deserialize<'de> for JsonDigest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        id_text::deserialize(deserializer).map(Self::from_bytes)
    }
}

/// Identifiers (flow id, digests) as the claims spell them: strict unpadded
/// base64url (`layout::encode_id`) of exactly `N` bytes.
mod id_text {
    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer, ser};

    use crate::state::layout;

    pub(super) fn serialize<S: Serializer, const N: usize>(
        bytes: &[u8; N],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut text = [0u8; layout::ID_TEXT_MAX];
        let text = layout::encode_id_in(bytes, &mut text)
            .ok_or_else(|| ser::Error::custom("an identifier longer than 32 bytes"))?;
        serializer.serialize_str(text)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        deserializer: D,
    ) -> Result<[u8; N], D::Error> {
        deserializer.deserialize_str(IdText::<N>)
    }

    struct IdText<const N: usize>;

    impl<const N: usize> Visitor<'_> for IdText<N> {
        type Value = [u8; N];

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "unpadded base64url of {N} bytes")
        }

        fn visit_str<E: de::Error>(self, text: &str) -> Result<[u8; N], E> {
            layout::decode_id(text)
                .ok_or_else(|| E::custom("not an identifier of the right length"))
        }
    }
}

/// The longest the claims are with `q` and `ans` empty, `inv` and `once`
/// absent, and `app`'s value left out: every time at its widest
/// (`-377705116800`, 13 characters), `rnd` at 2^32 - 1 (10), the flow id's
/// 22 characters (`docs/FORMAT.md` §5).
pub(crate) const SKELETON_LEN: usize = 131;

/// What one carried answer adds to `ans` besides its key and its response
/// (both as JSON): `:{"q":"`, the digest's 43 characters, `","r":`, `}` and
/// a comma.
pub(crate) const ANSWER_FRAME_LEN: usize = 58;

/// What the member `gen` adds when present: `,"gen":"`, the generation's
/// 11 characters, `"`.
pub(crate) const GEN_MEMBER_LEN: usize = 20;

/// What the member `inv` adds when present, besides its object: `,"inv":`.
pub(crate) const INV_MEMBER_LEN: usize = 7;

/// What the member `once` adds when present, besides its array: `,"once":`.
pub(crate) const ONCE_MEMBER_LEN: usize = 8;

/// What the member `step` adds when present, besides its object: `,"step":`.
pub(crate) const STEP_MEMBER_LEN: usize = 8;

/// The claims as they are serialized: JSON with short, fixed names, in this
/// order, `gen` only under a guard with generations, `inv`, `once` and
/// `step` only when not empty (`docs/FORMAT.md` §5).
#[derive(Serialize)]
struct WireOut<'a, A> {
    iat: i64,
    exp: i64,
    dl: i64,
    rnd: u32,
    fid: FlowId,
    #[serde(rename = "gen", skip_serializing_if = "Option::is_none")]
    generation: Option<Generation>,
    q: &'a BTreeMap<String, JsonDigest>,
    ans: &'a BTreeMap<String, ProvenAnswer>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    inv: &'a BTreeMap<String, Reask>,
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    once: &'a BTreeSet<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    step: &'a BTreeMap<String, Value>,
    app: &'a A,
}

/// The claims as they are parsed: every member required but `gen`, `inv`,
/// `once` and `step`, which are absent rather than empty; none unknown, none
/// twice; no key twice in `q`, `ans`, `inv` or `step`, no name twice in
/// `once`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireIn<A> {
    iat: i64,
    exp: i64,
    dl: i64,
    rnd: u32,
    fid: FlowId,
    #[serde(rename = "gen", default, deserialize_with = "present_generation")]
    generation: Option<Generation>,
    #[serde(deserialize_with = "unique_keys")]
    q: BTreeMap<String, JsonDigest>,
    #[serde(deserialize_with = "unique_keys")]
    ans: BTreeMap<String, ProvenAnswer>,
    #[serde(default, deserialize_with = "present_unique_keys")]
    inv: BTreeMap<String, Reask>,
    #[serde(default, deserialize_with = "present_names")]
    once: BTreeSet<String>,
    #[serde(default, deserialize_with = "present_unique_keys")]
    step: BTreeMap<String, Value>,
    app: A,
}

/// A JSON object as a map, refusing a member name given twice (`serde`'s own
/// map keeps the last).
fn unique_keys<'de, D, T>(deserializer: D) -> Result<BTreeMap<String, T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct UniqueKeys<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for UniqueKeys<T> {
        type Value = BTreeMap<String, T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object with distinct member names")
        }

        fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
            let mut out = BTreeMap::new();
            while let Some((key, value)) = map.next_entry::<String, T>()? {
                if out.insert(key, value).is_some() {
                    return Err(de::Error::custom("a member name given twice"));
                }
            }
            Ok(out)
        }
    }

    deserializer.deserialize_map(UniqueKeys(PhantomData))
}

/// An optional member's object: as [`unique_keys`], and not empty (an empty
/// one is written by leaving the member out).
fn present_unique_keys<'de, D, T>(deserializer: D) -> Result<BTreeMap<String, T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let map = unique_keys(deserializer)?;
    if map.is_empty() {
        return Err(de::Error::custom("an empty optional member"));
    }
    Ok(map)
}

/// `gen`, when present: a generation (never `null`).
fn present_generation<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Generation>, D::Error> {
    Generation::deserialize(deserializer).map(Some)
}

/// `once`: a non-empty array of distinct strings.
fn present_names<'de, D: Deserializer<'de>>(deserializer: D) -> Result<BTreeSet<String>, D::Error> {
    struct Names;

    impl<'de> Visitor<'de> for Names {
        type Value = BTreeSet<String>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a non-empty array of distinct strings")
        }

        fn visit_seq<S: de::SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
            let mut out = BTreeSet::new();
            while let Some(name) = seq.next_element::<String>()? {
                if !out.insert(name) {
                    return Err(de::Error::custom("a name given twice"));
                }
            }
            if out.is_empty() {
                return Err(de::Error::custom("an empty optional member"));
            }
            Ok(out)
        }
    }

    deserializer.deserialize_seq(Names)
}

/// Serializes claims to the JSON the token carries.
#[cfg(test)]
pub(crate) fn encode<A: Serialize>(
    meta: &Meta,
    contents: &StateContents<A>,
) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::new();
    encode_into(meta, contents, &mut out)?;
    Ok(out)
}

/// Writes the claims JSON to `out`, where the codec seals or signs it in place.
pub(crate) fn encode_into<A: Serialize>(
    meta: &Meta,
    contents: &StateContents<A>,
    out: impl std::io::Write,
) -> Result<(), serde_json::Error> {
    let wire = WireOut {
        iat: meta.issued_at.unix_timestamp(),
        exp: meta.expires_at.unix_timestamp(),
        dl: meta.deadline.unix_timestamp(),
        rnd: meta.round,
        fid: meta.flow_id,
        generation: meta.generation,
        q: &contents.questions,
        ans: &contents.answers,
        inv: &contents.reasks,
        once: &contents.ran_effects,
        step: &contents.steps,
        app: &contents.app,
    };
    serde_json::to_writer(out, &wire)
}

/// Parses authenticated claims JSON. `None` when it does not fit: only a
/// server whose application type changed while tokens were in flight sees it.
pub(crate) fn decode<A: DeserializeOwned>(bytes: &[u8]) -> Option<Claims<A>> {
    let wire: WireIn<A> = serde_json::from_slice(bytes).ok()?;
    // A re-ask is one of the questions asked.
    if !wire.inv.keys().all(|key| wire.q.contains_key(key)) {
        return None;
    }
    Some(Claims {
        meta: Meta {
            issued_at: OffsetDateTime::from_unix_timestamp(wire.iat).ok()?,
            expires_at: OffsetDateTime::from_unix_timestamp(wire.exp).ok()?,
            deadline: OffsetDateTime::from_unix_timestamp(wire.dl).ok()?,
            round: wire.rnd,
            flow_id: wire.fid,
            generation: wire.generation,
        },
        contents: StateContents {
            questions: wire.q,
            answers: wire.ans,
            reasks: wire.inv,
            ran_effects: wire.once,
            steps: wire.step,
            app: wire.app,
        },
    })
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use std::num::NonZeroU32;

    use serde_json::{Value, json};

    use super::*;
    use crate::state::layout;

    fn sample() -> Claims<Value> {
        Claims {
            meta: Meta {
                issued_at: OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap(),
                expires_at: OffsetDateTime::from_unix_timestamp(1_800_000_600).unwrap(),
                deadline: OffsetDateTime::from_unix_timestamp(1_800_001_800).unwrap(),
                round: 2,
                flow_id: FlowId::from_bytes([7; 16]),
                generation: None,
            },
            contents: StateContents::new(json!({"n": 1}))
                .question("ship", &json!({"method": "elicitation/create"}))
                .answer("email", proven_email()),
        }
    }

    fn proven_email() -> ProvenAnswer {
        let response = json!({"action": "accept", "content": {"email": "a@b.example"}});
        ProvenAnswer::new(
            JsonDigest::from_bytes([9; 32]),
            response.as_object().cloned().unwrap(),
        )
    }

    fn encode_sample() -> Vec<u8> {
        let claims = sample();
        encode(&claims.meta, &claims.contents).unwrap()
    }

    /// The lengths the runtime's budget is computed from, measured.
    #[test]
    fn skeleton_answer_and_member_lengths() {
        let earliest = OffsetDateTime::from_unix_timestamp(-377_705_116_800).unwrap();
        let meta = Meta {
            issued_at: earliest,
            expires_at: earliest,
            deadline: earliest,
            round: u32::MAX,
            flow_id: FlowId::from_bytes([0xff; 16]),
            generation: None,
        };
        let len = |contents: &StateContents<()>| encode(&meta, contents).unwrap().len();
        let bare = len(&StateContents::new(()));
        assert_eq!(bare, SKELETON_LEN + "null".len());
        let generation = Some(Generation::from_bytes([0xff; 8]));
        let with_gen = encode(&Meta { generation, ..meta }, &StateContents::new(())).unwrap();
        assert_eq!(with_gen.len(), bare + GEN_MEMBER_LEN);
        assert!(
            String::from_utf8(with_gen)
                .unwrap()
                .contains(r#""fid":"_____________________w","gen":"__________8","q":{}"#)
        );
        let response = json!({"action": "decline"}).as_object().cloned().unwrap();
        let proven = ProvenAnswer::new(JsonDigest::from_bytes([9; 32]), response);
        let one = len(&StateContents::new(()).answer("k", proven.clone()));
        let two = len(&StateContents::new(())
            .answer("k", proven.clone())
            .answer("l", proven));
        let frame = r#""k""#.len() + r#"{"action":"decline"}"#.len() + ANSWER_FRAME_LEN;
        assert_eq!(one - bare, frame - 1, "the first answer has no comma");
        assert_eq!(two - one, frame);
        let reask = Reask::new(JsonDigest::from_bytes([9; 32]), NonZeroU32::MIN);
        let with_inv = StateContents::new(()).question_digest("k", JsonDigest::from_bytes([9; 32]));
        let inv = len(&with_inv.clone().reask("k", reask)) - len(&with_inv);
        assert_eq!(
            inv,
            INV_MEMBER_LEN
                + serde_json::to_string(&BTreeMap::from([("k", reask)]))
                    .unwrap()
                    .len()
        );
        let once = len(&StateContents::new(()).ran_effect("e")) - bare;
        assert_eq!(once, ONCE_MEMBER_LEN + r#"["e"]"#.len());
        let step = len(&StateContents::new(()).step("s", json!(12))) - bare;
        assert_eq!(step, STEP_MEMBER_LEN + r#"{"s":12}"#.len());
    }

    /// `step`: after `once`, before `app`, left out when empty; parsed back
    /// as written; refused empty or with a name twice.
    #[test]
    fn steps_travel_as_an_optional_member() {
        let claims = sample();
        let contents = claims
            .contents
            .clone()
            .ran_effect("mail")
            .step("copy", json!({"rows": 12}));
        let text = String::from_utf8(encode(&claims.meta, &contents).unwrap()).unwrap();
        assert!(
            text.ends_with(r#""once":["mail"],"step":{"copy":{"rows":12}},"app":{"n":1}}"#),
            "{text}"
        );
        let decoded = decode::<Value>(text.as_bytes()).unwrap();
        assert_eq!(decoded.steps()["copy"], json!({"rows": 12}));
        assert!(!encode_sample().windows(6).any(|w| w == b"\"step\""));
        let empty = text.replace(r#""step":{"copy":{"rows":12}}"#, r#""step":{}"#);
        assert!(decode::<Value>(empty.as_bytes()).is_none(), "{empty}");
        let twice = text.replace(
            r#""step":{"copy":{"rows":12}}"#,
            r#""step":{"copy":1,"copy":2}"#,
        );
        assert!(decode::<Value>(twice.as_bytes()).is_none(), "{twice}");
    }

    #[test]
    fn claims_round_trip_through_json() {
        assert_eq!(decode::<Value>(&encode_sample()), Some(sample()));
    }

    #[test]
    fn claims_json_has_fixed_short_names() {
        let text = String::from_utf8(encode_sample()).unwrap();
        assert!(
            text.starts_with(r#"{"iat":1800000000,"exp":1800000600,"dl":1800001800,"rnd":2,"fid":"BwcHBwcHBwcHBwcHBwcHBw","q":{"ship":""#),
            "{text}"
        );
        assert!(
            text.ends_with(concat!(
                r#""ans":{"email":{"q":"CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk","#,
                r#""r":{"action":"accept","content":{"email":"a@b.example"}}}},"app":{"n":1}}"#
            )),
            "{text}"
        );
    }

    #[test]
    fn unknown_or_missing_fields_and_bad_ids_do_not_decode() {
        let good = String::from_utf8(encode_sample()).unwrap();
        let extra = good.replacen('{', r#"{"x":1,"#, 1);
        assert!(decode::<Value>(extra.as_bytes()).is_none());
        let missing = good.replacen(r#""rnd":2,"#, "", 1);
        assert!(decode::<Value>(missing.as_bytes()).is_none());
        let short_fid = good.replacen("BwcHBwcHBwcHBwcHBwcHBw", "BwcH", 1);
        assert!(decode::<Value>(short_fid.as_bytes()).is_none());
        let wrong_app = decode::<u32>(good.as_bytes());
        assert!(wrong_app.is_none());
        let duplicate = good.replacen(r#""rnd":2,"#, r#""rnd":2,"rnd":1,"#, 1);
        assert!(decode::<Value>(duplicate.as_bytes()).is_none());
    }

    /// Every rule of `q` and `ans`: strict identifiers of the right length,
    /// exactly `q` and `r` in an answer, `r` an object, no key twice.
    #[test]
    fn questions_and_answers_parse_strictly() {
        let good = String::from_utf8(encode_sample()).unwrap();
        let digest = "CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk";
        let ship = format_ship(&good);
        let changes = [
            // A question digest of 31 bytes, padded, or not text.
            good.replacen(&ship, &ship[..ship.len() - 2], 1),
            good.replacen(&ship, &format!("{ship}="), 1),
            good.replacen(&format!("\"{ship}\""), "[]", 1),
            // A question key twice.
            good.replacen(r#""q":{"#, &format!(r#""q":{{"ship":"{ship}","#), 1),
            // An answer's digest of 33 bytes; missing, unknown or doubled members.
            good.replacen(digest, &format!("{digest}CQ"), 1),
            good.replacen(&format!(r#""q":"{digest}","#), "", 1),
            good.replacen(r#","r":{"#, r#","x":1,"r":{"#, 1),
            good.replacen(r#","r":{"#, &format!(r#","q":"{digest}","r":{{"#), 1),
            // A response that is no object.
            good.replacen(
                r#""r":{"action":"accept","content":{"email":"a@b.example"}}"#,
                r#""r":"accept""#,
                1,
            ),
            // An answer key twice; `ans` not an object.
            good.replacen(
                r#""ans":{"#,
                r#""ans":{"email":{"q":"CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk","r":{}},"#,
                1,
            ),
            good.replacen(r#""ans":{"#, r#""ans":[{"#, 1)
                .replacen(r#"},"app""#, r#"}],"app""#, 1),
        ];
        for text in changes {
            assert_ne!(text, good);
            assert!(decode::<Value>(text.as_bytes()).is_none(), "{text}");
        }
    }

    /// The spelling of the sample's `ship` digest.
    fn format_ship(claims: &str) -> String {
        let start = claims.find(r#""ship":""#).unwrap() + r#""ship":""#.len();
        claims[start..start + 43].to_owned()
    }

    #[test]
    fn times_outside_years_minus_9999_to_9999_do_not_decode() {
        let good = String::from_utf8(encode_sample()).unwrap();
        for (iat, ok) in [
            ("-377705116800", true),
            ("253402300799", true),
            ("-377705116801", false),
            ("253402300800", false),
            ("1800000000.5", false),
            ("9223372036854775808", false),
        ] {
            let text = good.replacen("1800000000", iat, 1);
            assert_eq!(decode::<Value>(text.as_bytes()).is_some(), ok, "{iat}");
        }
        let negative_round = good.replacen(r#""rnd":2"#, r#""rnd":-1"#, 1);
        assert!(decode::<Value>(negative_round.as_bytes()).is_none());
        let huge_round = good.replacen(r#""rnd":2"#, r#""rnd":4294967296"#, 1);
        assert!(decode::<Value>(huge_round.as_bytes()).is_none());
    }

    /// §5.2: the claims JSON is strict about its own members, and takes `r`
    /// and an untyped `app` as `serde_json` does: the last of a repeated name.
    #[test]
    fn a_repeated_name_inside_r_or_app_keeps_the_last() {
        let digest = layout::encode_id(&[9; 32]);
        let text = format!(
            concat!(
                r#"{{"iat":1800000000,"exp":1800000600,"dl":1800001800,"rnd":1,"#,
                r#""fid":"BwcHBwcHBwcHBwcHBwcHBw","q":{{}},"#,
                r#""ans":{{"k":{{"q":"{d}","r":{{"a":1,"a":2}}}}}},"app":{{"x":1,"x":2}}}}"#
            ),
            d = digest
        );
        let claims = decode::<Value>(text.as_bytes()).unwrap();
        assert_eq!(claims.answers()["k"].response()["a"], json!(2));
        assert_eq!(claims.app(), &json!({"x": 2}));
        let deep = |n: usize| {
            text.replace(
                r#""app":{"x":1,"x":2}"#,
                &format!(r#""app":{}{}"#, "[".repeat(n), "]".repeat(n)),
            )
        };
        assert!(decode::<Value>(deep(126).as_bytes()).is_some());
        assert!(decode::<Value>(deep(127).as_bytes()).is_none());
    }
}
