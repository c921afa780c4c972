//! The Redis guard's errors: why it could not be built or started
//! ([`RedisConfigError`]), and a Redis failure described without its text.

use std::fmt;

use redis::RedisError;

use crate::state::replay::error::ReplayError;

/// Feature `redis`: why a [`RedisReplayGuard`](crate::state::RedisReplayGuard)
/// could not be built or started.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedisConfigError {
    /// The URL is not a `redis://`, `rediss://` or `redis+unix://` URL.
    InvalidUrl,
    /// The URL asks for TLS without certificate verification (`#insecure`).
    InsecureTls,
    /// A CA certificate was given for a URL without TLS.
    CaWithoutTls,
    /// TLS was asked for (a `rediss://` URL, or a CA certificate) in a build
    /// without feature `redis-tls`: refused rather than connecting in plain.
    TlsNotEnabled,
    /// The CA certificate holds no PEM certificate, or one that does not parse.
    InvalidCaCertificate,
    /// A timeout is zero.
    ZeroTimeout,
    /// Redis' `maxmemory-policy` (named) lets it evict the guard's keys.
    Evicts(String),
    /// Redis refused `CONFIG GET maxmemory-policy`.
    PolicyUnreadable,
    /// Redis could not be reached, or answered in error, at start-up.
    Unavailable(ReplayError),
    /// The key prefix holds `{` or `}`: a Redis Cluster hash tag there would
    /// move keys that must share a slot apart (the task store's).
    InvalidKeyPrefix,
}

impl fmt::Display for RedisConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidUrl => f.write_str(
                "the redis url is not valid; give redis://host:port/, rediss://host:port/ \
                 (tls) or redis+unix:///path",
            ),
            Self::InsecureTls => f.write_str(
                "the redis url turns off tls certificate verification (#insecure); remove \
                 #insecure, and give a private ca with ca_certificate_pem",
            ),
            Self::CaWithoutTls => f.write_str(
                "a redis ca certificate was given for a url without tls; use a rediss:// url, \
                 or drop ca_certificate_pem",
            ),
            Self::InvalidCaCertificate => f.write_str(
                "the redis ca certificate is not a valid pem certificate; give \
                 ca_certificate_pem the ca's pem text (-----BEGIN CERTIFICATE-----)",
            ),
            Self::ZeroTimeout => f.write_str(
                "a redis timeout is zero; give connect_timeout, command_timeout, \
                 watch_interval and the wait_for_replicas timeout more than zero",
            ),
            Self::TlsNotEnabled => f.write_str(
                "redis tls (a rediss:// url or a ca certificate) needs mrtr-guard's feature \
                 redis-tls: enable it (features = [\"redis-tls\"]), or give a redis:// url",
            ),
            Self::Evicts(policy) => write!(
                f,
                "redis maxmemory-policy is {policy}: redis may evict mrtr-guard's keys (a used \
                 requestState would open again, a task would vanish); set maxmemory-policy \
                 noeviction (CONFIG SET maxmemory-policy noeviction, and in redis.conf)"
            ),
            Self::PolicyUnreadable => f.write_str(
                "redis refused CONFIG GET maxmemory-policy, so mrtr-guard cannot check that \
                 redis never evicts; set the service's eviction policy to noeviction, then build \
                 with allow_replay_if_redis_evicts() (the replay guard) or \
                 allow_task_loss_if_redis_evicts() (the task store)",
            ),
            Self::InvalidKeyPrefix => f.write_str(
                "the redis key prefix holds { or }, which redis cluster reads as a hash tag; \
                 give key_prefix a prefix without braces",
            ),
            Self::Unavailable(error) => write!(
                f,
                "the redis guard did not start: {error}; check that redis runs at the url \
                 and accepts the credentials"
            ),
        }
    }
}

impl std::error::Error for RedisConfigError {}

/// Why a new connection is not used.
#[derive(Clone)]
pub(super) enum ConnectError {
    Redis(ReplayError),
    /// Redis may evict: its policy (a plain word, or `unknown`).
    Evicts(String),
    /// `CONFIG GET` was refused or answered nothing readable.
    PolicyUnreadable,
}

impl ConnectError {
    pub(super) fn into_replay(self) -> ReplayError {
        match self {
            Self::Redis(error) => error,
            Self::Evicts(policy) => {
                ReplayError::Unavailable(RedisConfigError::Evicts(policy).to_string())
            }
            Self::PolicyUnreadable => {
                ReplayError::Unavailable(RedisConfigError::PolicyUnreadable.to_string())
            }
        }
    }

    pub(super) fn into_config(self) -> RedisConfigError {
        match self {
            Self::Redis(error) => RedisConfigError::Unavailable(error),
            Self::Evicts(policy) => RedisConfigError::Evicts(policy),
            Self::PolicyUnreadable => RedisConfigError::PolicyUnreadable,
        }
    }
}

/// Describes a Redis failure without its text: client errors can quote the
/// URL, and server errors are reduced to their code (`NOAUTH`, `READONLY`...).
pub(super) fn unavailable(error: &RedisError) -> ReplayError {
    let why = if let Some(why) = tls_failure(error) {
        why.to_owned()
    } else if error.is_timeout() {
        return timed_out();
    } else if error.is_connection_refusal() {
        "redis refused the connection".to_owned()
    } else if error.is_connection_dropped() {
        "the connection to redis was lost".to_owned()
    } else if error.kind() == redis::ErrorKind::AuthenticationFailed
        || error.code() == Some("WRONGPASS")
    {
        "redis refused the credentials".to_owned()
    } else if error.is_io_error() {
        "i/o error talking to redis".to_owned()
    } else if error.code() == Some("OOM") {
        "redis is out of memory (maxmemory reached, noeviction): refusing rather than \
         forgetting; raise maxmemory or lower the load"
            .to_owned()
    } else {
        match error.code().filter(|code| is_plain_code(code)) {
            Some(code) => format!("redis answered with error {code}"),
            None => "redis answered in error".to_owned(),
        }
    };
    ReplayError::Unavailable(why)
}

pub(super) fn timed_out() -> ReplayError {
    ReplayError::Unavailable("redis did not answer in time".to_owned())
}

pub(super) fn unexpected(command: &str) -> ReplayError {
    ReplayError::Unavailable(format!("redis answered {command} with an unexpected reply"))
}

/// What failed, if TLS did.
#[cfg(feature = "redis-tls")]
fn tls_failure(error: &RedisError) -> Option<&'static str> {
    Some(match tls_error(error)? {
        rustls::Error::InvalidCertificate(_) => "redis' tls certificate was not accepted",
        _ => "tls error talking to redis",
    })
}

/// Without TLS, no TLS failure.
#[cfg(not(feature = "redis-tls"))]
fn tls_failure(_: &RedisError) -> Option<&'static str> {
    None
}

/// The rustls error inside a Redis I/O error, if TLS failed. The `redis`
/// crate keeps the I/O error in an `Arc`, which is what `source` returns.
#[cfg(feature = "redis-tls")]
fn tls_error(error: &RedisError) -> Option<&rustls::Error> {
    type Shared = std::sync::Arc<dyn std::error::Error + Send + Sync>;
    let source = std::error::Error::source(error)?;
    let io = match source.downcast_ref::<Shared>() {
        Some(shared) => shared.downcast_ref::<std::io::Error>(),
        None => source.downcast_ref::<std::io::Error>(),
    }?;
    io.get_ref()?.downcast_ref::<rustls::Error>()
}

/// Whether a server error code is a short upper-case word, safe to log.
fn is_plain_code(code: &str) -> bool {
    !code.is_empty()
        && code.len() <= 32
        && code
            .bytes()
            .all(|byte| byte.is_ascii_uppercase() || byte == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_error_codes_are_kept_only_when_plain() {
        assert!(is_plain_code("NOAUTH"));
        assert!(is_plain_code("WRONGTYPE"));
        assert!(!is_plain_code("pass=x"));
        assert!(!is_plain_code(""));
        assert!(!is_plain_code(&"A".repeat(33)));
    }
}
