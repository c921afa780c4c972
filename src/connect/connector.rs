//! [`Connector`]: the connect flow's settings and keys, shared by the
//! rounds that ask ([`Round::connect`](crate::Round::connect)) and the
//! connect route that completes the step; and [`Connect`], one ask.
#![cfg_attr(
    not(feature = "connect"),
    allow(dead_code, reason = "what the connect route (feature `connect`) reads")
)]

use std::collections::BTreeMap;
use std::error::Error;
use std::fmt;
use std::sync::Arc;

use time::{Duration, OffsetDateTime};

use crate::connect::connection::Connection;
use crate::connect::link::{LinkAsk, LinkClaims, LinkId, Sealed, Step};
#[cfg(feature = "connect-oauth")]
use crate::connect::oauth::OAuthProvider;
use crate::connect::store::{ConnectionStore, ConnectionStoreError};
use crate::form::Form;
use crate::state::{
    KeyRing, MemoryReplayGuard, PrincipalKey, ReplayError, ReplayGuard, TokenUse, is_endpoint_url,
};

/// How long a connect link opens by default: five minutes.
pub const DEFAULT_LINK_TTL: Duration = Duration::minutes(5);
/// How long a connection is kept by default: thirty days.
pub const DEFAULT_CONNECTION_TTL: Duration = Duration::days(30);

/// The connect flow of one server: the connect route's URL, the key its
/// links and connections are sealed with, the connections it may make
/// (secrets, each with the [`Form`] its page shows), the store they go
/// to and the replay guard that makes every link single use.
///
/// Build one per server, share it (`Arc`) between the tools that ask and
/// the connect route.
pub struct Connector {
    keys: KeyRing,
    route: String,
    store: Arc<dyn ConnectionStore>,
    guard: Arc<dyn ReplayGuard>,
    link_ttl: Duration,
    connection_ttl: Duration,
    secrets: BTreeMap<String, Form>,
    #[cfg(feature = "connect-oauth")]
    oauth: BTreeMap<String, OAuthProvider>,
}

impl Connector {
    /// Starts building the connect flow whose route is at `route` (the
    /// absolute URL a browser opens, as `https://tools.example.com/connect`),
    /// sealing with `keys` and keeping connections in `store`.
    pub fn builder(
        route: impl Into<String>,
        keys: KeyRing,
        store: Arc<dyn ConnectionStore>,
    ) -> ConnectorBuilder {
        ConnectorBuilder {
            connector: Self {
                keys,
                route: route.into(),
                store,
                guard: Arc::new(MemoryReplayGuard::new(100_000)),
                link_ttl: DEFAULT_LINK_TTL,
                connection_ttl: DEFAULT_CONNECTION_TTL,
                secrets: BTreeMap::new(),
                #[cfg(feature = "connect-oauth")]
                oauth: BTreeMap::new(),
            },
        }
    }

    /// The ask for the secret connection `name`, as registered with
    /// [`ConnectorBuilder::secret`].
    #[must_use]
    pub fn secret<'c>(&'c self, name: &'c str) -> Connect<'c> {
        Connect {
            connector: self,
            name,
            step: Step::Secret,
        }
    }

    /// The ask for the OAuth connection `name`, as registered with
    /// [`ConnectorBuilder::oauth`] (feature `connect-oauth`).
    #[cfg(feature = "connect-oauth")]
    #[must_use]
    pub fn oauth<'c>(&'c self, name: &'c str) -> Connect<'c> {
        Connect {
            connector: self,
            name,
            step: Step::Oauth,
        }
    }

    /// `principal`'s connection `name`, if it has one: what a tool reads
    /// once a connect step completed (in this flow or an earlier one).
    ///
    /// # Errors
    ///
    /// [`ConnectionStoreError`] when the store cannot tell.
    pub fn connection(
        &self,
        principal: Option<&str>,
        name: &str,
    ) -> Result<Option<Connection>, ConnectionStoreError> {
        self.connection_at(principal, name, OffsetDateTime::now_utc())
    }

    /// Forgets `principal`'s connection `name` (the user disconnected).
    ///
    /// # Errors
    ///
    /// [`ConnectionStoreError`] when the store cannot tell.
    pub fn disconnect(
        &self,
        principal: Option<&str>,
        name: &str,
    ) -> Result<(), ConnectionStoreError> {
        self.store.remove(self.owner(principal), name)
    }

    /// The connect route's URL.
    #[must_use]
    pub fn route(&self) -> &str {
        &self.route
    }

    /// How long a link opens.
    #[must_use]
    pub fn link_ttl(&self) -> Duration {
        self.link_ttl
    }

    pub(crate) fn connection_at(
        &self,
        principal: Option<&str>,
        name: &str,
        now: OffsetDateTime,
    ) -> Result<Option<Connection>, ConnectionStoreError> {
        let sealed = self.store.find(self.owner(principal), name, now)?;
        Ok(sealed.and_then(|sealed| Connection::open(&self.keys, principal, name, &sealed)))
    }

    /// Keeps `connection` as `principal`'s connection `name`.
    pub(crate) fn keep(
        &self,
        principal: Option<&str>,
        name: &str,
        connection: &Connection,
        now: OffsetDateTime,
    ) -> Result<(), ConnectionStoreError> {
        let sealed = connection
            .seal(&self.keys, principal, name)
            .ok_or_else(|| ConnectionStoreError::Unavailable("no randomness".to_owned()))?;
        let until = now.checked_add(self.connection_ttl).unwrap_or(now);
        self.store.put(self.owner(principal), name, sealed, until)
    }

    /// The store's name for `principal`.
    fn owner(&self, principal: Option<&str>) -> PrincipalKey {
        PrincipalKey::of_principal(self.keys.active(), &self.route, principal)
    }

    /// The id of the link `ask` would be given.
    pub(crate) fn link_id(&self, ask: &LinkAsk<'_>) -> LinkId {
        LinkId::derive(&self.keys, ask)
    }

    /// The URL of a fresh link for `ask`, minted at `now`; `None` when the
    /// OS random generator fails or the time is out of range.
    pub(crate) fn link_url(
        &self,
        ask: &LinkAsk<'_>,
        step: &Step,
        now: OffsetDateTime,
    ) -> Option<String> {
        let issued_at = now.unix_timestamp();
        let claims = LinkClaims {
            principal: ask.principal.map(str::to_owned),
            flow: ask.flow,
            round: ask.round,
            key: ask.key.to_owned(),
            target: ask.target.to_owned(),
            arguments: *ask.arguments,
            connection: ask.connection.to_owned(),
            step: step.clone(),
            id: self.link_id(ask),
            issued_at,
            expires_at: issued_at.checked_add(self.link_ttl.whole_seconds())?,
            browser: None,
        };
        let text = claims.seal(&self.keys, Sealed::Link, &self.route)?;
        let separator = if self.route.contains('?') { '&' } else { '?' };
        Some(format!("{}{separator}link={text}", self.route))
    }

    pub(crate) fn keys(&self) -> &KeyRing {
        &self.keys
    }

    /// The form of the secret connection `name`, if registered.
    pub(crate) fn secret_form(&self, name: &str) -> Option<&Form> {
        self.secrets.get(name)
    }

    /// The third party of the OAuth connection `name`, if registered.
    #[cfg(feature = "connect-oauth")]
    pub(crate) fn oauth_provider(&self, name: &str) -> Option<&OAuthProvider> {
        self.oauth.get(name)
    }

    /// Whether `step` names a connection this connector may make.
    pub(crate) fn knows(&self, name: &str, step: &Step) -> bool {
        match step {
            Step::Secret => self.secrets.contains_key(name),
            #[cfg(feature = "connect-oauth")]
            Step::Oauth => self.oauth.contains_key(name),
            #[cfg(not(feature = "connect-oauth"))]
            Step::Oauth => false,
        }
    }

    /// Consumes the sealed value of `kind` of the link `claims`, for
    /// `principal`, once: the replay guard refuses a second use.
    pub(crate) fn consume(
        &self,
        claims: &LinkClaims,
        kind: Sealed,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError> {
        let issued_at = OffsetDateTime::from_unix_timestamp(claims.issued_at)
            .map_err(|_| ReplayError::Replayed)?;
        let expires_at = OffsetDateTime::from_unix_timestamp(claims.expires_at)
            .map_err(|_| ReplayError::Replayed)?;
        let flow = claims.id.as_flow();
        let token = TokenUse::new(
            self.owner(claims.principal.as_deref()),
            flow,
            kind.guard_round(),
            issued_at,
            Duration::ZERO,
            expires_at
                .checked_add(Duration::minutes(1))
                .unwrap_or(expires_at),
        )
        .with_generation(self.guard.generation(flow));
        self.guard.consume(token, now)
    }
}

impl Connector {
    fn oauth_names(&self) -> Vec<&str> {
        #[cfg(feature = "connect-oauth")]
        return self.oauth.keys().map(String::as_str).collect();
        #[cfg(not(feature = "connect-oauth"))]
        Vec::new()
    }
}

impl fmt::Debug for Connector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connector")
            .field("route", &self.route)
            .field("link_ttl", &self.link_ttl)
            .field("connection_ttl", &self.connection_ttl)
            .field("secrets", &self.secrets.keys().collect::<Vec<_>>())
            .field("oauth", &self.oauth_names())
            .finish_non_exhaustive()
    }
}

/// The settings of a [`Connector`]; see there.
#[derive(Debug)]
pub struct ConnectorBuilder {
    connector: Connector,
}

impl ConnectorBuilder {
    /// Declares the secret connection `name`, whose connect page asks
    /// `form` (its fields shown as password inputs, its answer validated
    /// as an elicitation answer is). Only string fields can be typed on
    /// the page.
    #[must_use]
    pub fn secret(mut self, name: impl Into<String>, form: Form) -> Self {
        self.connector.secrets.insert(name.into(), form);
        self
    }

    /// Declares the OAuth connection `name`: the connect route runs the
    /// authorization-code flow with PKCE at `provider` and keeps the tokens
    /// (feature `connect-oauth`). Register the connect route's URL as the
    /// client's redirect URI there.
    #[cfg(feature = "connect-oauth")]
    #[must_use]
    pub fn oauth(mut self, name: impl Into<String>, provider: OAuthProvider) -> Self {
        self.connector.oauth.insert(name.into(), provider);
        self
    }

    /// How long a link opens ([`DEFAULT_LINK_TTL`]).
    #[must_use]
    pub fn link_ttl(mut self, ttl: Duration) -> Self {
        self.connector.link_ttl = ttl;
        self
    }

    /// How long a connection is kept ([`DEFAULT_CONNECTION_TTL`]).
    #[must_use]
    pub fn connection_ttl(mut self, ttl: Duration) -> Self {
        self.connector.connection_ttl = ttl;
        self
    }

    /// The replay guard that makes each link single use (by default one of
    /// this process: give the server's shared guard when it runs as
    /// several instances).
    #[must_use]
    pub fn replay_guard(mut self, guard: Arc<dyn ReplayGuard>) -> Self {
        self.connector.guard = guard;
        self
    }

    /// Checks the settings.
    ///
    /// # Errors
    ///
    /// [`ConnectorConfigError`] saying what to change.
    pub fn build(self) -> Result<Connector, ConnectorConfigError> {
        let connector = self.connector;
        if !is_endpoint_url(&connector.route) || connector.route.contains('#') {
            return Err(ConnectorConfigError::InvalidRoute);
        }
        if connector.link_ttl <= Duration::ZERO || connector.link_ttl > Duration::hours(1) {
            return Err(ConnectorConfigError::LinkTtl);
        }
        if connector.connection_ttl <= Duration::ZERO {
            return Err(ConnectorConfigError::ConnectionTtl);
        }
        if connector.keys.has_all_zero_key() {
            return Err(ConnectorConfigError::AllZeroKey);
        }
        #[cfg(feature = "connect-oauth")]
        if let Some(name) = connector
            .oauth
            .iter()
            .find_map(|(name, p)| (!p.is_valid()).then_some(name))
        {
            return Err(ConnectorConfigError::InvalidProvider(name.clone()));
        }
        Ok(connector)
    }
}

/// Why a [`Connector`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectorConfigError {
    /// The route is not an absolute `http(s)://` URL with a host.
    InvalidRoute,
    /// The link TTL is not between a second and an hour.
    LinkTtl,
    /// The connection TTL is not positive.
    ConnectionTtl,
    /// A key of the ring is all zero bytes (a placeholder).
    AllZeroKey,
    /// The named OAuth connection's endpoints are not absolute URLs.
    InvalidProvider(String),
}

impl fmt::Display for ConnectorConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InvalidRoute => {
                "connect route: give the absolute http(s) URL a browser opens, as https://tools.example.com/connect"
            }
            Self::LinkTtl => "connect link TTL: give between one second and one hour",
            Self::ConnectionTtl => "connection TTL: give a positive duration",
            Self::AllZeroKey => "connector key: an all-zero key is a placeholder; give a real key",
            Self::InvalidProvider(name) => {
                return write!(
                    f,
                    "OAuth connection {name:?}: give absolute URLs of its authorization and token endpoints"
                );
            }
        })
    }
}

impl Error for ConnectorConfigError {}

/// One connect ask: which connection, and through which step. Made by
/// [`Connector::secret`] (or `Connector::oauth`); asked by [`Round::connect`](crate::Round::connect).
#[derive(Debug, Clone)]
pub struct Connect<'c> {
    pub(crate) connector: &'c Connector,
    pub(crate) name: &'c str,
    pub(crate) step: Step,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect::memory::MemoryConnectionStore;
    use crate::state::MasterKey;

    fn builder(route: &str) -> ConnectorBuilder {
        let keys = KeyRing::new(MasterKey::from_bytes(&[9; 32]).expect("key"));
        Connector::builder(route, keys, Arc::new(MemoryConnectionStore::new(8)))
    }

    #[test]
    fn refuses_settings_that_cannot_work() {
        assert!(builder("https://tools.example.com/connect").build().is_ok());
        for route in [
            "/connect",
            "tools.example.com/connect",
            "ftp://x/connect",
            "https://x/c#f",
        ] {
            assert_eq!(
                builder(route).build().err(),
                Some(ConnectorConfigError::InvalidRoute),
                "{route}"
            );
        }
        let route = "https://tools.example.com/connect";
        assert_eq!(
            builder(route).link_ttl(Duration::hours(2)).build().err(),
            Some(ConnectorConfigError::LinkTtl)
        );
        assert_eq!(
            builder(route).link_ttl(Duration::ZERO).build().err(),
            Some(ConnectorConfigError::LinkTtl)
        );
        let zero = KeyRing::new(MasterKey::from_bytes(&[0; 32]).expect("key"));
        let store = Arc::new(MemoryConnectionStore::new(8));
        assert_eq!(
            Connector::builder(route, zero, store).build().err(),
            Some(ConnectorConfigError::AllZeroKey)
        );
    }
}
