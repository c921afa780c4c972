//! Feature `redis`: a [`ReplayGuard`] shared by every instance of a server.
//!
//! Each consumed (flow id, round) becomes one Redis key, written with
//! `SET key 1 NX PX <ms until the token's expiry plus the skew>`: the first
//! instance to set it wins, every later attempt (on any instance) is a
//! replay, and Redis forgets the key when no instance whose clock is within
//! the skew of this one's could open the token anyway. `PX` is relative, so
//! Redis' own clock plays no part.
//!
//! The guard is async on tokio: one multiplexed connection (or Redis
//! Cluster's async client) carries every call, and a call holds no thread
//! while Redis answers. The `SET`s of concurrent calls go to Redis together,
//! one batch at a time (`commit`). Its sync face, for sync callers, runs the
//! same future on a small runtime of the guard's own.

use std::fmt;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::cluster::{ClusterClient, ClusterClientBuilder};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{MultipleNodeRoutingInfo, RoutingInfo};
use redis::{
    AsyncConnectionConfig, Client, Cmd, ConnectionAddr, ConnectionInfo, IntoConnectionInfo,
    RedisError, TlsCertificates, Value,
};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use time::OffsetDateTime;

mod commit;

use crate::state::claims::FlowId;
use crate::state::replay::{
    AsyncReplayGuard, ConsumeFuture, PrincipalKey, ReplayError, ReplayGuard,
};

/// Feature `redis`: a replay guard on Redis, for servers that run as
/// several instances.
///
/// Give every instance's codec a guard on the same Redis (or Redis Cluster)
/// and a token opens once across all of them. Build it at start-up with
/// [`connect`](RedisGuardBuilder::connect), which checks what the guard
/// relies on (below) and refuses to start otherwise; or lazily with
/// [`build`](RedisGuardBuilder::build), the same checks then made by the
/// first call.
///
/// # Redis must not evict
///
/// The guard relies on its keys living until their TTL. A Redis that evicts
/// under memory pressure (any `maxmemory-policy` but `noeviction`: the
/// `allkeys-*` policies, and every `volatile-*` one, since every key here
/// has a TTL) drops the keys nobody reads first, these, and a consumed
/// round opens again, silently. So each new connection, and every
/// [`health_check`](Self::health_check), reads `CONFIG GET
/// maxmemory-policy` (on every master of a cluster), and anything but
/// `noeviction` is an error naming the policy and what to set. A managed
/// service that forbids `CONFIG` makes that an error too: set the
/// service's eviction policy to `noeviction` in its console, then build
/// with [`allow_replay_if_redis_evicts`](RedisGuardBuilder::allow_replay_if_redis_evicts),
/// whose name says what a wrong setting there costs. A full `noeviction`
/// Redis answers `OOM`: the guard then refuses tokens (fails closed), it
/// never accepts one unrecorded.
///
/// # Failing closed
///
/// When Redis cannot be reached in time, or answers in error, `consume`
/// returns [`ReplayError::Unavailable`] and the codec refuses the token
/// ([`StateError::ReplayGuard`](crate::state::StateError::ReplayGuard)). The
/// message names the kind of failure and never the URL or its credentials.
/// Each timeout bounds a whole phase, not each read: opening a connection
/// (TCP, TLS handshake, `AUTH`, `SELECT`, the policy check) ends within the
/// connect timeout, and each command within the command timeout. The keys
/// of concurrent calls are sent together, one batch at a time, as one
/// pipeline (on a cluster, one per key, all at once): a call waits at most
/// for the batch before its own, then its own. A connection that failed is
/// dropped; the next batch reconnects, and a batch that finds its
/// connection closed (Redis restarted) is sent once more on a new one.
///
/// <div class="warning">A call that times out after Redis applied the
/// <code>SET</code>, or whose batch is sent again after its connection closed
/// half-way, leaves the token consumed: the client's retry of it is then
/// refused as a replay. That is the safe side; keep the command timeout well
/// above Redis' normal latency.</div>
///
/// # Replicas, clusters, shares
///
/// An asynchronous replica promoted on failover lacks the writes it had not
/// received: those tokens open once more. With
/// [`wait_for_replicas`](RedisGuardBuilder::wait_for_replicas) each `SET` is
/// followed by `WAIT`, and a token is accepted only once that many replicas
/// hold its key. A URL naming one node of a Redis Cluster is detected
/// (`INFO cluster`) and served by the `redis` crate's async cluster client;
/// every command names one key, so it never spans slots.
/// [`principal_share`](RedisGuardBuilder::principal_share) bounds each
/// principal's live entries, as [`MemoryReplayGuard`](crate::state::MemoryReplayGuard)
/// does (off by default here: Redis has no capacity to take a share of).
///
/// `redis://` (TCP), `rediss://` (TCP with TLS) and `redis+unix://` URLs
/// are supported (a cluster: TCP only). TLS goes through rustls, and the
/// server's certificate is always verified, its name (or IP address)
/// included: against the Mozilla root certificates compiled in
/// (`webpki-roots`), which managed services' public certificates chain to,
/// or, when [`ca_certificate_pem`](RedisGuardBuilder::ca_certificate_pem)
/// names one, against that CA alone. `rediss://...#insecure` (no
/// verification) is refused. Client certificates (mutual TLS) are not
/// supported.
///
/// ```no_run
/// use std::sync::Arc;
/// use mrtr_guard::{KeyRing, MasterKey, RedisReplayGuard, StateCodec};
/// use std::time::Duration;
///
/// # async fn start() -> Result<(), Box<dyn std::error::Error>> {
/// let guard = RedisReplayGuard::builder("redis://127.0.0.1:6379/")
///     .key_prefix("shop:replay:")
///     .command_timeout(Duration::from_millis(200))
///     .connect()
///     .await?; // refuses a Redis that may evict
/// // A managed Redis over TLS, with a password; verified against the
/// // Mozilla roots, or a private CA:
/// let tls = RedisReplayGuard::builder("rediss://:password@redis.example.com:6380/")
///     .ca_certificate_pem(std::fs::read("/etc/redis/ca.pem")?)
///     .connect()
///     .await?;
/// # let _ = tls;
/// let codec = StateCodec::builder("https://mcp.example.com", MasterKey::generate()?)
///     .replay_guard(Arc::new(guard))
///     .build()?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisReplayGuard {
    inner: Arc<Inner>,
}

struct Inner {
    client: Client,
    /// The connection info, for a cluster client when the node is one.
    info: ConnectionInfo,
    ca_pem: Option<Vec<u8>>,
    /// `host:port` or the socket path: never the credentials.
    server: String,
    tls: bool,
    prefix: String,
    connect_timeout: Duration,
    command_timeout: Duration,
    share: Option<usize>,
    wait: Option<(u32, Duration)>,
    check_policy: bool,
    /// The connection async callers share, made on their runtime.
    shared: Slot,
    /// The connection of the sync face, made on `background`.
    sync_shared: Slot,
    /// The runtime the sync face runs on, made on its first call.
    background: OnceLock<Option<tokio::runtime::Runtime>>,
}

/// Which of the guard's two connections a call uses.
#[derive(Clone, Copy)]
enum Face {
    /// Async callers, on their runtime.
    Async,
    /// Sync callers, on the guard's own runtime.
    Sync,
}

/// A connection (once made) and the calls queued for its next batch.
#[derive(Default)]
struct Slot {
    conn: Mutex<Option<Conn>>,
    queue: commit::Queue,
}

/// One face's connection, as the group commit sends through it.
struct Committing(Arc<Inner>, Face);

impl commit::Committer for Committing {
    fn queue(&self) -> &commit::Queue {
        &self.0.slot(self.1).queue
    }

    fn set_all(&self, batch: &[commit::Entry]) -> impl Future<Output = commit::Outcomes> + Send {
        self.0.set_all(self.1, batch)
    }
}

/// One node's multiplexed connection, or a cluster's.
#[derive(Clone)]
enum Conn {
    Single(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl Conn {
    async fn send(&mut self, command: &Cmd) -> Result<Value, RedisError> {
        match self {
            Self::Single(conn) => conn.req_packed_command(command).await,
            Self::Cluster(conn) => conn.req_packed_command(command).await,
        }
        .and_then(Value::extract_error)
    }

    /// The replies to each entry's `SET` and, with `wait`, to the `WAIT`
    /// after it: on one node, one pipeline for the whole batch (one `WAIT`
    /// covers every `SET` before it on the connection); on a cluster, whose
    /// keys are on many nodes, one pipeline per key, all at once.
    async fn set_all(
        &mut self,
        batch: &[commit::Entry],
        wait: Option<(u32, Duration)>,
    ) -> Result<Vec<Vec<Value>>, RedisError> {
        match self {
            Self::Single(conn) => {
                let pipeline = set_pipeline(batch, wait);
                let mut replies = conn
                    .req_packed_commands(&pipeline, 0, pipeline.len())
                    .await?;
                let acked = match wait {
                    Some(_) => replies.pop(),
                    None => None,
                };
                Ok(replies
                    .into_iter()
                    .map(|set| [Some(set), acked.clone()].into_iter().flatten().collect())
                    .collect())
            }
            Self::Cluster(conn) => {
                let sends = batch.iter().map(|entry| {
                    let mut conn = conn.clone();
                    let pipeline = set_pipeline([entry], wait);
                    async move { conn.req_packed_commands(&pipeline, 0, pipeline.len()).await }
                });
                futures_util::future::join_all(sends)
                    .await
                    .into_iter()
                    .collect()
            }
        }
    }

    /// `CONFIG GET maxmemory-policy`, on every master of a cluster: the
    /// policies found.
    async fn eviction_policies(&mut self) -> Result<Vec<String>, RedisError> {
        let mut command = redis::cmd("CONFIG");
        command.arg("GET").arg("maxmemory-policy");
        let reply = match self {
            Self::Single(conn) => conn.req_packed_command(&command).await?,
            Self::Cluster(conn) => {
                conn.route_command(
                    command,
                    RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None)),
                )
                .await?
            }
        }
        .extract_error()?;
        let replies = match (&*self, reply) {
            (Self::Cluster(_), Value::Map(nodes)) => nodes.into_iter().map(|(_, v)| v).collect(),
            (_, reply) => vec![reply],
        };
        Ok(replies.iter().map(policy_of).collect())
    }
}

/// Why a new connection is not used.
enum ConnectError {
    Redis(ReplayError),
    /// Redis may evict: its policy (a plain word, or `unknown`).
    Evicts(String),
    /// `CONFIG GET` was refused or answered nothing readable.
    PolicyUnreadable,
}

impl ConnectError {
    fn into_replay(self) -> ReplayError {
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

    fn into_config(self) -> RedisConfigError {
        match self {
            Self::Redis(error) => RedisConfigError::Unavailable(error),
            Self::Evicts(policy) => RedisConfigError::Evicts(policy),
            Self::PolicyUnreadable => RedisConfigError::PolicyUnreadable,
        }
    }
}

/// What the first reply of `CONFIG GET maxmemory-policy` says: the policy
/// when it is a plain word, `unknown` otherwise; empty when there is none.
fn policy_of(reply: &Value) -> String {
    let value = match reply {
        Value::Array(items) => items.get(1),
        Value::Map(pairs) => pairs.first().map(|(_, value)| value),
        _ => None,
    };
    let text = match value {
        Some(Value::BulkString(bytes)) => String::from_utf8_lossy(bytes).into_owned(),
        Some(Value::SimpleString(text)) => text.clone(),
        _ => return String::new(),
    };
    if !text.is_empty()
        && text.len() <= 32
        && text.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
    {
        text
    } else {
        "unknown".to_owned()
    }
}

impl RedisReplayGuard {
    /// The key prefix used unless [`RedisGuardBuilder::key_prefix`] sets another.
    pub const DEFAULT_KEY_PREFIX: &'static str = "mrtr-guard:replay:";
    /// The default time allowed to open a connection (TCP and handshake): 500 ms.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
    /// The default time allowed for one command's request and answer: 500 ms.
    pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_millis(500);

    /// Starts building a guard on the Redis at `url`
    /// (`redis://[:password@]host:port/[db]`, the same with `rediss://` for
    /// TLS, or `redis+unix:///path`; for a cluster, any one of its nodes).
    pub fn builder(url: impl Into<String>) -> RedisGuardBuilder {
        RedisGuardBuilder {
            url: url.into(),
            ca_pem: None,
            prefix: Self::DEFAULT_KEY_PREFIX.to_owned(),
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            command_timeout: Self::DEFAULT_COMMAND_TIMEOUT,
            share: None,
            wait: None,
            check_policy: true,
        }
    }

    /// The Redis key that records (flow id, round): the prefix, the flow id
    /// in lowercase hex, `:`, the round in decimal, for example
    /// `mrtr-guard:replay:000102030405060708090a0b0c0d0e0f:2`.
    pub fn key(&self, flow_id: FlowId, round: u32) -> String {
        format!("{}{flow_id}:{round}", self.inner.prefix)
    }

    /// The Redis key that counts `principal`'s live entries when
    /// [`principal_share`](RedisGuardBuilder::principal_share) is set: the
    /// prefix, `share:`, the principal key in hex (a sorted set of
    /// `flow:round` scored by retention time, in Unix milliseconds).
    pub fn share_key(&self, principal: PrincipalKey) -> String {
        format!("{}share:{principal}", self.inner.prefix)
    }

    /// The key prefix.
    pub fn key_prefix(&self) -> &str {
        &self.inner.prefix
    }

    /// Checks that Redis answers and does not evict (`PING`, then
    /// `CONFIG GET maxmemory-policy` unless the builder opted out), with the
    /// guard's timeouts: for a readiness or health probe.
    ///
    /// # Errors
    ///
    /// [`ReplayError::Unavailable`] when it does not, naming why.
    pub async fn health_check(&self) -> Result<(), ReplayError> {
        self.inner.health_check(&self.inner.shared.conn).await
    }

    /// [`health_check`](Self::health_check) for sync callers: blocks the
    /// calling thread (up to the timeouts).
    ///
    /// # Errors
    ///
    /// As [`health_check`](Self::health_check).
    pub fn ping(&self) -> Result<(), ReplayError> {
        let inner = Arc::clone(&self.inner);
        self.inner
            .run_sync(async move { inner.health_check(&inner.sync_shared.conn).await })
    }
}

impl RedisReplayGuard {
    /// The sync face's consume: on the guard's own runtime, with its own
    /// connection.
    fn consume_sync(
        &self,
        principal: Option<PrincipalKey>,
        flow_id: FlowId,
        round: u32,
        retain_until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError> {
        let inner = Arc::clone(&self.inner);
        self.inner.run_sync(async move {
            inner
                .consume(Face::Sync, principal, flow_id, round, retain_until, now)
                .await
        })
    }
}

impl Inner {
    async fn health_check(&self, slot: &Mutex<Option<Conn>>) -> Result<(), ReplayError> {
        let ping = redis::cmd("PING");
        self.send(slot, &ping).await?;
        if self.check_policy {
            let mut conn = self.connection(slot).await?;
            let policies = self
                .bounded(conn.eviction_policies())
                .await
                .inspect_err(|_| forget(slot))?;
            evicting(&policies).map_err(ConnectError::into_replay)?;
        }
        Ok(())
    }

    /// The slot's connection, or a new one (checked) put into it.
    async fn connection(&self, slot: &Mutex<Option<Conn>>) -> Result<Conn, ReplayError> {
        if let Some(conn) = lock(slot).clone() {
            return Ok(conn);
        }
        let conn = self.open().await.map_err(ConnectError::into_replay)?;
        *lock(slot) = Some(conn.clone());
        Ok(conn)
    }

    /// Opens a connection, finds out whether the node is in a cluster, and
    /// checks the eviction policy: all within the connect timeout.
    async fn open(&self) -> Result<Conn, ConnectError> {
        let opening = async {
            // The response timeout is ours: `run` bounds each command and
            // this whole opening, one timer each, not two.
            let config = AsyncConnectionConfig::new()
                .set_connection_timeout(Some(self.connect_timeout))
                .set_response_timeout(None);
            let mut single = self
                .client
                .get_multiplexed_async_connection_with_config(&config)
                .await
                .map_err(|error| ConnectError::Redis(unavailable(&error)))?;
            let mut info = redis::cmd("INFO");
            info.arg("cluster");
            // A proxy that hides INFO hides the cluster too: one node.
            let clustered = match single.req_packed_command(&info).await {
                Ok(Value::BulkString(text)) => text
                    .split(|b| *b == b'\n')
                    .any(|line| line.trim_ascii() == b"cluster_enabled:1"),
                Ok(Value::VerbatimString { text, .. }) => {
                    text.lines().any(|line| line.trim() == "cluster_enabled:1")
                }
                Ok(_) => false,
                Err(error) if error.code().is_some() => false,
                Err(error) => return Err(ConnectError::Redis(unavailable(&error))),
            };
            let mut conn = if clustered {
                Conn::Cluster(self.cluster_connection().await?)
            } else {
                Conn::Single(single)
            };
            if self.check_policy {
                match conn.eviction_policies().await {
                    Ok(policies) => evicting(&policies)?,
                    Err(error) if error.code().is_some() => {
                        return Err(ConnectError::PolicyUnreadable);
                    }
                    Err(error) => return Err(ConnectError::Redis(unavailable(&error))),
                }
            }
            Ok(conn)
        };
        tokio::time::timeout(self.connect_timeout, opening)
            .await
            .unwrap_or_else(|_| Err(ConnectError::Redis(timed_out())))
    }

    async fn cluster_connection(&self) -> Result<ClusterConnection, ConnectError> {
        let mut builder = ClusterClientBuilder::new(vec![self.info.clone()])
            .connection_timeout(self.connect_timeout)
            .response_timeout(self.command_timeout)
            .retries(1);
        if let Some(pem) = &self.ca_pem {
            builder = builder.certs(TlsCertificates {
                client_tls: None,
                root_cert: Some(pem.clone()),
            });
        }
        let client: ClusterClient = builder
            .build()
            .map_err(|error| ConnectError::Redis(unavailable(&error)))?;
        client
            .get_async_connection()
            .await
            .map_err(|error| ConnectError::Redis(unavailable(&error)))
    }

    /// `work` within the command timeout.
    async fn bounded<T>(
        &self,
        work: impl Future<Output = Result<T, RedisError>>,
    ) -> Result<T, ReplayError> {
        match tokio::time::timeout(self.command_timeout, work).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(unavailable(&error)),
            Err(_) => Err(timed_out()),
        }
    }

    /// Runs `command` on the slot's connection: once more on a new one when
    /// the connection was found closed, and the connection forgotten after
    /// any failure, so that the next call reconnects. That cannot accept a
    /// token twice: `SET NX` answers `OK` once per key, whichever connection
    /// carries it.
    async fn run<T, F, Fut>(&self, slot: &Mutex<Option<Conn>>, command: F) -> Result<T, ReplayError>
    where
        F: Fn(Conn) -> Fut,
        Fut: Future<Output = Result<T, RedisError>>,
    {
        let reused = lock(slot).is_some();
        let conn = self.connection(slot).await?;
        let first = tokio::time::timeout(self.command_timeout, command(conn)).await;
        let result = match first {
            Ok(Err(error)) if reused && is_stale(&error) => {
                forget(slot);
                let conn = self.connection(slot).await?;
                tokio::time::timeout(self.command_timeout, command(conn)).await
            }
            other => other,
        };
        match result {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => {
                // Out of memory, the connection is sound and stays; after
                // anything else (READONLY after a failover...) a new one
                // may reach another node.
                if error.code() != Some("OOM") {
                    forget(slot);
                }
                Err(unavailable(&error))
            }
            Err(_) => {
                forget(slot);
                Err(timed_out())
            }
        }
    }

    /// [`run`](Self::run) for one command.
    async fn send(&self, slot: &Mutex<Option<Conn>>, command: &Cmd) -> Result<Value, ReplayError> {
        self.run(slot, |mut conn| async move { conn.send(command).await })
            .await
    }

    async fn consume(
        self: &Arc<Self>,
        face: Face,
        principal: Option<PrincipalKey>,
        flow_id: FlowId,
        round: u32,
        retain_until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError> {
        let key = format!("{}{flow_id}:{round}", self.prefix);
        let ttl_ms = time_to_live_ms(retain_until, now);
        if let (Some(share), Some(principal)) = (self.share, principal) {
            let mut script = redis::cmd("EVAL");
            script
                .arg(SHARE_SCRIPT)
                .arg(1)
                .arg(format!("{}share:{principal}", self.prefix))
                .arg(unix_ms(now))
                .arg(unix_ms(retain_until))
                .arg(share)
                .arg(format!("{flow_id}:{round}"))
                .arg(ttl_ms);
            let admitted = self.send(&self.slot(face).conn, &script).await?;
            match admitted {
                Value::Int(1) => {}
                Value::Int(0) => return Err(ReplayError::ShareExceeded { share }),
                _ => return Err(unexpected("EVAL")),
            }
        }
        commit::set(Committing(Arc::clone(self), face), key, ttl_ms).await
    }

    fn slot(&self, face: Face) -> &Slot {
        match face {
            Face::Async => &self.shared,
            Face::Sync => &self.sync_shared,
        }
    }

    /// Sends a batch of `SET`s on `face`'s connection (see
    /// [`run`](Self::run)).
    async fn set_all(&self, face: Face, batch: &[commit::Entry]) -> commit::Outcomes {
        let wait = self.wait;
        let sent = self
            .run(&self.slot(face).conn, |mut conn| async move {
                conn.set_all(batch, wait).await
            })
            .await;
        let replies = sent?;
        if replies.len() != batch.len() {
            return Ok(vec![Err(unexpected("the batch of SET NX")); batch.len()]);
        }
        Ok(replies
            .into_iter()
            .map(|replies| outcome(replies, wait))
            .collect())
    }

    /// Runs `work` on the guard's own runtime and waits for it on this
    /// thread, up to the connect and command timeouts (and a margin).
    fn run_sync<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T, ReplayError>> + Send + 'static,
    ) -> Result<T, ReplayError> {
        let runtime = self
            .background
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .thread_name("mrtr-guard-redis")
                    .enable_all()
                    .build()
                    .ok()
            })
            .as_ref()
            .ok_or_else(|| {
                ReplayError::Unavailable("could not start the redis guard's runtime".to_owned())
            })?;
        let (sender, receiver) = mpsc::sync_channel(1);
        runtime.spawn(async move {
            let _ = sender.send(work.await);
        });
        // Connecting, then a stale connection's retry: at most two connects
        // and two commands, and a margin for scheduling.
        let limit = self
            .connect_timeout
            .saturating_mul(2)
            .saturating_add(self.command_timeout.saturating_mul(3))
            .saturating_add(Duration::from_millis(100));
        receiver
            .recv_timeout(limit)
            .unwrap_or_else(|_| Err(timed_out()))
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

/// The share check, atomic on one key (the principal's sorted set):
/// forgets entries whose retention has passed, admits a member already
/// counted (a retry, or a replay that `SET NX` then refuses), refuses past
/// the share, else counts the member and keeps the set as long as its
/// longest entry. `ARGV`: now and retention (Unix ms), share, member, TTL ms.
const SHARE_SCRIPT: &str = "\
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
return 1
";

/// `SET key 1 NX PX ttl` for each entry, then, with `wait`, one `WAIT
/// replicas timeout`.
fn set_pipeline<'a>(
    batch: impl IntoIterator<Item = &'a commit::Entry>,
    wait: Option<(u32, Duration)>,
) -> redis::Pipeline {
    let mut pipeline = redis::pipe();
    for entry in batch {
        pipeline
            .cmd("SET")
            .arg(&entry.key)
            .arg(1)
            .arg("NX")
            .arg("PX")
            .arg(entry.ttl_ms);
    }
    if let Some((replicas, timeout)) = wait {
        pipeline
            .cmd("WAIT")
            .arg(replicas)
            .arg(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
    }
    pipeline
}

/// What one `SET` (and the `WAIT` after it) answered means.
fn outcome(replies: Vec<Value>, wait: Option<(u32, Duration)>) -> Result<(), ReplayError> {
    let mut replies = replies.into_iter().map(Value::extract_error);
    match (replies.next(), replies.next(), wait) {
        (Some(Err(error)), _, _) | (Some(Ok(Value::Okay)), Some(Err(error)), Some(_)) => {
            Err(unavailable(&error))
        }
        (Some(Ok(Value::Nil)), _, _) => Err(ReplayError::Replayed),
        (Some(Ok(Value::Okay)), None, None) => Ok(()),
        (Some(Ok(Value::Okay)), Some(Ok(Value::Int(acked))), Some((replicas, _))) => {
            if acked >= i64::from(replicas) {
                Ok(())
            } else {
                Err(ReplayError::Unavailable(format!(
                    "fewer than {replicas} redis replicas acknowledged the entry in time"
                )))
            }
        }
        _ => Err(unexpected("SET NX")),
    }
}

/// Unix time in milliseconds (0 before 1970, which no token carries).
fn unix_ms(at: OffsetDateTime) -> u64 {
    u64::try_from(at.unix_timestamp_nanos() / 1_000_000).unwrap_or(0)
}

/// An error unless every policy is `noeviction`.
fn evicting(policies: &[String]) -> Result<(), ConnectError> {
    if policies.is_empty() {
        return Err(ConnectError::PolicyUnreadable);
    }
    match policies
        .iter()
        .find(|policy| policy.as_str() != "noeviction")
    {
        None => Ok(()),
        Some(policy) if policy.is_empty() => Err(ConnectError::PolicyUnreadable),
        Some(policy) => Err(ConnectError::Evicts(policy.clone())),
    }
}

fn lock(slot: &Mutex<Option<Conn>>) -> MutexGuard<'_, Option<Conn>> {
    // The slot is only read and replaced whole; a panic elsewhere cannot
    // leave it inconsistent.
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

fn forget(slot: &Mutex<Option<Conn>>) {
    *lock(slot) = None;
}

fn unexpected(command: &str) -> ReplayError {
    ReplayError::Unavailable(format!("redis answered {command} with an unexpected reply"))
}

impl ReplayGuard for RedisReplayGuard {
    /// Records the pair with no principal: no share applies. The codec
    /// calls [`consume_for`](ReplayGuard::consume_for).
    fn consume(
        &self,
        flow_id: FlowId,
        round: u32,
        retain_until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError> {
        self.consume_sync(None, flow_id, round, retain_until, now)
    }

    fn consume_for(
        &self,
        principal: PrincipalKey,
        flow_id: FlowId,
        round: u32,
        retain_until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError> {
        self.consume_sync(Some(principal), flow_id, round, retain_until, now)
    }

    fn as_async(&self) -> Option<&dyn AsyncReplayGuard> {
        Some(self)
    }
}

/// On the caller's tokio runtime (the connection's driver runs there).
impl AsyncReplayGuard for RedisReplayGuard {
    fn consume_for_async(
        &self,
        principal: PrincipalKey,
        flow_id: FlowId,
        round: u32,
        retain_until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> ConsumeFuture<'_> {
        Box::pin(async move {
            let inner = &self.inner;
            inner
                .consume(
                    Face::Async,
                    Some(principal),
                    flow_id,
                    round,
                    retain_until,
                    now,
                )
                .await
        })
    }
}

impl fmt::Debug for RedisReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        f.debug_struct("RedisReplayGuard")
            .field("server", &inner.server)
            .field("tls", &inner.tls)
            .field("prefix", &inner.prefix)
            .field("connect_timeout", &inner.connect_timeout)
            .field("command_timeout", &inner.command_timeout)
            .field("principal_share", &inner.share)
            .field("wait_for_replicas", &inner.wait)
            .field("checks_eviction_policy", &inner.check_policy)
            .finish_non_exhaustive()
    }
}

/// Feature `redis`: settings for a [`RedisReplayGuard`]; see
/// [`RedisReplayGuard::builder`].
#[must_use]
pub struct RedisGuardBuilder {
    url: String,
    ca_pem: Option<Vec<u8>>,
    prefix: String,
    connect_timeout: Duration,
    command_timeout: Duration,
    share: Option<usize>,
    wait: Option<(u32, Duration)>,
    check_policy: bool,
}

impl RedisGuardBuilder {
    /// Sets the prefix of every key the guard writes (default
    /// `mrtr-guard:replay:`). Give each server (audience) sharing one Redis
    /// its own prefix.
    pub fn key_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Sets the time allowed to open a connection, handshake and checks
    /// included (default 500 ms).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the time allowed to send one command and read its answer
    /// (default 500 ms).
    pub fn command_timeout(mut self, timeout: Duration) -> Self {
        self.command_timeout = timeout;
        self
    }

    /// Trusts only the CA certificates in `pem` (one or more PEM
    /// `CERTIFICATE` blocks) for a `rediss://` URL, instead of the Mozilla
    /// roots: for a private CA (a self-hosted Redis, a cloud service that
    /// issues its own server CA).
    pub fn ca_certificate_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.ca_pem = Some(pem.into());
        self
    }

    /// Lets one principal hold at most `share` live entries (counted in a
    /// sorted set per principal key, beside the replay keys, with the same
    /// retention); past it its tokens are refused with
    /// [`ReplayError::ShareExceeded`]. Size it as for
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
        self.wait = Some((replicas, timeout));
        self
    }

    /// Skips the eviction-policy check (`CONFIG GET maxmemory-policy`),
    /// for a managed service that forbids `CONFIG`: set its eviction policy
    /// to `noeviction` in the service's own settings first. If Redis does
    /// evict, consumed tokens can open again: that is what this gives up.
    pub fn allow_replay_if_redis_evicts(mut self) -> Self {
        self.check_policy = false;
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
    /// [`RedisConfigError::InvalidUrl`] when the URL does not parse;
    /// [`RedisConfigError::InsecureTls`] for `rediss://...#insecure`;
    /// [`RedisConfigError::CaWithoutTls`] for a CA with a URL without TLS;
    /// [`RedisConfigError::InvalidCaCertificate`] for a CA that holds no
    /// certificate or does not parse; [`RedisConfigError::ZeroTimeout`] for
    /// a zero timeout (the `WAIT` timeout included).
    pub fn build(self) -> Result<RedisReplayGuard, RedisConfigError> {
        let wait_zero = self.wait.is_some_and(|(_, timeout)| timeout.is_zero());
        if self.connect_timeout.is_zero() || self.command_timeout.is_zero() || wait_zero {
            return Err(RedisConfigError::ZeroTimeout);
        }
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
        if tls {
            install_crypto_provider();
        }
        let server = client.get_connection_info().addr().to_string();
        Ok(RedisReplayGuard {
            inner: Arc::new(Inner {
                client,
                info,
                ca_pem: self.ca_pem,
                server,
                tls,
                prefix: self.prefix,
                connect_timeout: self.connect_timeout,
                command_timeout: self.command_timeout,
                share: self.share,
                wait: self.wait,
                check_policy: self.check_policy,
                shared: Slot::default(),
                sync_shared: Slot::default(),
                background: OnceLock::new(),
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
        let conn = inner.open().await.map_err(ConnectError::into_config)?;
        *lock(&inner.shared.conn) = Some(conn);
        Ok(guard)
    }
}

impl fmt::Debug for RedisGuardBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL may hold a password: never printed.
        f.debug_struct("RedisGuardBuilder")
            .field("custom_ca", &self.ca_pem.is_some())
            .field("prefix", &self.prefix)
            .field("connect_timeout", &self.connect_timeout)
            .field("command_timeout", &self.command_timeout)
            .field("principal_share", &self.share)
            .field("wait_for_replicas", &self.wait)
            .field("checks_eviction_policy", &self.check_policy)
            .finish_non_exhaustive()
    }
}

/// Feature `redis`: why a [`RedisReplayGuard`] could not be built or started.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedisConfigError {
    /// The URL is not a `redis://`, `rediss://` or `redis+unix://` URL.
    InvalidUrl,
    /// The URL asks for TLS without certificate verification (`#insecure`).
    InsecureTls,
    /// A CA certificate was given for a URL without TLS.
    CaWithoutTls,
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
}

impl fmt::Display for RedisConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidUrl => f.write_str(
                "redis url is not valid (expected redis://host:port/, rediss://host:port/ or redis+unix:///path)",
            ),
            Self::InsecureTls => {
                f.write_str("redis tls without certificate verification (#insecure) is refused")
            }
            Self::CaWithoutTls => {
                f.write_str("a redis ca certificate needs a rediss:// url")
            }
            Self::InvalidCaCertificate => {
                f.write_str("the redis ca certificate is not a valid pem certificate")
            }
            Self::ZeroTimeout => f.write_str("redis timeouts must be longer than zero"),
            Self::Evicts(policy) => write!(
                f,
                "redis maxmemory-policy is {policy}: redis may evict replay keys, and a used \
                 requestState would open again; set maxmemory-policy noeviction \
                 (CONFIG SET maxmemory-policy noeviction, and in redis.conf)"
            ),
            Self::PolicyUnreadable => f.write_str(
                "redis refused CONFIG GET maxmemory-policy, so the guard cannot check that redis \
                 never evicts; set the service's eviction policy to noeviction, then build the \
                 guard with allow_replay_if_redis_evicts()",
            ),
            Self::Unavailable(error) => write!(f, "redis guard did not start: {error}"),
        }
    }
}

impl std::error::Error for RedisConfigError {}

/// Milliseconds from `now` until `retain_until`, rounded up so that the
/// entry never disappears early, and at least 1: `PX 0` is an error in Redis
/// (`consume` only sees tokens that have not expired).
fn time_to_live_ms(retain_until: OffsetDateTime, now: OffsetDateTime) -> u64 {
    let nanos = retain_until
        .unix_timestamp_nanos()
        .saturating_sub(now.unix_timestamp_nanos());
    let ms = nanos
        .saturating_add(999_999)
        .checked_div(1_000_000)
        .unwrap_or(1);
    u64::try_from(ms.max(1)).unwrap_or(u64::MAX)
}

fn timed_out() -> ReplayError {
    ReplayError::Unavailable("redis did not answer in time".to_owned())
}

/// Checks that `pem` holds at least one certificate and nothing that fails
/// to parse: an empty trust store would refuse every connection later, with
/// a less helpful error.
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
fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Err means another thread installed one first: that one is used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// The rustls error inside a Redis I/O error, if TLS failed. The `redis`
/// crate keeps the I/O error in an `Arc`, which is what `source` returns.
fn tls_error(error: &RedisError) -> Option<&rustls::Error> {
    type Shared = std::sync::Arc<dyn std::error::Error + Send + Sync>;
    let source = std::error::Error::source(error)?;
    let io = match source.downcast_ref::<Shared>() {
        Some(shared) => shared.downcast_ref::<std::io::Error>(),
        None => source.downcast_ref::<std::io::Error>(),
    }?;
    io.get_ref()?.downcast_ref::<rustls::Error>()
}

/// Describes a Redis failure without its text: client errors can quote the
/// URL, and server errors are reduced to their code (`NOAUTH`, `READONLY`...).
fn unavailable(error: &RedisError) -> ReplayError {
    let why = if let Some(tls) = tls_error(error) {
        match tls {
            rustls::Error::InvalidCertificate(_) => {
                "redis' tls certificate was not accepted".to_owned()
            }
            _ => "tls error talking to redis".to_owned(),
        }
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

/// Whether a pooled connection failed because it was already closed, as
/// opposed to Redis being slow or answering in error.
fn is_stale(error: &RedisError) -> bool {
    error.is_connection_dropped() || error.is_unrecoverable_error()
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
#[allow(
    clippy::unwrap_used,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]
mod tests {
    use time::Duration as TimeDuration;

    use super::*;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000 + seconds).unwrap()
    }

    /// A self-signed CA certificate made for these tests (its key is gone).
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
    fn ttl_is_milliseconds_until_expiry_and_never_zero() {
        assert_eq!(time_to_live_ms(at(600), at(0)), 600_000);
        assert_eq!(
            time_to_live_ms(at(0) + TimeDuration::milliseconds(1500), at(0)),
            1500
        );
        assert_eq!(
            time_to_live_ms(at(0) + TimeDuration::nanoseconds(1_000_001), at(0)),
            2,
            "rounded up"
        );
        assert_eq!(time_to_live_ms(at(0), at(0)), 1);
        assert_eq!(time_to_live_ms(at(0), at(5)), 1);
    }

    #[test]
    fn keys_are_prefix_hex_flow_id_and_round() {
        let guard = RedisReplayGuard::builder("redis://127.0.0.1:1/")
            .key_prefix("p:")
            .build()
            .unwrap();
        let flow = FlowId::from_bytes([0xab; 16]);
        assert_eq!(guard.key(flow, 7), format!("p:{}:7", "ab".repeat(16)));
        assert_eq!(guard.key_prefix(), "p:");
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
        assert_eq!(
            RedisReplayGuard::builder("redis://127.0.0.1:6379/")
                .command_timeout(Duration::ZERO)
                .build()
                .err(),
            Some(RedisConfigError::ZeroTimeout)
        );
        assert_eq!(
            RedisConfigError::ZeroTimeout.to_string(),
            "redis timeouts must be longer than zero"
        );
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

    #[test]
    fn server_error_codes_are_kept_only_when_plain() {
        assert!(is_plain_code("NOAUTH"));
        assert!(is_plain_code("WRONGTYPE"));
        assert!(!is_plain_code("pass=x"));
        assert!(!is_plain_code(""));
        assert!(!is_plain_code(&"A".repeat(33)));
    }
}
