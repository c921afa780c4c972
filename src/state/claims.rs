//! What a token carries inside: times, the flow's position, the questions
//! still open, the answers already proven, and the application's own data.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use crate::state::binding::JsonDigest;
use crate::state::format;

/// A random 16-byte identifier shared by every token of one flow.
///
/// Not secret. The replay guard records it with the round number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowId([u8; 16]);

impl FlowId {
    /// The id's bytes.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    pub(crate) fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }
}

impl fmt::Display for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in &self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for FlowId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FlowId({self})")
    }
}

/// What the server puts into a new token: the questions it is asking now,
/// the answers it has proven so far, and its own data.
///
/// ```
/// use mrtr_guard::Contents;
/// use serde_json::json;
///
/// let ask = json!({"method": "elicitation/create", "params": {"message": "Ship?"}});
/// let contents = Contents::new(json!({"cart": 17}))
///     .question("ship", &ask)
///     .answer("email", json!("ada@example.com"));
/// assert!(contents.questions().contains_key("ship"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Contents<A> {
    questions: BTreeMap<String, JsonDigest>,
    answers: BTreeMap<String, Value>,
    app: A,
}

impl<A> Contents<A> {
    /// Contents holding only the application's data.
    pub fn new(app: A) -> Self {
        Self {
            questions: BTreeMap::new(),
            answers: BTreeMap::new(),
            app,
        }
    }

    /// Records that the `inputRequests` entry `request` is asked under `key`.
    /// Only its digest is stored.
    #[must_use]
    pub fn question(self, key: impl Into<String>, request: &Value) -> Self {
        self.question_digest(key, JsonDigest::of(request))
    }

    /// Records a question by the digest of its `inputRequests` entry.
    #[must_use]
    pub fn question_digest(mut self, key: impl Into<String>, digest: JsonDigest) -> Self {
        self.questions.insert(key.into(), digest);
        self
    }

    /// Carries an answer that an earlier round proved.
    #[must_use]
    pub fn answer(mut self, key: impl Into<String>, value: Value) -> Self {
        self.answers.insert(key.into(), value);
        self
    }

    /// The questions, by `inputRequests` key.
    pub fn questions(&self) -> &BTreeMap<String, JsonDigest> {
        &self.questions
    }

    /// The carried answers, by key.
    pub fn answers(&self) -> &BTreeMap<String, Value> {
        &self.answers
    }

    /// The application's data.
    pub fn app(&self) -> &A {
        &self.app
    }

    /// Questions, answers and application data, moved out.
    pub(crate) fn into_parts(self) -> (BTreeMap<String, JsonDigest>, BTreeMap<String, Value>, A) {
        (self.questions, self.answers, self.app)
    }
}

/// The verified contents of a token. Only [`StateCodec::open_at`](crate::StateCodec::open_at)
/// makes one, after the tag, the binding, the times and the round cap checked out.
#[derive(Debug, Clone, PartialEq)]
pub struct Claims<A> {
    meta: Meta,
    contents: Contents<A>,
}

/// The claims the codec sets: times and the flow's position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    pub(crate) issued_at: OffsetDateTime,
    pub(crate) expires_at: OffsetDateTime,
    pub(crate) deadline: OffsetDateTime,
    pub(crate) round: u32,
    pub(crate) flow_id: FlowId,
}

impl<A> Claims<A> {
    /// When the token was minted.
    pub fn issued_at(&self) -> OffsetDateTime {
        self.meta.issued_at
    }

    /// When the token stops opening (not included): at most the round TTL
    /// after minting, and never after the flow's deadline.
    pub fn expires_at(&self) -> OffsetDateTime {
        self.meta.expires_at
    }

    /// The flow's absolute deadline, fixed by its first token.
    pub fn deadline(&self) -> OffsetDateTime {
        self.meta.deadline
    }

    /// How many times this flow has asked, counting the ask that minted this
    /// token: 1 for the first.
    pub fn round(&self) -> u32 {
        self.meta.round
    }

    /// The flow's id.
    pub fn flow_id(&self) -> FlowId {
        self.meta.flow_id
    }

    /// The questions the minting round asked, by `inputRequests` key.
    pub fn questions(&self) -> &BTreeMap<String, JsonDigest> {
        &self.contents.questions
    }

    /// Answers proven by earlier rounds.
    pub fn answers(&self) -> &BTreeMap<String, Value> {
        &self.contents.answers
    }

    /// The application's data.
    pub fn app(&self) -> &A {
        &self.contents.app
    }

    /// The carried contents, to build the next token from.
    pub fn into_contents(self) -> Contents<A> {
        self.contents
    }

    /// The contents moved out, and the claims left with only their times,
    /// round and flow id (enough for [`StateCodec::next`](crate::StateCodec::next)).
    pub(crate) fn into_parts(self) -> (Claims<()>, Contents<A>) {
        let meta = Claims {
            meta: self.meta,
            contents: Contents::new(()),
        };
        (meta, self.contents)
    }

    #[cfg(test)]
    pub(crate) fn meta(&self) -> &Meta {
        &self.meta
    }
}

/// The claims as they are serialized: JSON with short, fixed names.
#[derive(Serialize)]
struct WireOut<'a, A> {
    iat: i64,
    exp: i64,
    dl: i64,
    rnd: u32,
    fid: String,
    q: BTreeMap<&'a str, String>,
    ans: &'a BTreeMap<String, Value>,
    app: &'a A,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireIn<A> {
    iat: i64,
    exp: i64,
    dl: i64,
    rnd: u32,
    fid: String,
    q: BTreeMap<String, String>,
    ans: BTreeMap<String, Value>,
    app: A,
}

/// Serializes claims to the JSON the token carries.
#[cfg(test)]
pub(crate) fn encode<A: Serialize>(
    meta: &Meta,
    contents: &Contents<A>,
) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::new();
    encode_into(meta, contents, &mut out)?;
    Ok(out)
}

/// Writes the claims JSON to `out`, where the codec seals it in place.
pub(crate) fn encode_into<A: Serialize>(
    meta: &Meta,
    contents: &Contents<A>,
    out: impl std::io::Write,
) -> Result<(), serde_json::Error> {
    let wire = WireOut {
        iat: meta.issued_at.unix_timestamp(),
        exp: meta.expires_at.unix_timestamp(),
        dl: meta.deadline.unix_timestamp(),
        rnd: meta.round,
        fid: format::encode_id(meta.flow_id.as_bytes()),
        q: contents
            .questions
            .iter()
            .map(|(key, digest)| (key.as_str(), format::encode_id(digest.as_bytes())))
            .collect(),
        ans: &contents.answers,
        app: &contents.app,
    };
    serde_json::to_writer(out, &wire)
}

/// Parses authenticated claims JSON. `None` when it does not fit: only a
/// server whose application type changed while tokens were in flight sees it.
pub(crate) fn decode<A: DeserializeOwned>(bytes: &[u8]) -> Option<Claims<A>> {
    let wire: WireIn<A> = serde_json::from_slice(bytes).ok()?;
    let questions = wire
        .q
        .into_iter()
        .map(|(key, digest)| Some((key, JsonDigest::from_bytes(format::decode_id(&digest)?))))
        .collect::<Option<BTreeMap<_, _>>>()?;
    Some(Claims {
        meta: Meta {
            issued_at: OffsetDateTime::from_unix_timestamp(wire.iat).ok()?,
            expires_at: OffsetDateTime::from_unix_timestamp(wire.exp).ok()?,
            deadline: OffsetDateTime::from_unix_timestamp(wire.dl).ok()?,
            round: wire.rnd,
            flow_id: FlowId::from_bytes(format::decode_id(&wire.fid)?),
        },
        contents: Contents {
            questions,
            answers: wire.ans,
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
    use serde_json::json;

    use super::*;

    fn sample() -> Claims<Value> {
        Claims {
            meta: Meta {
                issued_at: OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap(),
                expires_at: OffsetDateTime::from_unix_timestamp(1_800_000_600).unwrap(),
                deadline: OffsetDateTime::from_unix_timestamp(1_800_001_800).unwrap(),
                round: 2,
                flow_id: FlowId::from_bytes([7; 16]),
            },
            contents: Contents::new(json!({"n": 1}))
                .question("ship", &json!({"method": "elicitation/create"}))
                .answer("email", json!("a@b.example")),
        }
    }

    fn encode_sample() -> Vec<u8> {
        let claims = sample();
        encode(&claims.meta, &claims.contents).unwrap()
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
            text.ends_with(r#""ans":{"email":"a@b.example"},"app":{"n":1}}"#),
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
}
