//! The Redis a client of this crate talks to: its URL parsed, TLS checked
//! (refused without feature `redis-tls`, never without verification, a
//! private CA checked), the timeouts refused when zero; what the replay
//! guard and the task store both connect through.

use std::time::Duration;

#[cfg(feature = "redis-tls")]
use redis::TlsCertificates;
#[cfg(not(feature = "redis-tls"))]
use redis::parse_redis_url;
use redis::{Client, ConnectionAddr, IntoConnectionInfo};
#[cfg(feature = "redis-tls")]
use rustls::pki_types::CertificateDer;
#[cfg(feature = "redis-tls")]
use rustls::pki_types::pem::PemObject;

use crate::redis::connection::Connector;
use crate::redis::error::RedisConfigError;
use crate::redis::watch::Watch;

/// The time allowed to open a connection unless a builder sets another.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// The time allowed for one command unless a builder sets another.
pub(crate) const COMMAND_TIMEOUT: Duration = Duration::from_millis(500);

/// What a [`Connector`] is made from.
pub(crate) struct Endpoint {
    /// The URL (may hold a password: never printed).
    pub(crate) url: String,
    /// The CA to trust instead of the Mozilla roots.
    pub(crate) ca_pem: Option<Vec<u8>>,
    pub(crate) connect_timeout: Duration,
    pub(crate) command_timeout: Duration,
    /// Whether each new connection reads `maxmemory-policy`.
    pub(crate) check_policy: bool,
}

impl Endpoint {
    /// The Redis at `url`, with the Mozilla roots, the default timeouts and
    /// the policy check.
    pub(crate) fn new(url: String) -> Self {
        Self {
            url,
            ca_pem: None,
            connect_timeout: CONNECT_TIMEOUT,
            command_timeout: COMMAND_TIMEOUT,
            check_policy: true,
        }
    }

    /// Checks the settings and makes the client, without connecting.
    ///
    /// For a `rediss://` URL, if the process has no default rustls crypto
    /// provider yet, this installs rustls' `ring` provider as the default.
    pub(crate) fn connector(self) -> Result<Connector, RedisConfigError> {
        if self.connect_timeout.is_zero() || self.command_timeout.is_zero() {
            return Err(RedisConfigError::ZeroTimeout);
        }
        #[cfg(not(feature = "redis-tls"))]
        refuse_tls(&self.url, self.ca_pem.is_some())?;
        let info = self
            .url
            .as_str()
            .into_connection_info()
            .map_err(|_| RedisConfigError::InvalidUrl)?;
        let tls = match info.addr() {
            ConnectionAddr::TcpTls { insecure: true, .. } => {
                return Err(RedisConfigError::InsecureTls);
            }
            ConnectionAddr::TcpTls { .. } => true,
            _ => false,
        };
        // No CLIENT SETINFO: nothing beyond AUTH and SELECT in the handshake.
        let settings = info.redis_settings().clone().set_skip_set_lib_name();
        let info = info.set_redis_settings(settings);
        #[cfg(feature = "redis-tls")]
        let client = match &self.ca_pem {
            None => Client::open(info.clone()),
            Some(_) if !tls => return Err(RedisConfigError::CaWithoutTls),
            Some(pem) => {
                check_ca_pem(pem)?;
                let certificates = TlsCertificates {
                    client_tls: None,
                    root_cert: Some(pem.clone()),
                };
                Client::build_with_tls(info.clone(), certificates)
            }
        }
        .map_err(|_| RedisConfigError::InvalidUrl)?;
        #[cfg(not(feature = "redis-tls"))]
        let client = Client::open(info.clone()).map_err(|_| RedisConfigError::InvalidUrl)?;
        #[cfg(feature = "redis-tls")]
        if tls {
            install_crypto_provider();
        }
        let server = client.get_connection_info().addr().to_string();
        Ok(Connector {
            client,
            info,
            #[cfg(feature = "redis-tls")]
            ca_pem: self.ca_pem,
            connect_timeout: self.connect_timeout,
            command_timeout: self.command_timeout,
            check_policy: self.check_policy,
            watch: Watch::new(server.clone()),
            server,
            tls,
        })
    }
}

/// Without feature `redis-tls`: refuses a TLS URL (`rediss://`,
/// `valkeys://`) or a CA certificate, rather than connecting without TLS.
#[cfg(not(feature = "redis-tls"))]
fn refuse_tls(url: &str, ca: bool) -> Result<(), RedisConfigError> {
    let tls_url =
        parse_redis_url(url).is_some_and(|url| matches!(url.scheme(), "rediss" | "valkeys"));
    if tls_url || ca {
        return Err(RedisConfigError::TlsNotEnabled);
    }
    Ok(())
}

/// Checks that `pem` holds at least one certificate and nothing that fails
/// to parse: an empty trust store would refuse every connection later, with
/// a less helpful error.
#[cfg(feature = "redis-tls")]
fn check_ca_pem(pem: &[u8]) -> Result<(), RedisConfigError> {
    let mut count = 0usize;
    for certificate in CertificateDer::pem_slice_iter(pem) {
        certificate.map_err(|_| RedisConfigError::InvalidCaCertificate)?;
        count = count.saturating_add(1);
    }
    if count == 0 {
        return Err(RedisConfigError::InvalidCaCertificate);
    }
    Ok(())
}

/// rustls needs a process-wide crypto provider; the `redis` crate takes the
/// default one. Installs `ring` unless the application already chose one.
#[cfg(feature = "redis-tls")]
fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Err means another thread installed one first: that one is used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
