//! [`RedisConnectionStore`]: the connection store every instance of a
//! server shares.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::Duration;

use redis::Value;
use time::OffsetDateTime;

use crate::connect::{ConnectionStore, ConnectionStoreError};
use crate::redis::connection::{Conn, Connector};
use crate::redis::error::RedisUnavailable;
use crate::redis::layout::{Key, time_to_live_ms};
use crate::state::PrincipalKey;

/// Feature `redis`: a [`ConnectionStore`] on Redis (one node, TLS, or
/// Redis Cluster), for a server that runs as several instances: a secret
/// typed, or a token obtained, through one instance's connect route is
/// read by the tool on any. Build it at start-up with
/// [`connect`](crate::redis::RedisConnectionStoreBuilder::connect).
///
/// # Keys
///
/// One string per connection under the prefix
/// ([`connection_key`](Self::connection_key)): the connection sealed with
/// the connector's key and bound to its principal and name, under the
/// HMAC of the principal (Redis never sees the principal, nor a value).
/// Its type, TTL and writer are in `docs/REDIS.md`.
///
/// # What each call does
///
/// [`put`](ConnectionStore::put): `SET key sealed PX <ms>` (the connection's
/// TTL, relative: Redis' clock plays no part), then `WAIT` with
/// [`wait_for_replicas`](crate::redis::RedisConnectionStoreBuilder::wait_for_replicas);
/// [`find`](ConnectionStore::find): `GET key`;
/// [`remove`](ConnectionStore::remove): `DEL key`.
///
/// The contract is synchronous, as the replay guard's is: each call runs
/// on the store's own one-thread runtime and waits for it, up to the
/// connect and command timeouts. A tool's round that reads a connection
/// holds its thread for that round trip.
///
/// Every Redis failure is [`ConnectionStoreError::Unavailable`], told
/// without the URL or its credentials: the connect route then stores
/// nothing and says so, and the tool's round fails with an internal error.
#[derive(Clone)]
pub struct RedisConnectionStore {
    pub(super) inner: Arc<Inner>,
}

/// What the clones of one store share.
pub(super) struct Inner {
    pub(super) connector: Connector,
    /// The connection, made on `background`, once made.
    pub(super) conn: Mutex<Option<Conn>>,
    pub(super) prefix: String,
    pub(super) wait: Option<(u32, Duration)>,
    /// The runtime the calls run on, made on first use.
    pub(super) background: OnceLock<Option<tokio::runtime::Runtime>>,
}

impl RedisConnectionStore {
    /// The key of `owner`'s connection `name`, as `docs/REDIS.md` lays it
    /// out.
    #[must_use]
    pub fn connection_key(&self, owner: PrincipalKey, name: &str) -> String {
        Key::Connection(owner, name).under(&self.inner.prefix)
    }

    /// The key prefix.
    #[must_use]
    pub fn key_prefix(&self) -> &str {
        &self.inner.prefix
    }

    /// Runs `command` and, when `write` and `wait_for_replicas` is set,
    /// `WAIT` after it in the same round trip.
    fn call(&self, command: redis::Cmd, write: bool) -> Result<Value, ConnectionStoreError> {
        let inner = Arc::clone(&self.inner);
        self.run_sync(async move {
            let wait = inner.wait.filter(|_| write);
            let replies = inner
                .connector
                .run(&inner.conn, |mut conn| {
                    let mut pipeline = redis::pipe();
                    pipeline.add_command(command.clone());
                    if let Some((replicas, timeout)) = wait {
                        pipeline
                            .cmd("WAIT")
                            .arg(replicas)
                            .arg(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
                    }
                    async move {
                        let replies = conn.send_all(&pipeline).await?;
                        replies
                            .into_iter()
                            .map(Value::extract_error)
                            .collect::<Result<Vec<_>, _>>()
                    }
                })
                .await
                .map_err(failed)?;
            let mut replies = replies.into_iter();
            let reply = replies.next().unwrap_or(Value::Nil);
            if let Some((replicas, _)) = wait {
                let acked = match replies.next() {
                    Some(Value::Int(acked)) => acked,
                    _ => 0,
                };
                if acked < i64::from(replicas) {
                    return Err(ConnectionStoreError::Unavailable(format!(
                        "{acked} of {replicas} replicas acknowledged the write"
                    )));
                }
            }
            Ok(reply)
        })
    }

    /// The store's own runtime (one thread), started on first use.
    fn runtime(&self) -> Result<&tokio::runtime::Runtime, ConnectionStoreError> {
        self.inner
            .background
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("mrtr-guard-redis-connect")
                    .enable_all()
                    .build()
                    .ok()
            })
            .as_ref()
            .ok_or_else(|| {
                ConnectionStoreError::Unavailable(
                    "could not start the connection store's runtime".to_owned(),
                )
            })
    }

    /// Runs `work` on the store's runtime and waits for it on this thread,
    /// up to two connects and three commands (and a margin).
    fn run_sync<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T, ConnectionStoreError>> + Send + 'static,
    ) -> Result<T, ConnectionStoreError> {
        let runtime = self.runtime()?;
        let (sender, receiver) = mpsc::sync_channel(1);
        runtime.spawn(async move {
            let _ = sender.send(work.await);
        });
        let connector = &self.inner.connector;
        let limit = connector
            .connect_timeout
            .saturating_mul(2)
            .saturating_add(connector.command_timeout.saturating_mul(3))
            .saturating_add(Duration::from_millis(100));
        receiver.recv_timeout(limit).unwrap_or_else(|_| {
            Err(ConnectionStoreError::Unavailable(
                "redis did not answer in time".to_owned(),
            ))
        })
    }
}

impl ConnectionStore for RedisConnectionStore {
    fn put(
        &self,
        owner: PrincipalKey,
        name: &str,
        sealed: Vec<u8>,
        expires_at: OffsetDateTime,
    ) -> Result<(), ConnectionStoreError> {
        let ttl = time_to_live_ms(expires_at, OffsetDateTime::now_utc());
        let mut set = redis::cmd("SET");
        set.arg(self.connection_key(owner, name))
            .arg(sealed)
            .arg("PX")
            .arg(ttl.max(1));
        match self.call(set, true)? {
            Value::Okay => Ok(()),
            _ => Err(unexpected("SET")),
        }
    }

    fn find(
        &self,
        owner: PrincipalKey,
        name: &str,
        _now: OffsetDateTime,
    ) -> Result<Option<Vec<u8>>, ConnectionStoreError> {
        let mut get = redis::cmd("GET");
        get.arg(self.connection_key(owner, name));
        match self.call(get, false)? {
            Value::Nil => Ok(None),
            Value::BulkString(sealed) => Ok(Some(sealed)),
            _ => Err(unexpected("GET")),
        }
    }

    fn remove(&self, owner: PrincipalKey, name: &str) -> Result<(), ConnectionStoreError> {
        let mut del = redis::cmd("DEL");
        del.arg(self.connection_key(owner, name));
        match self.call(del, true)? {
            Value::Int(_) => Ok(()),
            _ => Err(unexpected("DEL")),
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which panics inside async code: let
        // its thread end in the background instead.
        if let Some(Some(runtime)) = self.background.take() {
            runtime.shutdown_background();
        }
    }
}

impl fmt::Debug for RedisConnectionStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL may hold a password: never printed.
        let connector = &self.inner.connector;
        f.debug_struct("RedisConnectionStore")
            .field("server", &connector.server)
            .field("tls", &connector.tls)
            .field("prefix", &self.inner.prefix)
            .field("wait_for_replicas", &self.inner.wait)
            .finish_non_exhaustive()
    }
}

fn failed(why: RedisUnavailable) -> ConnectionStoreError {
    ConnectionStoreError::Unavailable(why.to_string())
}

fn unexpected(command: &str) -> ConnectionStoreError {
    ConnectionStoreError::Unavailable(format!(
        "redis answered {command} with a reply of the wrong shape"
    ))
}
