//! Settings for a Redis task store, checked before it connects.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::redis::error::RedisConfigError;
use crate::redis::settings::{Checked, Settings, setters};
use crate::redis::task::store::{Inner, RedisTaskStore};

impl RedisTaskStore {
    /// Starts building a store on the Redis at `url`
    /// (`redis://[:password@]host:port/[db]`, the same with `rediss://` for
    /// TLS (feature `redis-tls`), or `redis+unix:///path`; for a cluster, any
    /// one of its nodes).
    pub fn builder(url: impl Into<String>) -> RedisTaskStoreBuilder {
        RedisTaskStoreBuilder {
            settings: Settings::new(url.into()),
        }
    }
}

/// Feature `redis`: settings for a [`RedisTaskStore`]; see
/// [`RedisTaskStore::builder`].
#[must_use]
pub struct RedisTaskStoreBuilder {
    settings: Settings,
}

impl RedisTaskStoreBuilder {
    setters!();

    /// Resolves a create, a replacement or a remembered answer only once
    /// `replicas` replicas acknowledged it (`WAIT replicas timeout` after
    /// the write, in the same round trip), so that a failover to one of
    /// them cannot lose it; fewer in `timeout` fail the call (the write
    /// stays on the primary). Keep `timeout` below the command timeout.
    pub fn wait_for_replicas(mut self, replicas: u32, timeout: Duration) -> Self {
        self.settings.wait = Some((replicas, timeout));
        self
    }

    /// Skips the eviction-policy check (`CONFIG GET maxmemory-policy`),
    /// for a managed service that forbids `CONFIG`: set its eviction policy
    /// to `noeviction` in the service's own settings first. If Redis does
    /// evict, tasks vanish before their TTL: that is what this gives up.
    pub fn allow_task_loss_if_redis_evicts(mut self) -> Self {
        self.settings.endpoint.check_policy = false;
        self
    }

    /// Checks the settings and builds the store, without connecting: the
    /// first call connects, and checks Redis as [`connect`](Self::connect)
    /// does (a failed check fails that call). Prefer `connect` at start-up.
    ///
    /// For a `rediss://` URL, if the process has no default rustls crypto
    /// provider yet, this installs rustls' `ring` provider as the default.
    ///
    /// # Errors
    ///
    /// [`RedisConfigError::InvalidKeyPrefix`] for an empty prefix or one with `{` or `}`;
    /// [`RedisConfigError::InvalidUrl`] when the URL does not parse;
    /// [`RedisConfigError::TlsNotEnabled`] for a `rediss://` URL or a CA
    /// without feature `redis-tls`; [`RedisConfigError::InsecureTls`] for
    /// `rediss://...#insecure`; [`RedisConfigError::CaWithoutTls`] for a CA
    /// with a URL without TLS; [`RedisConfigError::InvalidCaCertificate`]
    /// for a CA that holds no certificate or does not parse;
    /// [`RedisConfigError::ZeroTimeout`] for a zero timeout (the `WAIT`
    /// timeout included).
    pub fn build(self) -> Result<RedisTaskStore, RedisConfigError> {
        let Checked {
            connector,
            prefix,
            wait,
        } = self.settings.check()?;
        Ok(RedisTaskStore {
            inner: Arc::new(Inner {
                connector,
                conn: Mutex::new(None),
                prefix,
                wait,
            }),
        })
    }

    /// [`build`](Self::build), then connects on the current tokio runtime
    /// and checks Redis: it answers, and its `maxmemory-policy` is
    /// `noeviction` (on every master of a cluster) unless
    /// [`allow_task_loss_if_redis_evicts`](Self::allow_task_loss_if_redis_evicts).
    /// What a server calls at start-up, so that a Redis the store cannot
    /// rely on stops it there, with a message saying what to set.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build); [`RedisConfigError::Evicts`] for a Redis
    /// that may evict; [`RedisConfigError::PolicyUnreadable`] when `CONFIG
    /// GET` is refused; [`RedisConfigError::Unavailable`] when Redis cannot
    /// be reached in time.
    pub async fn connect(self) -> Result<RedisTaskStore, RedisConfigError> {
        let store = self.build()?;
        let inner = &store.inner;
        inner.connector.connect(&inner.conn).await?;
        Ok(store)
    }
}

impl fmt::Debug for RedisTaskStoreBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL may hold a password: never printed.
        let mut builder = f.debug_struct("RedisTaskStoreBuilder");
        self.settings.fields(&mut builder);
        builder.finish_non_exhaustive()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "test code: a panic is a failing test")]
mod tests {
    use super::*;
    use crate::state::PrincipalKey;
    use crate::task::TaskId;

    #[test]
    fn keys_live_under_the_prefix_and_the_caps_share_a_hash_tag() {
        let store = RedisTaskStore::builder("redis://127.0.0.1:1/")
            .key_prefix("shop")
            .build()
            .unwrap();
        let id = TaskId::parse(&"ab".repeat(16)).unwrap();
        assert_eq!(
            store.task_key(&id),
            format!("shop:task:{}", "ab".repeat(16))
        );
        assert_eq!(
            store.answer_key(&[0x0f; 32]),
            format!("shop:answer:{}", "0f".repeat(32))
        );
        let owner = PrincipalKey::from_bytes([1; 16]);
        assert_eq!(store.count_key(), "shop:tasks:{shop}:all");
        assert_eq!(
            store.owner_count_key(owner),
            format!("shop:tasks:{{shop}}:owner:{}", "01".repeat(16))
        );
        assert_eq!(store.key_prefix(), "shop");
        let default = RedisTaskStore::builder("redis://127.0.0.1:1/")
            .build()
            .unwrap();
        assert_eq!(default.key_prefix(), "mrtr-guard");
    }

    #[test]
    fn settings_are_checked_before_connecting() {
        for prefix in ["a{b", "a}b", "{}"] {
            assert_eq!(
                RedisTaskStore::builder("redis://127.0.0.1:1/")
                    .key_prefix(prefix)
                    .build()
                    .err(),
                Some(RedisConfigError::InvalidKeyPrefix),
                "{prefix}"
            );
        }
        for builder in [
            RedisTaskStore::builder("redis://127.0.0.1:1/").command_timeout(Duration::ZERO),
            RedisTaskStore::builder("redis://127.0.0.1:1/").connect_timeout(Duration::ZERO),
            RedisTaskStore::builder("redis://127.0.0.1:1/").wait_for_replicas(1, Duration::ZERO),
        ] {
            assert_eq!(builder.build().err(), Some(RedisConfigError::ZeroTimeout));
        }
        assert_eq!(
            RedisTaskStore::builder("http://127.0.0.1/").build().err(),
            Some(RedisConfigError::InvalidUrl)
        );
    }

    #[test]
    fn debug_shows_the_server_but_no_credentials() {
        let url = "redis://:hunter2-secret@127.0.0.1:6399/3";
        let store = RedisTaskStore::builder(url).build().unwrap();
        let builder = RedisTaskStore::builder(url);
        for text in [format!("{store:?}"), format!("{builder:?}")] {
            assert!(!text.contains("hunter2"), "{text}");
        }
        assert!(format!("{store:?}").contains("127.0.0.1:6399"));
    }
}
