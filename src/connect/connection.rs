//! [`Connection`]: what a connect step produced for one principal (the
//! secret typed on the connect page, the tokens a third party issued), as
//! the tool reads it; and how it is sealed for the store, bound to its
//! principal and name.
#![cfg_attr(
    not(feature = "connect"),
    allow(dead_code, reason = "what the connect route (feature `connect`) reads")
)]

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::connect::link::LinkId;
use crate::state::{KeyRing, open_record, push_field, seal_record};

/// The record kind a connection is sealed as.
const KIND: &str = "connection";

/// What a connect step produced for one principal, under one connection
/// name: a secret's fields or a third party's tokens. Read it in the tool
/// ([`Round::connect`](crate::Round::connect), or
/// [`Connector::connection`](crate::connect::Connector::connection)); it
/// never goes to the client.
///
/// Its values are wiped on drop; `Debug` names the connection's kind and
/// field names, never a value.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Connection {
    /// The link whose step made it.
    link: LinkId,
    /// Unix seconds.
    connected_at: i64,
    credential: Credential,
}

/// A connection's content.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Credential {
    /// The connect page's fields, as validated.
    Secret(BTreeMap<String, SecretText>),
    /// A third party's token response.
    Tokens {
        access_token: SecretText,
        #[serde(default)]
        refresh_token: Option<SecretText>,
        token_type: String,
        /// Unix seconds.
        #[serde(default)]
        expires_at: Option<i64>,
        #[serde(default)]
        scope: Option<String>,
    },
}

impl Connection {
    pub(crate) fn new(link: LinkId, connected_at: i64, credential: Credential) -> Self {
        Self {
            link,
            connected_at,
            credential,
        }
    }

    /// The value the connect page took for `field`, for a secret
    /// connection.
    #[must_use]
    pub fn secret(&self, field: &str) -> Option<&str> {
        match &self.credential {
            Credential::Secret(fields) => fields.get(field).map(SecretText::as_str),
            Credential::Tokens { .. } => None,
        }
    }

    /// The third party's access token, for an OAuth connection.
    #[must_use]
    pub fn access_token(&self) -> Option<&str> {
        match &self.credential {
            Credential::Tokens { access_token, .. } => Some(access_token.as_str()),
            Credential::Secret(_) => None,
        }
    }

    /// The third party's refresh token, if it issued one.
    #[must_use]
    pub fn refresh_token(&self) -> Option<&str> {
        match &self.credential {
            Credential::Tokens { refresh_token, .. } => {
                refresh_token.as_ref().map(SecretText::as_str)
            }
            Credential::Secret(_) => None,
        }
    }

    /// The scope the third party granted, if it said.
    #[must_use]
    pub fn scope(&self) -> Option<&str> {
        match &self.credential {
            Credential::Tokens { scope, .. } => scope.as_deref(),
            Credential::Secret(_) => None,
        }
    }

    /// When the step completed, in Unix seconds.
    #[must_use]
    pub fn connected_at(&self) -> i64 {
        self.connected_at
    }

    pub(crate) fn link(&self) -> LinkId {
        self.link
    }

    /// Seals the connection for `principal` under `name`; `None` when the
    /// OS random generator fails.
    pub(crate) fn seal(
        &self,
        keys: &KeyRing,
        principal: Option<&str>,
        name: &str,
    ) -> Option<Vec<u8>> {
        let plain = Zeroizing::new(serde_json::to_vec(self).ok()?);
        seal_record(keys, KIND, &record_id(principal, name), &plain)
    }

    /// Opens a connection sealed for `principal` under `name`: `None` when
    /// it was sealed for another, changed, or under a key the ring lacks.
    pub(crate) fn open(
        keys: &KeyRing,
        principal: Option<&str>,
        name: &str,
        sealed: &[u8],
    ) -> Option<Self> {
        let plain = open_record(keys, KIND, &record_id(principal, name), sealed)?;
        serde_json::from_slice(&plain).ok()
    }
}

/// A secret value: wiped on drop, no `Debug` of its text.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct SecretText(Zeroizing<String>);

impl SecretText {
    pub(crate) fn new(text: String) -> Self {
        Self(Zeroizing::new(text))
    }

    pub(crate) fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl Serialize for SecretText {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for SecretText {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::new)
    }
}

/// The id a connection is sealed under: its principal and its name.
fn record_id(principal: Option<&str>, name: &str) -> Vec<u8> {
    let mut id = Vec::with_capacity(name.len().saturating_add(64));
    match principal {
        None => id.push(0x00),
        Some(principal) => {
            id.push(0x01);
            push_field(&mut id, principal.as_bytes());
        }
    }
    push_field(&mut id, name.as_bytes());
    id
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = f.debug_struct("Connection");
        match &self.credential {
            Credential::Secret(fields) => out.field("secret", &fields.keys().collect::<Vec<_>>()),
            Credential::Tokens { token_type, .. } => out.field("tokens", token_type),
        };
        out.field("connected_at", &self.connected_at)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{FlowId, MasterKey};

    fn ring() -> KeyRing {
        KeyRing::new(MasterKey::from_bytes(&[5; 32]).expect("key"))
    }

    fn secret() -> Connection {
        let mut fields = BTreeMap::new();
        fields.insert(
            "apiKey".to_owned(),
            SecretText::new("sk-live-123".to_owned()),
        );
        Connection::new(
            LinkIdForTests::id(),
            1_800_000_000,
            Credential::Secret(fields),
        )
    }

    struct LinkIdForTests;
    impl LinkIdForTests {
        fn id() -> LinkId {
            serde_json::from_value(serde_json::to_value(FlowId::from_bytes([1; 16])).expect("json"))
                .expect("an id")
        }
    }

    #[test]
    fn a_connection_opens_only_for_its_principal_and_name() {
        let keys = ring();
        let sealed = secret().seal(&keys, Some("alice"), "api").expect("sealed");
        assert!(!sealed.windows(7).any(|w| w == b"sk-live"));
        let opened = Connection::open(&keys, Some("alice"), "api", &sealed).expect("opens");
        assert_eq!(opened.secret("apiKey"), Some("sk-live-123"));
        assert!(Connection::open(&keys, Some("bob"), "api", &sealed).is_none());
        assert!(Connection::open(&keys, None, "api", &sealed).is_none());
        assert!(Connection::open(&keys, Some("alice"), "other", &sealed).is_none());
    }

    #[test]
    fn debug_shows_no_value() {
        let text = format!("{:?}", secret());
        assert!(
            text.contains("apiKey") && !text.contains("sk-live"),
            "{text}"
        );
    }
}
