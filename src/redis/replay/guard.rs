//! Feature `redis`: a [`ReplayGuard`] shared by every instance of a server.
//!
//! Each consumed (flow id, round) becomes one Redis key (its layout:
//! `docs/REDIS.md`), written with
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
use std::sync::{Arc, Mutex, Once, OnceLock};
use std::time::Duration;

use time::OffsetDateTime;

use crate::redis::connection::{Conn, Connector};
use crate::redis::endpoint::{COMMAND_TIMEOUT, CONNECT_TIMEOUT};
use crate::redis::error::timed_out;
use crate::redis::generation::group_of;
use crate::redis::layout::{DEFAULT_PREFIX, Key, round_member, time_to_live_ms};
use crate::redis::replay::error::failed;
use crate::redis::replay::{commit, share};
use crate::redis::watch::Doubt;
use crate::state::{
    AsyncReplayGuard, ConsumeFuture, FlowId, Generation, PrincipalKey, ReplayError, ReplayGuard,
    TokenUse,
};

/// Feature `redis`: a replay guard on Redis, for servers that run as
/// several instances.
///
/// Give every instance's codec a guard on the same Redis (or Redis Cluster)
/// and a token opens once across all of them. Build it at start-up with
/// [`connect`](crate::redis::RedisReplayGuardBuilder::connect), which checks what the guard
/// relies on (below) and refuses to start otherwise; or lazily with
/// [`build`](crate::redis::RedisReplayGuardBuilder::build), the same checks then made by the
/// first call.
///
/// # Redis must not evict
///
/// The guard relies on its keys living until their TTL. A Redis that evicts
/// under memory pressure (any `maxmemory-policy` but `noeviction`: the
/// `allkeys-*` policies, and every `volatile-*` one, since every key here has a
/// TTL) drops the keys nobody reads first, these, and a consumed round opens
/// again, silently. So each new connection, every
/// [`health_check`](Self::health_check), and the guard's watcher every
/// [`watch_interval`](crate::redis::RedisReplayGuardBuilder::watch_interval) read
/// `CONFIG GET maxmemory-policy` (on every master of a cluster), and anything
/// but `noeviction` is an error naming the policy and what to set: at start-up
/// the guard does not start, and while it serves, every call fails closed
/// until the policy is `noeviction` again (and the interval counts as a loss,
/// below). A managed service that forbids `CONFIG` makes
/// that an error too: set the service's eviction policy to `noeviction` in its
/// console, then build with
/// [`allow_replay_if_redis_evicts`](crate::redis::RedisReplayGuardBuilder::allow_replay_if_redis_evicts),
/// whose name says what a wrong setting there costs. A full `noeviction` Redis
/// answers `OOM`: the guard then refuses tokens (fails closed), it never accepts
/// one unrecorded.
///
/// # When Redis forgets
///
/// A Redis restarted without persistence, or a replica promoted on failover
/// that lacked writes, no longer holds the keys it was given, and would let
/// every round consumed before open once more. So the guard vouches by
/// [`Generation`]: Redis holds one beside the keys, per group of flows (a
/// flow id's first byte; the group's keys and its generation share a hash
/// tag, so on a cluster they live on one master), every token carries its
/// group's generation from when it was minted, and one script refuses a
/// token of another generation and records the others
/// ([`ReplayError::GenerationChanged`]; a token of none,
/// [`ReplayError::NoGeneration`]). A Redis that lost its memory lost its
/// generations with it: the first script to find one missing draws a new
/// one, atomically, so no instance (not even one that has not noticed the
/// loss) lets a token of the old memory through. A loss the generations
/// survive (a restart with persistence, whose AOF may lack the last second;
/// a failover; an evicting policy) is seen by the watch: a `run_id` not
/// seen before on any master (`INFO server`, on each new connection, in the
/// health check and every watch interval), or a policy back to `noeviction`
/// after it was not. The guard then refuses every call until it has moved
/// every group's generation past the one it knew (only from that one, so
/// instances that saw the same loss move it once). No clock takes part.
///
/// Minting reads the generations the watcher last read (every watch
/// interval, and each consume brings its group's): a new generation is
/// minted with within one watch interval of the loss, or at once on the
/// instance whose consume found it.
///
/// <div class="warning">What a loss costs the users: every flow begun
/// before it starts over (its next round refused, logged once as
/// <code>generation_changed</code>); flows begun after it complete at once.
/// The guard sees only the losses that happen while it runs, and one that a
/// Redis refusing <code>INFO</code> hides only when the generations go with
/// the keys. Persistence (and <code>wait_for_replicas</code>) keep the keys;
/// the generations keep the guard from vouching for keys Redis may have
/// lost. A full <code>noeviction</code> Redis is no loss: its calls fail
/// closed while it is full, and its tokens are served once it is not.</div>
///
/// Each watcher is a task on the guard's own one-thread runtime, the one
/// its sync face runs on, started by its first call (or by `connect`), and
/// ends with the guard. With feature `tracing`, an evicting policy and a
/// loss each emit one `ERROR` event, target `mrtr_guard::state`, when the
/// guard first sees them (`replay_guard_evicting`, `replay_guard_lost`).
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
/// [`wait_for_replicas`](crate::redis::RedisReplayGuardBuilder::wait_for_replicas)
/// each `SET` is followed by `WAIT`, and a token is accepted only once that many
/// replicas hold its key. A URL naming one node of a Redis Cluster is detected
/// (`INFO cluster`) and served by the `redis` crate's async cluster client;
/// every command names one key, so it never spans slots.
/// [`principal_share`](crate::redis::RedisReplayGuardBuilder::principal_share) bounds
/// each principal's live entries, as
/// [`MemoryReplayGuard`](crate::state::MemoryReplayGuard) does (off by default
/// here: Redis has no capacity to take a share of).
///
/// `redis://` (TCP), `rediss://` (TCP with TLS) and `redis+unix://` URLs
/// are supported (a cluster: TCP only). TLS needs feature `redis-tls`
/// (without it a `rediss://` URL is refused with
/// [`RedisConfigError::TlsNotEnabled`](crate::redis::RedisConfigError::TlsNotEnabled)).
/// It goes through rustls, and the
/// server's certificate is always verified, its name (or IP address)
/// included: against the Mozilla root certificates compiled in
/// (`webpki-roots`), which managed services' public certificates chain to,
/// or, when [`ca_certificate_pem`](crate::redis::RedisReplayGuardBuilder::ca_certificate_pem)
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
///     .key_prefix("shop") // keys shop:replay:...
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
    pub(super) inner: Arc<Inner>,
}

/// What the clones of one guard share.
pub(super) struct Inner {
    /// The client and how it connects.
    pub(super) connector: Connector,
    pub(super) prefix: String,
    pub(super) share: Option<usize>,
    pub(super) wait: Option<(u32, Duration)>,
    /// The connection async callers share, made on their runtime.
    pub(super) shared: Slot,
    /// The connection of the sync face, made on `background`.
    pub(super) sync_shared: Slot,
    /// The runtime the sync face and the watcher run on, made on first use.
    pub(super) background: OnceLock<Option<tokio::runtime::Runtime>>,
    /// How often the watcher looks at Redis.
    pub(super) watch_interval: Duration,
    /// The watcher was started.
    pub(super) watching: Once,
    /// A mint waited for a look at Redis once already.
    pub(super) first_look: std::sync::atomic::AtomicBool,
}

/// Which of the guard's two connections a call uses.
#[derive(Clone, Copy)]
pub(super) enum Face {
    /// Async callers, on their runtime.
    Async,
    /// Sync callers, on the guard's own runtime.
    Sync,
}

/// A connection (once made) and the calls queued for its next batch.
#[derive(Default)]
pub(super) struct Slot {
    pub(super) conn: Mutex<Option<Conn>>,
    pub(super) queue: commit::Queue,
}

/// One face's connection, as the group commit sends through it.
struct Committing(Arc<Inner>, Face);

impl commit::Committer for Committing {
    fn queue(&self) -> &commit::Queue {
        &self.0.slot(self.1).queue
    }

    fn set_all(&self, batch: &[commit::Entry]) -> impl Future<Output = commit::Outcomes> + Send {
        let inner = &self.0;
        inner
            .connector
            .set_all(&inner.slot(self.1).conn, batch, inner.wait)
    }
}

impl RedisReplayGuard {
    /// The key prefix used unless
    /// [`RedisReplayGuardBuilder::key_prefix`](crate::redis::RedisReplayGuardBuilder::key_prefix)
    /// sets another: `mrtr-guard`, the task store's too.
    pub const DEFAULT_KEY_PREFIX: &'static str = DEFAULT_PREFIX;
    /// The default time allowed to open a connection (TCP, handshake and
    /// checks): 500 ms.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = CONNECT_TIMEOUT;
    /// The default time allowed for one command's request and answer: 500 ms.
    pub const DEFAULT_COMMAND_TIMEOUT: Duration = COMMAND_TIMEOUT;
    /// How often the guard looks at Redis by default, between connections:
    /// 1 s.
    pub const DEFAULT_WATCH_INTERVAL: Duration = Duration::from_secs(1);

    /// The Redis key that records (flow id, round), as `docs/REDIS.md`
    /// lays it out: for example
    /// `mrtr-guard:replay:000102030405060708090a0b0c0d0e0f:2`.
    #[must_use]
    pub fn key(&self, flow_id: FlowId, round: u32) -> String {
        Key::Round(flow_id, round).under(&self.inner.prefix)
    }

    /// The Redis key that counts `principal`'s live entries when
    /// [`principal_share`](crate::redis::RedisReplayGuardBuilder::principal_share)
    /// is set, as `docs/REDIS.md` lays it out.
    #[must_use]
    pub fn share_key(&self, principal: PrincipalKey) -> String {
        Key::Share(principal).under(&self.inner.prefix)
    }

    /// The key prefix.
    pub fn key_prefix(&self) -> &str {
        &self.inner.prefix
    }

    /// Checks that Redis answers and does not evict (`PING`, then
    /// `CONFIG GET maxmemory-policy` unless the builder opted out), with the
    /// guard's timeouts, and looks at Redis as the watcher does (a loss it
    /// finds is recorded; see [Redis forgets](#when-redis-forgets)): for a
    /// readiness or health probe.
    ///
    /// # Errors
    ///
    /// [`ReplayError::Unavailable`] when it does not, naming why.
    pub async fn health_check(&self) -> Result<(), ReplayError> {
        let inner = &self.inner;
        inner.watch();
        inner
            .connector
            .health_check(&inner.shared.conn)
            .await
            .map_err(failed)
    }

    /// [`health_check`](Self::health_check) for sync callers: blocks the
    /// calling thread (up to the timeouts).
    ///
    /// # Errors
    ///
    /// As [`health_check`](Self::health_check).
    pub fn ping(&self) -> Result<(), ReplayError> {
        self.inner.watch();
        let inner = Arc::clone(&self.inner);
        self.inner.run_sync(async move {
            let conn = &inner.sync_shared.conn;
            inner.connector.health_check(conn).await.map_err(failed)
        })
    }
}

impl Inner {
    /// Records the token's (flow id, round) as used by its principal on
    /// `face`'s connection: the principal's share first, when the guard has
    /// one, then the `SET` in the connection's next batch. Refused, before
    /// and after, when the watch no longer vouches for the token (a loss
    /// seen while the `SET` was on its way, on a new connection, counts).
    async fn record(
        self: &Arc<Self>,
        face: Face,
        token: TokenUse,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError> {
        self.watch();
        let generation = self.admits(&token)?;
        let TokenUse {
            principal,
            flow_id,
            round,
            retain_until,
            ..
        } = token;
        let group = group_of(flow_id);
        let key = Key::Round(flow_id, round).under(&self.prefix);
        let ttl_ms = time_to_live_ms(retain_until, now);
        if let Some(share) = self.share {
            let script = share::script(
                Key::Share(principal).under(&self.prefix),
                round_member(flow_id, round),
                share,
                retain_until,
                now,
                ttl_ms,
            );
            let conn = &self.slot(face).conn;
            let reply = self.connector.send(conn, &script).await.map_err(failed)?;
            share::admitted(&reply, share)?;
        }
        let write = commit::Write {
            key,
            ttl_ms,
            record: Key::Generation(group).under(&self.prefix),
            group,
            generation,
        };
        commit::set(Committing(Arc::clone(self), face), write).await?;
        self.admits(&token).map(|_| ())
    }

    /// Whether the watch vouches for `token` now, and the generation it
    /// carries (a token without one goes on to the script, which refuses
    /// it once Redis answers): refused while Redis may evict, between a loss
    /// and the move of the generation records past it, and when its
    /// group's record was last read with another generation (the script
    /// that records it checks the record itself, atomically; this saves
    /// the round trip, and a share's count).
    fn admits(&self, token: &TokenUse) -> Result<Option<Generation>, ReplayError> {
        let generation = token.generation;
        let watch = &self.connector.watch;
        match watch.doubt() {
            None => {}
            Some(Doubt::Evicting(why)) => return Err(failed(why)),
            Some(Doubt::Unsettled) => {
                return Err(ReplayError::Unavailable(
                    "redis lost replay keys (restarted, failed over or evicted) and the guard \
                     has not moved to a new generation yet: refused"
                        .to_owned(),
                ));
            }
        }
        match (watch.generation(group_of(token.flow_id)), generation) {
            (Some(known), Some(generation)) if known != generation => {
                Err(ReplayError::GenerationChanged)
            }
            _ => Ok(generation),
        }
    }

    /// Starts the guard's watcher, once: a task on the guard's own runtime
    /// that looks at Redis every watch interval, on the sync face's
    /// connection, for as long as the guard lives.
    pub(super) fn watch(self: &Arc<Self>) {
        self.watching.call_once(|| {
            let Ok(runtime) = self.runtime() else {
                return;
            };
            let guard = Arc::downgrade(self);
            let interval = self.watch_interval;
            runtime.spawn(async move {
                // The first look at once: minting needs the generations.
                loop {
                    let Some(inner) = guard.upgrade() else {
                        return;
                    };
                    // A failure is the calls' to report: they fail too.
                    let _ = inner.connector.look(&inner.sync_shared.conn).await;
                    drop(inner);
                    tokio::time::sleep(interval).await;
                }
            });
        });
    }

    pub(super) fn slot(&self, face: Face) -> &Slot {
        match face {
            Face::Async => &self.shared,
            Face::Sync => &self.sync_shared,
        }
    }

    /// The guard's own runtime (one thread), started on first use.
    pub(super) fn runtime(&self) -> Result<&tokio::runtime::Runtime, ReplayError> {
        self.background
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
            })
    }

    /// Runs `work` on the guard's own runtime and waits for it on this
    /// thread, up to the connect and command timeouts (and a margin).
    pub(super) fn run_sync<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T, ReplayError>> + Send + 'static,
    ) -> Result<T, ReplayError> {
        let runtime = self.runtime()?;
        let (sender, receiver) = mpsc::sync_channel(1);
        runtime.spawn(async move {
            let _ = sender.send(work.await);
        });
        // Connecting, then a stale connection's retry: at most two connects
        // and two commands, and a margin for scheduling.
        let connector = &self.connector;
        let limit = connector
            .connect_timeout
            .saturating_mul(2)
            .saturating_add(connector.command_timeout.saturating_mul(3))
            .saturating_add(Duration::from_millis(100));
        receiver
            .recv_timeout(limit)
            .unwrap_or_else(|_| Err(failed(timed_out())))
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

/// On the guard's own runtime, with a connection of its own: the sync face
/// blocks the calling thread (up to the timeouts).
impl ReplayGuard for RedisReplayGuard {
    fn consume(&self, token: TokenUse, now: OffsetDateTime) -> Result<(), ReplayError> {
        let inner = Arc::clone(&self.inner);
        self.inner
            .run_sync(async move { inner.record(Face::Sync, token, now).await })
    }

    /// The generation of the flow's group as the guard last read it (its
    /// watcher reads every group's each watch interval; each consume brings
    /// its group's). A guard that has read none yet (built with `build`,
    /// not `connect`) looks at Redis once, blocking up to the timeouts, so
    /// that its first tokens carry one; a look that fails leaves it to the
    /// watcher, and mints without a generation meanwhile (those tokens are
    /// refused, as [`ReplayError::NoGeneration`]).
    fn generation(&self, flow_id: FlowId) -> Option<Generation> {
        let inner = &self.inner;
        inner.watch();
        let group = group_of(flow_id);
        if let Some(generation) = inner.connector.watch.generation(group) {
            return Some(generation);
        }
        if !inner
            .first_look
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            let looking = Arc::clone(inner);
            let _ = inner.run_sync(async move {
                let conn = &looking.sync_shared.conn;
                looking.connector.look(conn).await.map_err(failed)
            });
        }
        inner.connector.watch.generation(group)
    }

    fn as_async(&self) -> Option<&dyn AsyncReplayGuard> {
        Some(self)
    }
}

/// On the caller's tokio runtime (the connection's driver runs there).
impl AsyncReplayGuard for RedisReplayGuard {
    fn consume(&self, token: TokenUse, now: OffsetDateTime) -> ConsumeFuture<'_> {
        Box::pin(async move { self.inner.record(Face::Async, token, now).await })
    }
}

impl fmt::Debug for RedisReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        f.debug_struct("RedisReplayGuard")
            .field("server", &inner.connector.server)
            .field("tls", &inner.connector.tls)
            .field("prefix", &inner.prefix)
            .field("connect_timeout", &inner.connector.connect_timeout)
            .field("command_timeout", &inner.connector.command_timeout)
            .field("principal_share", &inner.share)
            .field("wait_for_replicas", &inner.wait)
            .field("checks_eviction_policy", &inner.connector.check_policy)
            .field("watch_interval", &inner.watch_interval)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "test code: a panic is a failing test")]
mod tests {
    use super::*;

    #[test]
    fn keys_are_prefix_hex_flow_id_and_round() {
        let guard = RedisReplayGuard::builder("redis://127.0.0.1:1/")
            .key_prefix("p")
            .build()
            .unwrap();
        let flow = FlowId::from_bytes([0xab; 16]);
        assert_eq!(
            guard.key(flow, 7),
            format!("p:replay:{{ab}}:{}:7", "ab".repeat(16))
        );
        assert_eq!(guard.key_prefix(), "p");
    }
}
