//! [`LinkClaims`]: what a connect link, and the single-use values the
//! connect route hands the browser after it, carry: sealed as records of
//! their own kind, bound to the connect route's URL, never readable or
//! changeable by whoever holds the text.
//!
//! Three kinds, one shape: the link the client opens (`connect-link`), the
//! ticket the secret page posts back (`connect-form`) and the OAuth `state`
//! the third party hands back (`connect-state`). Each holds the link's
//! claims; a ticket and a state also hold the browser binding (the hash of
//! the CSRF cookie) they were issued for.
#![cfg_attr(
    not(feature = "connect"),
    allow(dead_code, reason = "what the connect route (feature `connect`) reads")
)]

use std::fmt;

use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq as _;
use time::OffsetDateTime;

use crate::json::JsonDigest;
use crate::state::{FlowId, KeyRing, open_record, seal_record};

/// What a sealed value of the connect flow is: each kind opens only as
/// itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sealed {
    /// The link in the `elicitation/create` URL.
    Link,
    /// The secret page's hidden ticket (its CSRF token).
    Form,
    /// The OAuth `state` parameter the third party hands back.
    #[cfg_attr(
        not(feature = "connect-oauth"),
        allow(dead_code, reason = "the OAuth step (feature `connect-oauth`)")
    )]
    State,
}

impl Sealed {
    fn kind(self) -> &'static str {
        match self {
            Self::Link => "connect-link",
            Self::Form => "connect-form",
            Self::State => "connect-state",
        }
    }

    /// The round a replay guard consumes a value of this kind under, with
    /// the link's id as its flow id: one use of each kind per link.
    pub(crate) fn guard_round(self) -> u32 {
        match self {
            Self::Link => 1,
            Self::Form => 2,
            Self::State => 3,
        }
    }
}

/// The step a link asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Step {
    /// A secret typed on the connect page, validated by the connection's
    /// form.
    Secret,
    /// An OAuth authorization at the connection's third party.
    Oauth,
}

/// What a connect link is bound to. Built by the round that asks, read by
/// the connect route once the link opened.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LinkClaims {
    /// The principal the link was made for (`None`: anonymous).
    pub(crate) principal: Option<String>,
    /// The MCP flow that asked.
    pub(crate) flow: FlowId,
    /// The round that asked.
    pub(crate) round: u32,
    /// The key the round asked under.
    pub(crate) key: String,
    /// The tool (the call's target) that asked.
    pub(crate) target: String,
    /// The digest of the call's arguments.
    pub(crate) arguments: JsonDigest,
    /// The connection the step makes.
    pub(crate) connection: String,
    /// What the step is.
    pub(crate) step: Step,
    /// The link's id: derived from everything above, under the key.
    pub(crate) id: LinkId,
    /// Unix seconds.
    pub(crate) issued_at: i64,
    /// Unix seconds; the link does not open from then on.
    pub(crate) expires_at: i64,
    /// A ticket's or a state's browser binding: SHA-256 of the CSRF cookie.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) browser: Option<JsonDigest>,
}

impl LinkClaims {
    /// Seals the claims as `kind`, for the connect route at `route`: the
    /// URL-safe text, or `None` when the OS random generator fails.
    pub(crate) fn seal(&self, keys: &KeyRing, kind: Sealed, route: &str) -> Option<String> {
        let plain = serde_json::to_vec(self).ok()?;
        let sealed = seal_record(keys, kind.kind(), route.as_bytes(), &plain)?;
        Some(crate::state::encode_text(&sealed))
    }

    /// Opens `text` sealed as `kind` for `route`, if it opens and has not
    /// expired at `now`. Every failure is the same `None`.
    pub(crate) fn open(
        keys: &KeyRing,
        kind: Sealed,
        route: &str,
        text: &str,
        now: OffsetDateTime,
    ) -> Option<Self> {
        if text.len() > MAX_TEXT_LEN {
            return None;
        }
        let sealed = crate::state::decode_text(text)?;
        let plain = open_record(keys, kind.kind(), route.as_bytes(), &sealed)?;
        let claims: Self = serde_json::from_slice(&plain).ok()?;
        (now.unix_timestamp() < claims.expires_at).then_some(claims)
    }

    /// Whether `principal` is the one the link was made for (constant time
    /// over the texts).
    pub(crate) fn is_for(&self, principal: Option<&str>) -> bool {
        match (self.principal.as_deref(), principal) {
            (Some(mine), Some(theirs)) => bool::from(mine.as_bytes().ct_eq(theirs.as_bytes())),
            (None, None) => true,
            _ => false,
        }
    }
}

/// The claims name their principal, tool and connection: `Debug` shows the
/// link's id and times only.
impl fmt::Debug for LinkClaims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LinkClaims")
            .field("id", &self.id)
            .field("round", &self.round)
            .field("issued_at", &self.issued_at)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

/// The longest sealed text the route reads (a link is a few hundred
/// bytes; this bounds the work an attacker's text costs).
pub(crate) const MAX_TEXT_LEN: usize = 4096;

/// A connect link's identifier: 16 bytes of HMAC-SHA256 under the active
/// key over the flow, the round and key that asked, the principal, the
/// tool, its arguments and the connection. The round that asked derives it
/// again on the retry to tell whether the connection stored is the one its
/// link made; the replay guard consumes each sealed value under it.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LinkId(FlowId);

impl LinkId {
    /// The id of the link asked for by `ask` under the ring's active key.
    pub(crate) fn derive(keys: &KeyRing, ask: &LinkAsk<'_>) -> Self {
        let mut input = Vec::with_capacity(256);
        let push = crate::state::push_field;
        push(&mut input, b"mrtr-guard/v1/connect-link-id");
        push(&mut input, ask.flow.as_bytes());
        push(&mut input, &ask.round.to_le_bytes());
        push(&mut input, ask.key.as_bytes());
        match ask.principal {
            None => input.push(0x00),
            Some(principal) => {
                input.push(0x01);
                push(&mut input, principal.as_bytes());
            }
        }
        push(&mut input, ask.target.as_bytes());
        push(&mut input, ask.arguments.as_bytes());
        push(&mut input, ask.connection.as_bytes());
        Self(FlowId::from_bytes(keys.mac16(&input)))
    }

    /// The id as a flow id, which the replay guard records.
    pub(crate) fn as_flow(self) -> FlowId {
        self.0
    }

    /// Whether `other` is this id (constant time).
    pub(crate) fn matches(self, other: Self) -> bool {
        bool::from(self.0.as_bytes().ct_eq(other.0.as_bytes()))
    }
}

impl fmt::Debug for LinkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LinkId({})", self.0)
    }
}

/// The PKCE code verifier of the OAuth `state` text `state`: 43 characters
/// of base64url over an HMAC of it under the active key. Derived again at
/// the callback from the state it brings back, it is never stored and never
/// sent anywhere but to the third party's token endpoint.
#[cfg_attr(
    not(feature = "connect-oauth"),
    allow(dead_code, reason = "the OAuth step (feature `connect-oauth`)")
)]
pub(crate) fn pkce_verifier(keys: &KeyRing, state: &str) -> zeroize::Zeroizing<String> {
    let mut input = Vec::with_capacity(state.len().saturating_add(64));
    crate::state::push_field(&mut input, b"mrtr-guard/v1/connect-pkce");
    crate::state::push_field(&mut input, state.as_bytes());
    zeroize::Zeroizing::new(crate::state::encode_text(&keys.mac32(&input)))
}

/// What a link's id is derived from: the ask, as the round sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LinkAsk<'a> {
    pub(crate) principal: Option<&'a str>,
    pub(crate) flow: FlowId,
    pub(crate) round: u32,
    pub(crate) key: &'a str,
    pub(crate) target: &'a str,
    pub(crate) arguments: &'a JsonDigest,
    pub(crate) connection: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::MasterKey;

    fn ring(byte: u8) -> KeyRing {
        KeyRing::new(MasterKey::from_bytes(&[byte; 32]).expect("a 32-byte key"))
    }

    fn claims(keys: &KeyRing) -> LinkClaims {
        let arguments = JsonDigest::of(&serde_json::json!({"list": "work"}));
        let ask = LinkAsk {
            principal: Some("alice"),
            flow: FlowId::from_bytes([3; 16]),
            round: 1,
            key: "contacts",
            target: "import_contacts",
            arguments: &arguments,
            connection: "contacts",
        };
        LinkClaims {
            principal: Some("alice".to_owned()),
            flow: ask.flow,
            round: 1,
            key: "contacts".to_owned(),
            target: "import_contacts".to_owned(),
            arguments,
            connection: "contacts".to_owned(),
            step: Step::Secret,
            id: LinkId::derive(keys, &ask),
            issued_at: 1_800_000_000,
            expires_at: 1_800_000_600,
            browser: None,
        }
    }

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(seconds).expect("in range")
    }

    const ROUTE: &str = "https://tools.example.com/connect";

    #[test]
    fn a_link_opens_only_as_what_it_was_sealed_for() {
        let keys = ring(7);
        let link = claims(&keys);
        let text = link.seal(&keys, Sealed::Link, ROUTE).expect("sealed");
        assert!(!text.contains("alice") && !text.contains("contacts"));
        let now = at(1_800_000_100);
        let open = |keys: &KeyRing, kind, route, text: &str| {
            LinkClaims::open(keys, kind, route, text, now)
        };
        assert_eq!(open(&keys, Sealed::Link, ROUTE, &text), Some(link));
        assert_eq!(
            open(&keys, Sealed::Form, ROUTE, &text),
            None,
            "another kind"
        );
        assert_eq!(
            open(&keys, Sealed::Link, "https://evil.example/connect", &text),
            None,
            "another route"
        );
        assert_eq!(
            open(&ring(8), Sealed::Link, ROUTE, &text),
            None,
            "another key"
        );
        for at in 0..text.len() {
            let mut changed = text.clone().into_bytes();
            if let Some(byte) = changed.get_mut(at) {
                *byte = if *byte == b'A' { b'B' } else { b'A' };
            }
            let changed = String::from_utf8(changed).expect("ascii");
            assert_eq!(
                open(&keys, Sealed::Link, ROUTE, &changed),
                None,
                "char {at}"
            );
        }
        assert_eq!(open(&keys, Sealed::Link, ROUTE, ""), None);
        assert_eq!(open(&keys, Sealed::Link, ROUTE, &"A".repeat(5000)), None);
    }

    #[test]
    fn a_link_does_not_open_once_expired() {
        let keys = ring(7);
        let text = claims(&keys)
            .seal(&keys, Sealed::Link, ROUTE)
            .expect("sealed");
        let opens = |now| LinkClaims::open(&keys, Sealed::Link, ROUTE, &text, at(now)).is_some();
        assert!(opens(1_800_000_599));
        assert!(!opens(1_800_000_600));
        assert!(!opens(1_900_000_000));
    }

    #[test]
    fn the_id_binds_every_part_of_the_ask() {
        let keys = ring(7);
        let arguments = JsonDigest::of(&serde_json::json!({}));
        let other = JsonDigest::of(&serde_json::json!({"x": 1}));
        let ask = LinkAsk {
            principal: Some("alice"),
            flow: FlowId::from_bytes([3; 16]),
            round: 1,
            key: "k",
            target: "t",
            arguments: &arguments,
            connection: "c",
        };
        let id = LinkId::derive(&keys, &ask);
        let changed = [
            LinkAsk {
                principal: Some("bob"),
                ..ask
            },
            LinkAsk {
                principal: None,
                ..ask
            },
            LinkAsk {
                flow: FlowId::from_bytes([4; 16]),
                ..ask
            },
            LinkAsk { round: 2, ..ask },
            LinkAsk { key: "k2", ..ask },
            LinkAsk {
                target: "t2",
                ..ask
            },
            LinkAsk {
                arguments: &other,
                ..ask
            },
            LinkAsk {
                connection: "c2",
                ..ask
            },
        ];
        for (n, ask) in changed.iter().enumerate() {
            assert!(!LinkId::derive(&keys, ask).matches(id), "change {n}");
        }
        assert!(!LinkId::derive(&ring(8), &ask).matches(id), "another key");
        assert!(LinkId::derive(&keys, &ask).matches(id));
    }

    #[test]
    fn the_pkce_verifier_is_43_characters_bound_to_the_state_and_key() {
        let keys = ring(7);
        let verifier = pkce_verifier(&keys, "state-1");
        assert_eq!(verifier.len(), 43);
        assert_eq!(*verifier, *pkce_verifier(&keys, "state-1"));
        assert_ne!(*verifier, *pkce_verifier(&keys, "state-2"));
        assert_ne!(*verifier, *pkce_verifier(&ring(8), "state-1"));
    }

    #[test]
    fn is_for_compares_the_principal() {
        let keys = ring(7);
        let link = claims(&keys);
        assert!(link.is_for(Some("alice")));
        assert!(!link.is_for(Some("bob")));
        assert!(!link.is_for(Some("alic")));
        assert!(!link.is_for(None));
    }

    proptest::proptest! {
        /// Whatever text the route is given as a link, ticket or state, it
        /// opens as nothing and never panics: the text and a sealed link
        /// with bytes appended or cut.
        #[test]
        fn arbitrary_text_never_opens(text in "\\PC{0,600}", cut in 0usize..400, tail in "[A-Za-z0-9_-]{0,8}") {
            let keys = ring(7);
            let now = at(1_800_000_100);
            for kind in [Sealed::Link, Sealed::Form, Sealed::State] {
                proptest::prop_assert!(LinkClaims::open(&keys, kind, ROUTE, &text, now).is_none());
            }
            let sealed = claims(&keys).seal(&keys, Sealed::Link, ROUTE).expect("sealed");
            let changed = format!("{}{tail}", sealed.get(..cut.min(sealed.len())).unwrap_or_default());
            if changed != sealed {
                proptest::prop_assert!(LinkClaims::open(&keys, Sealed::Link, ROUTE, &changed, now).is_none());
            }
        }
    }

    #[test]
    fn debug_names_no_principal_or_tool() {
        let keys = ring(7);
        let text = format!("{:?}", claims(&keys));
        assert!(
            !text.contains("alice") && !text.contains("import_contacts"),
            "{text}"
        );
    }
}
