//! [`RedisTaskStore`]: the task store every instance of a server shares.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::{Cmd, Value};
use time::OffsetDateTime;

use crate::redis::connection::{Conn, Connector};
use crate::redis::endpoint::{COMMAND_TIMEOUT, CONNECT_TIMEOUT};
use crate::redis::layout::{DEFAULT_PREFIX, Key, time_to_live_ms};
use crate::redis::lua;
use crate::redis::task::script;
use crate::state::PrincipalKey;
use crate::task::millis::millis;
use crate::task::{
    Answer, CREATED_VERSION, Due, NewTask, Replacement, StoreFuture, Stored, StoredHead, TaskId,
    TaskStore, TaskStoreError,
};

/// Feature `redis`: a [`TaskStore`] on Redis (one node, TLS, or Redis
/// Cluster), for a server that runs as several instances: give each the
/// same store (same Redis, same key prefix) and a task created on one is
/// found, answered and completed on any. Build it at start-up with
/// [`connect`](crate::redis::RedisTaskStoreBuilder::connect).
///
/// # Keys
///
/// Under the prefix (default `mrtr-guard`): a hash per task
/// ([`task_key`](Self::task_key)) holding its version, sealed head and
/// sealed body, a string per remembered answer
/// ([`answer_key`](Self::answer_key)), and, under one Cluster hash tag, the
/// caps' two sorted sets ([`count_key`](Self::count_key),
/// [`owner_count_key`](Self::owner_count_key)) and the byte budgets' three
/// keys. Each key's type, TTL and writer, and the prefix rule, are in
/// `docs/REDIS.md`.
///
/// Records and answers reach the store sealed with the server's key and
/// bound to their id: a Redis reader learns no answer or result, and a
/// record copied under another id does not open.
///
/// # What each call does
///
/// - [`create`](TaskStore::create): the caps script (drops the expired
///   entries and charges, refuses at a count cap or past a byte budget,
///   else counts the task in both sets and charges its bytes: all checked
///   and counted in one script, so no cap is overshot, however many
///   instances create at once), then a script that writes the task's hash
///   unless the id exists, with its `PX`. The task is written, on the node
///   that holds its key, before `create` resolves; a create that fails
///   after its caps check gives its place and its charge back (best effort:
///   what is not given back is counted until the task's expiry, never
///   more).
/// - [`load`](TaskStore::load): `HMGET key v h b`;
///   [`load_head`](TaskStore::load_head): `HMGET key v h`, the body left in
///   Redis. One command on the node that holds the key, so a replacement
///   that resolved is what the next load reads, on any instance.
/// - [`replace`](TaskStore::replace): first the charge script, which
///   refuses growth past a budget and never lowers a charge; then a script
///   that compares the version and writes the next one, the head, the body
///   and the new `PX` only when it is the version read (atomic on the one
///   key, so of concurrent replacements over one version exactly one wins);
///   then, when the task's count ends at another time (a question parked),
///   that end moved in both caps' sets (`ZADD XX`); then, when the task
///   shrank, the charge settled to its size. The two
///   run on two nodes of a cluster, so a replacement that loses its race,
///   or fails between them, leaves the charge high until the next write or
///   the expiry: a task is never charged less than it holds.
/// - [`remember`](TaskStore::remember) / [`recall`](TaskStore::recall):
///   the charge script, then `SET key answer PX ms`; `GET key`.
///
/// Each `PX` is relative (from this instance's clock at the call), so
/// Redis' clock plays no part. The caps' scores are absolute, from the
/// creating instance's clock: instances whose clocks differ by `d` count a
/// task up to `d` longer or shorter. A replacement that moves a task's
/// expiry does not move its place in the caps (counted until the expiry it
/// was created with).
///
/// # Durability, replicas, losses
///
/// A task is on the primary that holds its key when `create` resolves. An
/// asynchronous replica promoted on failover lacks what it had not received:
/// with [`wait_for_replicas`](crate::redis::RedisTaskStoreBuilder::wait_for_replicas)
/// each create, replacement and remembered answer is followed by `WAIT` (in
/// the same round trip, on the same node), and the call fails with
/// [`TaskStoreError::Unavailable`] unless that many replicas acknowledged
/// it. Use it on a deployment with replicas; without replicas it can only
/// fail. A Redis restarted without persistence has forgotten its tasks: a
/// task it lost is unknown from then on (its `tasks/get` answers that the
/// task does not exist).
///
/// Redis must not evict: the store relies on keys living until their
/// expiry. Each new connection, and each
/// [`health_check`](Self::health_check), reads `CONFIG GET maxmemory-policy`
/// (on every master of a cluster) and refuses anything but `noeviction`
/// ([`RedisConfigError::Evicts`](crate::redis::RedisConfigError::Evicts));
/// [`allow_task_loss_if_redis_evicts`](crate::redis::RedisTaskStoreBuilder::allow_task_loss_if_redis_evicts)
/// skips the check, for a managed service that forbids `CONFIG`. A full
/// `noeviction` Redis answers `OOM`: the call fails, nothing is assumed
/// written. Size `maxmemory` above the task budget
/// ([`TaskLimits::bytes_total`](crate::task::TaskLimits), its Redis
/// overhead, and the replay guard's keys): the budget then refuses tasks
/// before Redis is full, and the guard sharing the Redis keeps serving.
///
/// # Failing closed
///
/// Every Redis failure (no answer within the command timeout, an error
/// reply, a reply of the wrong shape) is [`TaskStoreError::Unavailable`],
/// told without the URL or its credentials; the connection is then
/// replaced. A call that finds its connection closed is sent once more on
/// a new one: a create sent twice is done once (both scripts admit their
/// own earlier write). A call that timed out may still have been applied:
/// a create so timed out leaves an orphan task (its id never given out)
/// counted until its expiry; a replacement so timed out, or sent again
/// after the first reached Redis, has moved the version on, so it reports
/// `false` and the writer reads again (and finds its own write).
///
/// # Redis Cluster
///
/// A URL naming one node of a cluster is detected (`INFO cluster`) and
/// served by the `redis` crate's async cluster client. Each command and
/// script names keys of one slot (`docs/REDIS.md`, "Redis Cluster"): tasks
/// and answers spread over the cluster, and every create's caps check goes
/// to the one node of its prefix's caps.
///
/// ```no_run
/// use std::sync::Arc;
/// use std::time::Duration;
/// use mrtr_guard::redis::RedisTaskStore;
/// use mrtr_guard::task::TaskStore;
///
/// # async fn start() -> Result<(), Box<dyn std::error::Error>> {
/// let store: Arc<dyn TaskStore> = Arc::new(
///     RedisTaskStore::builder("rediss://:password@redis.example.com:6380/")
///         .ca_certificate_pem(std::fs::read("/etc/redis/ca.pem")?)
///         .key_prefix("shop")
///         .wait_for_replicas(1, Duration::from_millis(200))
///         .connect()
///         .await?, // refuses a Redis that may evict
/// );
/// # let _ = store;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisTaskStore {
    pub(super) inner: Arc<Inner>,
}

/// What the clones of one store share.
pub(super) struct Inner {
    pub(super) connector: Connector,
    /// The connection every call shares (multiplexed), once made.
    pub(super) conn: Mutex<Option<Conn>>,
    pub(super) prefix: String,
    pub(super) wait: Option<(u32, Duration)>,
}

impl RedisTaskStore {
    /// The key prefix used unless
    /// [`key_prefix`](crate::redis::RedisTaskStoreBuilder::key_prefix) sets
    /// another: `mrtr-guard`, the replay guard's too.
    pub const DEFAULT_KEY_PREFIX: &'static str = DEFAULT_PREFIX;
    /// The default time allowed to open a connection (TCP, handshake and
    /// checks): 500 ms.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = CONNECT_TIMEOUT;
    /// The default time allowed for one command's request and answer: 500 ms.
    pub const DEFAULT_COMMAND_TIMEOUT: Duration = COMMAND_TIMEOUT;

    /// The key of task `id`'s hash, as `docs/REDIS.md` lays it out.
    #[must_use]
    pub fn task_key(&self, id: &TaskId) -> String {
        Key::Task(id).under(&self.inner.prefix)
    }

    /// The key of the answer remembered under `key`, as `docs/REDIS.md`
    /// lays it out.
    #[must_use]
    pub fn answer_key(&self, key: &[u8; 32]) -> String {
        Key::Answer(key).under(&self.inner.prefix)
    }

    /// The sorted set that counts every task, for the total cap, as
    /// `docs/REDIS.md` lays it out.
    #[must_use]
    pub fn count_key(&self) -> String {
        Key::Tasks.under(&self.inner.prefix)
    }

    /// The sorted set that counts `owner`'s tasks, for the per-principal
    /// cap, as `docs/REDIS.md` lays it out (in the same slot as
    /// [`count_key`](Self::count_key)).
    #[must_use]
    pub fn owner_count_key(&self, owner: PrincipalKey) -> String {
        Key::OwnerTasks(owner).under(&self.inner.prefix)
    }

    /// The key prefix.
    #[must_use]
    pub fn key_prefix(&self) -> &str {
        &self.inner.prefix
    }

    /// Checks that Redis answers and does not evict (`PING`, then
    /// `CONFIG GET maxmemory-policy` unless the builder opted out), with the
    /// store's timeouts: for a readiness or health probe.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::Unavailable`] when it does not, naming why.
    pub async fn health_check(&self) -> Result<(), TaskStoreError> {
        let inner = &self.inner;
        inner
            .connector
            .health_check(&inner.conn)
            .await
            .map_err(script::failed)
    }

    /// `command`'s reply.
    async fn send(&self, command: &Cmd) -> Result<Value, TaskStoreError> {
        let inner = &self.inner;
        inner
            .connector
            .send(&inner.conn, command)
            .await
            .map_err(script::failed)
    }

    /// `command`'s reply, and with `wait_for_replicas` the `WAIT` after it
    /// (same round trip, same node) checked.
    async fn write(&self, command: &Cmd) -> Result<Value, TaskStoreError> {
        let Some((replicas, timeout)) = self.inner.wait else {
            return self.send(command).await;
        };
        let inner = &self.inner;
        let (reply, acked) = inner
            .connector
            .run(&inner.conn, |mut conn| async move {
                let wait = Some((replicas, timeout));
                let replies = conn.send_then_wait(std::slice::from_ref(command), wait);
                match <[(Value, Option<Value>); 1]>::try_from(replies.await?) {
                    Ok([(reply, Some(acked))]) => {
                        let acked = acked.extract_error()?;
                        // Not run (`NOSCRIPT`) behind a `WAIT` that fell
                        // short: refused as the replicas'.
                        match reply.extract_error() {
                            Err(error) if lua::is_missing(&error) => Ok(Some((None, acked))),
                            reply => Ok(Some((Some(reply?), acked))),
                        }
                    }
                    _ => Ok(None),
                }
            })
            .await
            .map_err(script::failed)?
            .ok_or_else(|| script::unexpected("a write and WAIT"))?;
        script::acked(&acked, replicas)?;
        reply.ok_or_else(|| script::unexpected("a write"))
    }

    fn budget(&self) -> script::Budget {
        let prefix = &self.inner.prefix;
        script::Budget {
            held: Key::Held.under(prefix),
            charges: Key::Charges.under(prefix),
            bytes: Key::Bytes.under(prefix),
        }
    }

    async fn create_task(
        &self,
        task: NewTask<'_>,
        now: OffsetDateTime,
    ) -> Result<(), TaskStoreError> {
        let ttl_ms = time_to_live_ms(task.expires_at, now);
        let member = task.id.to_string();
        let owner = task.owner.to_string();
        let (all, owned) = (self.count_key(), self.owner_count_key(task.owner));
        let budget = self.budget();
        let charge = script::Charge {
            member: &member,
            owner: &owner,
            bytes: task.charge(),
            version: CREATED_VERSION,
            expires: (millis(task.expires_at), ttl_ms),
        };
        let caps = script::caps((&all, &owned), &budget, &charge, task.limits, millis(now));
        let counted = script::admitted(&self.send(&caps).await?)?;
        if let Some(at) = task.due {
            self.make_due(&member, at, ttl_ms).await?;
        }
        let key = self.task_key(task.id);
        let written = match self
            .write(&script::create(&key, (task.head, task.body), ttl_ms))
            .await
        {
            Ok(reply) => script::wrote(&reply, "the task's creation"),
            Err(error) => Err(error),
        };
        let failure = match written {
            Ok(true) => return Ok(()),
            Ok(false) => TaskStoreError::Unavailable("a task with this id exists".into()),
            Err(error) => error,
        };
        // Best effort: a place or a charge not given back is counted until
        // the expiry. One an earlier call counted is that call's to give
        // back.
        if counted {
            for set in [&all, &owned] {
                let _ = self.send(&script::uncount(set, &member)).await;
            }
            let _ = self.send(&script::uncharge(&budget, &member)).await;
        }
        Err(failure)
    }

    /// A replacement, charged before it is written (never lower: a
    /// replacement that loses its race leaves its charge high, never low)
    /// and settled after it when it shrank the task.
    async fn replace_task(
        &self,
        replacement: Replacement<'_>,
        now: OffsetDateTime,
    ) -> Result<bool, TaskStoreError> {
        let ttl_ms = time_to_live_ms(replacement.expires_at, now);
        let member = replacement.id.to_string();
        let owner = replacement.owner.to_string();
        let budget = self.budget();
        let charge = script::Charge {
            member: &member,
            owner: &owner,
            bytes: replacement.charge(),
            version: replacement.version.saturating_add(1),
            expires: (millis(replacement.expires_at), ttl_ms),
        };
        let (limits, now_ms) = (replacement.limits, millis(now));
        let reserve = script::charge(&budget, &charge, false, limits, now_ms);
        let shrank = script::charged(&self.send(&reserve).await?)?;
        if let Some(at) = replacement.due {
            self.make_due(&member, at, ttl_ms).await?;
        }
        let command = script::replace(
            &self.task_key(replacement.id),
            replacement.version,
            (replacement.head, replacement.body),
            ttl_ms,
        );
        let won = script::wrote(&self.write(&command).await?, "the task's replacement")?;
        if let (true, Some(until)) = (won, replacement.counted_until) {
            let owned = self.owner_count_key(replacement.owner);
            let recount = script::recount(&self.count_key(), &owned, &member, millis(until));
            script::wrote(&self.send(&recount).await?, "the count's new end")?;
        }
        if won && shrank {
            // Best effort: a charge not settled stays high until the next
            // write or the expiry.
            let _ = self
                .send(&script::charge(&budget, &charge, true, limits, now_ms))
                .await;
        }
        Ok(won)
    }

    /// Makes the task `member` due at `at` in the sweep's index, before
    /// the write that gives it its lease: a write that then fails leaves it
    /// due (the sweep finds nothing to do), never missed.
    async fn make_due(
        &self,
        member: &str,
        at: OffsetDateTime,
        ttl_ms: u64,
    ) -> Result<(), TaskStoreError> {
        let key = Key::Due.under(&self.inner.prefix);
        let reply = self
            .send(&script::due(&key, member, millis(at), ttl_ms))
            .await?;
        script::wrote(&reply, "the task's due time").map(drop)
    }

    async fn remember_answer(
        &self,
        answer: Answer<'_>,
        now: OffsetDateTime,
    ) -> Result<(), TaskStoreError> {
        let ttl_ms = time_to_live_ms(answer.expires_at, now);
        let member = self.answer_key(answer.key);
        let owner = answer.owner.to_string();
        let budget = self.budget();
        let charge = script::Charge {
            member: &member,
            owner: &owner,
            bytes: answer.charge(),
            version: CREATED_VERSION,
            expires: (millis(answer.expires_at), ttl_ms),
        };
        let reserve = script::charge(&budget, &charge, false, answer.limits, millis(now));
        script::charged(&self.send(&reserve).await?)?;
        let command = script::remember(&self.answer_key(answer.key), answer.answer, ttl_ms);
        script::set(&self.write(&command).await?)
    }
}

impl TaskStore for RedisTaskStore {
    fn create<'a>(&'a self, task: NewTask<'a>, now: OffsetDateTime) -> StoreFuture<'a, ()> {
        Box::pin(self.create_task(task, now))
    }

    /// Redis forgets a record itself at its expiry: `now` is not read.
    fn load<'a>(&'a self, id: &'a TaskId, _now: OffsetDateTime) -> StoreFuture<'a, Option<Stored>> {
        Box::pin(async move {
            let reply = self.send(&script::load(&self.task_key(id))).await?;
            script::loaded(reply)
        })
    }

    /// `HMGET key v h`: the body stays in Redis.
    fn load_head<'a>(
        &'a self,
        id: &'a TaskId,
        _now: OffsetDateTime,
    ) -> StoreFuture<'a, Option<StoredHead>> {
        Box::pin(async move {
            let reply = self.send(&script::load_head(&self.task_key(id))).await?;
            script::loaded_head(reply)
        })
    }

    fn replace<'a>(
        &'a self,
        replacement: Replacement<'a>,
        now: OffsetDateTime,
    ) -> StoreFuture<'a, bool> {
        Box::pin(self.replace_task(replacement, now))
    }

    /// `ZREM` from both caps' sets (one hash slot): the hash stays until
    /// its TTL.
    fn release<'a>(
        &'a self,
        id: &'a TaskId,
        owner: PrincipalKey,
        _now: OffsetDateTime,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let member = id.to_string();
            for set in [self.count_key(), self.owner_count_key(owner)] {
                self.send(&script::uncount(&set, &member)).await?;
            }
            Ok(())
        })
    }

    fn remember<'a>(&'a self, answer: Answer<'a>, now: OffsetDateTime) -> StoreFuture<'a, ()> {
        Box::pin(self.remember_answer(answer, now))
    }

    /// Redis forgets an answer itself at its expiry: `now` is not read.
    fn recall<'a>(
        &'a self,
        key: &'a [u8; 32],
        _now: OffsetDateTime,
    ) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(
            async move { script::got(self.send(&script::recall(&self.answer_key(key))).await?) },
        )
    }

    fn fleet(&self) -> StoreFuture<'_, Option<Vec<u8>>> {
        Box::pin(async move {
            let mut command = redis::cmd("GET");
            command.arg(Key::Fleet.under(&self.inner.prefix));
            script::got(self.send(&command).await?)
        })
    }

    fn set_fleet<'a>(&'a self, record: &'a [u8]) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut command = redis::cmd("SET");
            command
                .arg(Key::Fleet.under(&self.inner.prefix))
                .arg(record);
            script::set(&self.send(&command).await?)
        })
    }

    /// Redis forgets a task itself at its expiry, not its entry in the
    /// index: an expired task may be listed (the sweep finds it gone and
    /// drops it).
    fn due(&self, now: OffsetDateTime, limit: usize) -> StoreFuture<'_, Vec<Due>> {
        Box::pin(async move {
            let key = Key::Due.under(&self.inner.prefix);
            script::listed_due(self.send(&script::due_by(&key, millis(now), limit)).await?)
        })
    }

    fn reschedule(&self, due: Due, at: Option<OffsetDateTime>) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let key = Key::Due.under(&self.inner.prefix);
            let command = script::reschedule(&key, due, at.map(millis));
            self.send(&command).await.map(drop)
        })
    }
}

impl fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        let connector = &inner.connector;
        f.debug_struct("RedisTaskStore")
            .field("server", &connector.server)
            .field("tls", &connector.tls)
            .field("prefix", &inner.prefix)
            .field("connect_timeout", &connector.connect_timeout)
            .field("command_timeout", &connector.command_timeout)
            .field("wait_for_replicas", &inner.wait)
            .field("checks_eviction_policy", &connector.check_policy)
            .finish_non_exhaustive()
    }
}
