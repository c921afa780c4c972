//! Settings for a Redis guard, checked before it connects.

use std::fmt;
use std::sync::{Arc, Once, OnceLock};
use std::time::Duration;

use crate::redis::error::RedisConfigError;
use crate::redis::replay::guard::{Inner, RedisReplayGuard, Slot};
use crate::redis::settings::{Checked, Settings, setters};

impl RedisReplayGuard {
    /// Starts building a guard on the Redis at `url`
    /// (`redis://[:password@]host:port/[db]`, the same with `rediss://` for
    /// TLS (feature `redis-tls`), or `redis+unix:///path`; for a cluster, any
    /// one of its nodes).
    pub fn builder(url: impl Into<String>) -> RedisReplayGuardBuilder {
        RedisReplayGuardBuilder::new(url.into())
    }
}

/// Feature `redis`: settings for a [`RedisReplayGuard`]; see
/// [`RedisReplayGuard::builder`].
#[must_use]
pub struct RedisReplayGuardBuilder {
    settings: Settings,
    share: Option<usize>,
    watch_interval: Duration,
}

impl RedisReplayGuardBuilder {
    /// The defaults, for the Redis at `url`.
    fn new(url: String) -> Self {
        Self {
            settings: Settings::new(url),
            share: None,
            watch_interval: RedisReplayGuard::DEFAULT_WATCH_INTERVAL,
        }
    }

    setters!();

    /// Lets one principal hold at most `share` live entries (counted in a
    /// sorted set per principal key, beside the replay keys, with the same
    /// retention); past it its tokens are refused with
    /// [`ReplayError::ShareExceeded`](crate::state::ReplayError::ShareExceeded). Size it as for
    /// [`MemoryReplayGuard`](crate::state::MemoryReplayGuard): the peak rate
    /// one legitimate principal opens rounds at, times the TTL plus the
    /// skew. Costs one more round trip per call.
    pub fn principal_share(mut self, share: usize) -> Self {
        self.share = Some(share);
        self
    }

    /// Accepts a token only once `replicas` replicas acknowledged its key
    /// (`WAIT replicas timeout` after each `SET`, in the same round trip),
    /// so that a failover to one of them cannot forget it. A token whose
    /// key reached fewer in `timeout` is refused (and stays consumed on the
    /// primary). Keep `timeout` below the command timeout.
    pub fn wait_for_replicas(mut self, replicas: u32, timeout: Duration) -> Self {
        self.settings.wait = Some((replicas, timeout));
        self
    }

    /// Sets how often the guard looks at Redis between connections
    /// (default 1 s): its instances' `run_id` and its `maxmemory-policy`
    /// (see [when Redis forgets](RedisReplayGuard#when-redis-forgets)). A
    /// policy switched to evict, or an instance that lost its memory without
    /// its connection closing, is seen within this time.
    pub fn watch_interval(mut self, interval: Duration) -> Self {
        self.watch_interval = interval;
        self
    }

    /// Skips the eviction-policy check (`CONFIG GET maxmemory-policy`),
    /// for a managed service that forbids `CONFIG`: set its eviction policy
    /// to `noeviction` in the service's own settings first. If Redis does
    /// evict, consumed tokens can open again: that is what this gives up.
    pub fn allow_replay_if_redis_evicts(mut self) -> Self {
        self.settings.endpoint.check_policy = false;
        self
    }

    /// Checks the settings and builds the guard, without connecting: the
    /// first call connects, and checks Redis as
    /// [`connect`](Self::connect) does (a failed check fails that call,
    /// closed). Prefer `connect` at start-up.
    ///
    /// For a `rediss://` URL, if the process has no default rustls crypto
    /// provider yet, this installs rustls' `ring` provider as the default.
    ///
    /// # Errors
    ///
    /// [`RedisConfigError::InvalidKeyPrefix`] for an empty prefix or one with `{` or `}`;
    /// [`RedisConfigError::InvalidUrl`] when the URL does not parse;
    /// [`RedisConfigError::TlsNotEnabled`] for a `rediss://` URL or a CA
    /// without feature `redis-tls`; [`RedisConfigError::InsecureTls`] for `rediss://...#insecure`;
    /// [`RedisConfigError::CaWithoutTls`] for a CA with a URL without TLS;
    /// [`RedisConfigError::InvalidCaCertificate`] for a CA that holds no
    /// certificate or does not parse; [`RedisConfigError::ZeroTimeout`] for
    /// a zero timeout (the `WAIT` timeout and the watch interval included).
    pub fn build(self) -> Result<RedisReplayGuard, RedisConfigError> {
        if self.watch_interval.is_zero() {
            return Err(RedisConfigError::ZeroTimeout);
        }
        let Checked {
            mut connector,
            prefix,
            wait,
        } = self.settings.check()?;
        connector.watch.keep_generations(prefix.clone());
        Ok(RedisReplayGuard {
            inner: Arc::new(Inner {
                connector,
                prefix,
                share: self.share,
                wait,
                shared: Slot::default(),
                sync_shared: Slot::default(),
                background: OnceLock::new(),
                watch_interval: self.watch_interval,
                watching: Once::new(),
                first_look: std::sync::atomic::AtomicBool::new(false),
            }),
        })
    }

    /// [`build`](Self::build), then connects on the current tokio runtime
    /// and checks Redis: it answers, and its `maxmemory-policy` is
    /// `noeviction` (on every master of a cluster) unless
    /// [`allow_replay_if_redis_evicts`](Self::allow_replay_if_redis_evicts).
    /// What a server calls at start-up, so that a Redis the guard cannot
    /// rely on stops it there, with a message saying what to set.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build); [`RedisConfigError::Evicts`] for a Redis
    /// that may evict; [`RedisConfigError::PolicyUnreadable`] when `CONFIG
    /// GET` is refused; [`RedisConfigError::Unavailable`] when Redis cannot
    /// be reached in time.
    pub async fn connect(self) -> Result<RedisReplayGuard, RedisConfigError> {
        let guard = self.build()?;
        let inner = &guard.inner;
        inner.connector.connect(&inner.shared.conn).await?;
        inner.watch();
        Ok(guard)
    }
}

impl fmt::Debug for RedisReplayGuardBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL may hold a password: never printed.
        let mut builder = f.debug_struct("RedisReplayGuardBuilder");
        self.settings.fields(&mut builder);
        builder
            .field("principal_share", &self.share)
            .field("watch_interval", &self.watch_interval)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "test code: a panic is a failing test")]
mod tests {
    use super::*;

    /// A self-signed CA certificate made for these tests (its key is gone).
    #[cfg(feature = "redis-tls")]
    const TEST_CA: &str = "-----BEGIN CERTIFICATE-----
MIIBmTCCAT+gAwIBAgIUDTJXZcTbIWXMRV1z/RuG9XokuGMwCgYIKoZIzj0EAwIw
IjEgMB4GA1UEAwwXbXJ0ci1ndWFyZCB1bml0LXRlc3QgQ0EwHhcNMjYxMjAxMDY0
MDU3WhcNMzYxMTI4MDY0MDU3WjAiMSAwHgYDVQQDDBdtcnRyLWd1YXJkIHVuaXQt
dGVzdCBDQTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABAAFlRKjB18BJ0Io2Hmj
SQKMeRFQQ5ehCyxmG7NFvgsJgtyDL4k2CQrE0k5HhZJKbGzd9LrIsSZccuF5w2nw
yHqjUzBRMB0GA1UdDgQWBBQmeTAOmcPvf2hrIn3jaMcGQ+CFxDAfBgNVHSMEGDAW
gBQmeTAOmcPvf2hrIn3jaMcGQ+CFxDAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49
BAMCA0gAMEUCIBivzFwLLwrlOV1GrtIZWIl6+TiDXv5RSuvW8FZbSncfAiEAic8m
0tTTFeq1NuLID6GSk4qSA+O7Mq1BtOOmaC9g3nM=
-----END CERTIFICATE-----
";

    #[cfg(feature = "redis-tls")]
    #[test]
    fn tls_urls_build_with_the_default_roots_or_a_ca() {
        let guard = RedisReplayGuard::builder("rediss://:pw@redis.example.com:6380/")
            .build()
            .unwrap();
        assert!(format!("{guard:?}").contains("tls: true"), "{guard:?}");
        let with_ca = RedisReplayGuard::builder("rediss://127.0.0.1:6380/")
            .ca_certificate_pem(TEST_CA)
            .build();
        assert!(with_ca.is_ok());
        let plain = RedisReplayGuard::builder("redis://127.0.0.1:6379/")
            .build()
            .unwrap();
        assert!(format!("{plain:?}").contains("tls: false"), "{plain:?}");
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
    }

    #[test]
    fn configuration_errors() {
        assert_eq!(
            RedisReplayGuard::builder("http://example.com/")
                .build()
                .err(),
            Some(RedisConfigError::InvalidUrl)
        );
        assert_eq!(
            RedisReplayGuard::builder("redis://127.0.0.1:6379/")
                .command_timeout(Duration::ZERO)
                .build()
                .err(),
            Some(RedisConfigError::ZeroTimeout)
        );
        assert_eq!(
            RedisReplayGuard::builder("redis://127.0.0.1:6379/")
                .watch_interval(Duration::ZERO)
                .build()
                .err(),
            Some(RedisConfigError::ZeroTimeout)
        );
        for prefix in ["{shop}", "shop}", ""] {
            assert_eq!(
                RedisReplayGuard::builder("redis://127.0.0.1:6379/")
                    .key_prefix(prefix)
                    .build()
                    .err(),
                Some(RedisConfigError::InvalidKeyPrefix),
                "{prefix:?}"
            );
        }
        assert_eq!(
            RedisConfigError::ZeroTimeout.to_string(),
            "a redis timeout is zero; give connect_timeout, command_timeout, \
             watch_interval and the wait_for_replicas timeout more than zero"
        );
        assert_eq!(
            RedisConfigError::TlsNotEnabled.to_string(),
            "redis tls (a rediss:// url or a ca certificate) needs mrtr-guard's feature \
             redis-tls: enable it (features = [\"redis-tls\"]), or give a redis:// url"
        );
    }

    #[cfg(feature = "redis-tls")]
    #[test]
    fn tls_configuration_errors() {
        assert_eq!(
            RedisReplayGuard::builder("rediss://127.0.0.1:6379/#insecure")
                .build()
                .err(),
            Some(RedisConfigError::InsecureTls)
        );
        assert_eq!(
            RedisReplayGuard::builder("redis://127.0.0.1:6379/")
                .ca_certificate_pem(TEST_CA)
                .build()
                .err(),
            Some(RedisConfigError::CaWithoutTls)
        );
        for bad in [
            &b""[..],
            b"not pem",
            b"-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n",
        ] {
            assert_eq!(
                RedisReplayGuard::builder("rediss://127.0.0.1:6379/")
                    .ca_certificate_pem(bad)
                    .build()
                    .err(),
                Some(RedisConfigError::InvalidCaCertificate)
            );
        }
    }

    /// Without feature `redis-tls` (`.ci/run` runs it with feature `redis`
    /// alone): TLS is refused when the guard is built, never dropped.
    #[cfg(not(feature = "redis-tls"))]
    #[test]
    fn without_the_tls_feature_tls_is_refused() {
        for url in [
            "rediss://127.0.0.1:6380/",
            "REDISS://:pw@redis.example.com:6380/0",
            "rediss://127.0.0.1:6380/#insecure",
            "valkeys://127.0.0.1:6380/",
        ] {
            assert_eq!(
                RedisReplayGuard::builder(url).build().err(),
                Some(RedisConfigError::TlsNotEnabled),
                "{url}"
            );
        }
        assert_eq!(
            RedisReplayGuard::builder("redis://127.0.0.1:6379/")
                .ca_certificate_pem("-----BEGIN CERTIFICATE-----")
                .build()
                .err(),
            Some(RedisConfigError::TlsNotEnabled)
        );
        let connect = RedisReplayGuard::builder("rediss://127.0.0.1:1/").connect();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        assert_eq!(
            runtime.block_on(connect).err(),
            Some(RedisConfigError::TlsNotEnabled)
        );
        let plain = RedisReplayGuard::builder("redis://127.0.0.1:6379/")
            .build()
            .unwrap();
        assert!(format!("{plain:?}").contains("tls: false"), "{plain:?}");
    }

    #[test]
    fn debug_shows_the_server_but_no_credentials() {
        let url = "redis://:hunter2-secret@127.0.0.1:6399/3";
        let guard = RedisReplayGuard::builder(url).build().unwrap();
        let builder = RedisReplayGuard::builder(url);
        for text in [format!("{guard:?}"), format!("{builder:?}")] {
            assert!(!text.contains("hunter2"), "{text}");
        }
        assert!(format!("{guard:?}").contains("127.0.0.1:6399"));
    }
}
