//! What every builder on the client sets alike: the [`Endpoint`] (where
//! Redis is, TLS, the timeouts, the eviction check), the key prefix (one
//! rule for every contract: `layout`) and the replicas a write waits for. Held by each contract's builder as its
//! `settings`, checked here once, and set through the setters written here
//! once ([`setters`], expanded in each builder's `impl`).

use std::fmt;
use std::time::Duration;

use crate::redis::connection::Connector;
use crate::redis::endpoint::Endpoint;
use crate::redis::error::RedisConfigError;
use crate::redis::layout::{DEFAULT_PREFIX, valid_prefix};

/// A builder's connection settings.
pub(crate) struct Settings {
    pub(crate) endpoint: Endpoint,
    pub(crate) prefix: String,
    /// `WAIT replicas timeout` after each write, when set.
    pub(crate) wait: Option<(u32, Duration)>,
}

/// What checked settings make: the client, the prefix, the replicas a
/// write waits for.
pub(crate) struct Checked {
    pub(crate) connector: Connector,
    pub(crate) prefix: String,
    pub(crate) wait: Option<(u32, Duration)>,
}

impl Settings {
    /// The defaults for the Redis at `url`.
    pub(crate) fn new(url: String) -> Self {
        Self {
            endpoint: Endpoint::new(url),
            prefix: DEFAULT_PREFIX.to_owned(),
            wait: None,
        }
    }

    /// Checks the settings and makes the client, without connecting: the
    /// prefix, the `WAIT` timeout, then the endpoint.
    pub(crate) fn check(self) -> Result<Checked, RedisConfigError> {
        if !valid_prefix(&self.prefix) {
            return Err(RedisConfigError::InvalidKeyPrefix);
        }
        if self.wait.is_some_and(|(_, timeout)| timeout.is_zero()) {
            return Err(RedisConfigError::ZeroTimeout);
        }
        Ok(Checked {
            connector: self.endpoint.connector()?,
            prefix: self.prefix,
            wait: self.wait,
        })
    }

    /// The settings' fields of a builder's `Debug`: never the URL, which may
    /// hold a password.
    pub(crate) fn fields(&self, f: &mut fmt::DebugStruct<'_, '_>) {
        f.field("custom_ca", &self.endpoint.ca_pem.is_some())
            .field("prefix", &self.prefix)
            .field("connect_timeout", &self.endpoint.connect_timeout)
            .field("command_timeout", &self.endpoint.command_timeout)
            .field("wait_for_replicas", &self.wait)
            .field("checks_eviction_policy", &self.endpoint.check_policy);
    }
}

/// The setters of the connection every builder on the client has, each
/// written and documented once: expanded inside the `impl` of a builder
/// that holds its [`Settings`] as `settings` and has a `build`.
macro_rules! setters {
    () => {
        /// Sets the prefix of every key written (default `mrtr-guard`; no
        /// `{` or `}`): each key is the prefix, `:`, then the contract's
        /// part, as `docs/REDIS.md` lays out. Give each server (audience)
        /// sharing one Redis its own prefix, and every instance of one
        /// server the same; one server's replay guard and task store may
        /// share it.
        pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
            self.settings.prefix = prefix.into();
            self
        }

        /// Sets the time allowed to open a connection, handshake and checks
        /// included (default 500 ms).
        pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.endpoint.connect_timeout = timeout;
            self
        }

        /// Sets the time allowed to send one command and read its answer
        /// (default 500 ms).
        pub fn command_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.endpoint.command_timeout = timeout;
            self
        }

        /// Trusts only the CA certificates in `pem` (one or more PEM
        /// `CERTIFICATE` blocks) for a `rediss://` URL, instead of the
        /// Mozilla roots: for a private CA (a self-hosted Redis, a cloud
        /// service that issues its own server CA). Needs feature
        /// `redis-tls`: without it, [`build`](Self::build) refuses a CA with
        /// [`RedisConfigError::TlsNotEnabled`](crate::redis::RedisConfigError::TlsNotEnabled).
        pub fn ca_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
            self.settings.endpoint.ca_pem = Some(pem.into());
            self
        }
    };
}

pub(crate) use setters;
