//! Settings for a Redis connection store, checked before it connects.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::redis::connect::store::{Inner, RedisConnectionStore};
use crate::redis::error::RedisConfigError;
use crate::redis::settings::{Checked, Settings, setters};

impl RedisConnectionStore {
    /// Starts building a store on the Redis at `url`
    /// (`redis://[:password@]host:port/[db]`, the same with `rediss://` for
    /// TLS (feature `redis-tls`), or `redis+unix:///path`; for a cluster, any
    /// one of its nodes).
    pub fn builder(url: impl Into<String>) -> RedisConnectionStoreBuilder {
        RedisConnectionStoreBuilder {
            settings: Settings::new(url.into()),
        }
    }
}

/// Feature `redis`: settings for a [`RedisConnectionStore`]; see
/// [`RedisConnectionStore::builder`].
#[must_use]
pub struct RedisConnectionStoreBuilder {
    settings: Settings,
}

impl RedisConnectionStoreBuilder {
    setters!();

    /// Resolves a `put` or a `remove` only once `replicas` replicas
    /// acknowledged it (`WAIT replicas timeout` after the write, in the
    /// same round trip); fewer in `timeout` fail the call.
    pub fn wait_for_replicas(mut self, replicas: u32, timeout: Duration) -> Self {
        self.settings.wait = Some((replicas, timeout));
        self
    }

    /// Skips the eviction-policy check (`CONFIG GET maxmemory-policy`),
    /// for a managed service that forbids `CONFIG`. If Redis does evict,
    /// connections vanish before their TTL (the user is asked to connect
    /// again): that is what this gives up.
    pub fn allow_connection_loss_if_redis_evicts(mut self) -> Self {
        self.settings.endpoint.check_policy = false;
        self
    }

    /// Checks the settings and builds the store, without connecting: the
    /// first call connects, and checks Redis as [`connect`](Self::connect)
    /// does.
    ///
    /// # Errors
    ///
    /// As `RedisTaskStoreBuilder::build`: an invalid prefix, URL, TLS
    /// setting, CA or a zero timeout.
    pub fn build(self) -> Result<RedisConnectionStore, RedisConfigError> {
        let Checked {
            connector,
            prefix,
            wait,
        } = self.settings.check()?;
        Ok(RedisConnectionStore {
            inner: Arc::new(Inner {
                connector,
                conn: Mutex::new(None),
                prefix,
                wait,
                background: OnceLock::new(),
            }),
        })
    }

    /// [`build`](Self::build), then connects once on the current tokio
    /// runtime and checks Redis: it answers, and does not evict (unless
    /// [`allow_connection_loss_if_redis_evicts`](Self::allow_connection_loss_if_redis_evicts)).
    /// The store's calls then run on its own runtime, on a connection of
    /// their own.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build); [`RedisConfigError::Evicts`],
    /// [`RedisConfigError::PolicyUnreadable`] or
    /// [`RedisConfigError::Unavailable`] as the task store's `connect`.
    pub async fn connect(self) -> Result<RedisConnectionStore, RedisConfigError> {
        let store = self.build()?;
        let check = Mutex::new(None);
        store.inner.connector.connect(&check).await?;
        Ok(store)
    }
}

impl fmt::Debug for RedisConnectionStoreBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL may hold a password: never printed.
        let mut builder = f.debug_struct("RedisConnectionStoreBuilder");
        self.settings.fields(&mut builder);
        builder.finish_non_exhaustive()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "test code: a panic is a failing test")]
mod tests {
    use super::*;
    use crate::state::PrincipalKey;

    #[test]
    fn the_key_lives_under_the_prefix_and_names_no_principal() {
        let store = RedisConnectionStore::builder("redis://127.0.0.1:1/")
            .key_prefix("shop")
            .build()
            .unwrap();
        let owner = PrincipalKey::from_bytes([1; 16]);
        assert_eq!(
            store.connection_key(owner, "api"),
            format!("shop:connection:{}:617069", "01".repeat(16))
        );
    }

    #[test]
    fn debug_shows_no_credentials() {
        let url = "redis://:hunter2-secret@127.0.0.1:6399/3";
        let store = RedisConnectionStore::builder(url).build().unwrap();
        let builder = RedisConnectionStore::builder(url);
        for text in [format!("{store:?}"), format!("{builder:?}")] {
            assert!(!text.contains("hunter2"), "{text}");
        }
    }
}
