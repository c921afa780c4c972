//! The Redis client's errors: why a guard or a store on it could not be
//! built or started ([`RedisConfigError`]), and why Redis failed a command
//! ([`RedisUnavailable`], described without Redis' own text).

use std::fmt;

use redis::RedisError;

/// Feature `redis`: why a [`RedisReplayGuard`](crate::redis::RedisReplayGuard)
/// or a [`RedisTaskStore`](crate::redis::RedisTaskStore) could not be built
/// or started.
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
    /// Redis' `maxmemory-policy` (named) lets it evict mrtr-guard's keys.
    Evicts(String),
    /// Redis refused `CONFIG GET maxmemory-policy`.
    PolicyUnreadable,
    /// Redis could not be reached, or answered in error, at start-up.
    Unavailable(RedisUnavailable),
    /// The key prefix is empty or holds `{` or `}`: Redis Cluster would
    /// ignore the layout's one hash tag (`{}`) or read another there, and
    /// place keys by it instead (`docs/REDIS.md`); the tag keeps the task
    /// store's caps in one slot.
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
                "the redis key prefix is empty or holds { or }, which breaks redis cluster's \
                 hash tag; give key_prefix a non-empty prefix without braces",
            ),
            Self::Unavailable(why) => write!(
                f,
                "could not start on redis: {why}; check that redis runs at the url and \
                 accepts the credentials"
            ),
        }
    }
}

impl std::error::Error for RedisConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Unavailable(why) => Some(why),
            _ => None,
        }
    }
}

/// Feature `redis`: why Redis did not do what it was asked (not reached in
/// time, refused, answered in error or with a reply of the wrong shape),
/// told without Redis' own text: client errors can quote the URL, and
/// server errors are reduced to their code (`NOAUTH`, `READONLY`...).
///
/// Each contract on Redis reports it as its own failure: the replay guard
/// as [`ReplayError::Unavailable`](crate::state::ReplayError::Unavailable),
/// the task store as
/// [`TaskStoreError::Unavailable`](crate::task::TaskStoreError::Unavailable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisUnavailable(String);

impl RedisUnavailable {
    /// The failure, in words of this crate's.
    pub(crate) fn new(why: impl Into<String>) -> Self {
        Self(why.into())
    }
}

impl fmt::Display for RedisUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RedisUnavailable {}

/// Why a new connection is not used.
#[derive(Clone)]
pub(crate) enum ConnectError {
    Redis(RedisUnavailable),
    /// Redis may evict: its policy (a plain word, or `unknown`).
    Evicts(String),
    /// `CONFIG GET` was refused or answered nothing readable.
    PolicyUnreadable,
}

impl ConnectError {
    /// The failure a call reports: the start-up refusal's message when Redis
    /// may evict.
    pub(crate) fn into_unavailable(self) -> RedisUnavailable {
        match self {
            Self::Redis(why) => why,
            Self::Evicts(policy) => {
                RedisUnavailable::new(RedisConfigError::Evicts(policy).to_string())
            }
            Self::PolicyUnreadable => {
                RedisUnavailable::new(RedisConfigError::PolicyUnreadable.to_string())
            }
        }
    }

    /// The failure a builder's `connect` reports.
    pub(crate) fn into_config(self) -> RedisConfigError {
        match self {
            Self::Redis(why) => RedisConfigError::Unavailable(why),
            Self::Evicts(policy) => RedisConfigError::Evicts(policy),
            Self::PolicyUnreadable => RedisConfigError::PolicyUnreadable,
        }
    }
}

/// Describes a Redis failure without its text: client errors can quote the
/// URL, and server errors are reduced to their code (`NOAUTH`, `READONLY`...).
pub(crate) fn unavailable(error: &RedisError) -> RedisUnavailable {
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
    RedisUnavailable(why)
}

/// No answer within the timeout.
pub(crate) fn timed_out() -> RedisUnavailable {
    RedisUnavailable::new("redis did not answer in time")
}

/// A reply of the wrong shape to `command`.
pub(crate) fn unexpected(command: &str) -> RedisUnavailable {
    RedisUnavailable(format!("redis answered {command} with an unexpected reply"))
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
