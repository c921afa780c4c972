//! A connection to Redis (the replay guard's, the task store's): one node's
//! multiplexed connection or a cluster's, opened within the connect timeout,
//! each command within the command timeout, and replaced after a failure;
//! each new connection looked at (`watch`) before it is used.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

#[cfg(feature = "redis-tls")]
use redis::TlsCertificates;
use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::cluster::{ClusterClient, ClusterClientBuilder};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{MultipleNodeRoutingInfo, RoutingInfo};
use redis::{AsyncConnectionConfig, Client, Cmd, ConnectionInfo, RedisError, Value};

use crate::redis::error::{
    ConnectError, RedisConfigError, RedisUnavailable, timed_out, unavailable,
};
use crate::redis::lua;
use crate::redis::watch::Watch;

/// How a client of this crate reaches Redis: the client, and the settings
/// every connection is opened and every command run with (made by
/// `endpoint`).
pub(crate) struct Connector {
    pub(super) client: Client,
    /// The connection info, for a cluster client when the node is one.
    pub(super) info: ConnectionInfo,
    /// The CA to trust instead of the Mozilla roots, for a cluster's nodes.
    #[cfg(feature = "redis-tls")]
    pub(super) ca_pem: Option<Vec<u8>>,
    pub(crate) connect_timeout: Duration,
    pub(crate) command_timeout: Duration,
    pub(crate) check_policy: bool,
    /// What the connections have seen of Redis: its instances, its policy.
    pub(crate) watch: Watch,
    /// `host:port` or the socket path: never the credentials.
    pub(crate) server: String,
    /// Whether the URL asks for TLS.
    pub(crate) tls: bool,
}

impl Connector {
    /// The slot's connection, or a new one (checked) put into it.
    pub(super) async fn connection(
        &self,
        slot: &Mutex<Option<Conn>>,
    ) -> Result<Conn, RedisUnavailable> {
        if let Some(conn) = lock(slot).clone() {
            return Ok(conn);
        }
        let conn = self.open().await.map_err(ConnectError::into_unavailable)?;
        *lock(slot) = Some(conn.clone());
        Ok(conn)
    }

    /// Opens a connection into the slot at start-up: the errors a builder's
    /// `connect` reports.
    pub(crate) async fn connect(&self, slot: &Mutex<Option<Conn>>) -> Result<(), RedisConfigError> {
        let conn = self.open().await.map_err(ConnectError::into_config)?;
        *lock(slot) = Some(conn);
        Ok(())
    }

    /// Opens a connection, finds out whether the node is in a cluster, and
    /// looks at Redis (`watch`: its instances, its eviction policy): all
    /// within the connect timeout.
    pub(super) async fn open(&self) -> Result<Conn, ConnectError> {
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
            self.observe(&mut conn).await?;
            Ok(conn)
        };
        tokio::time::timeout(self.connect_timeout, opening)
            .await
            .unwrap_or_else(|_| Err(ConnectError::Redis(timed_out())))
    }

    async fn cluster_connection(&self) -> Result<ClusterConnection, ConnectError> {
        let builder = ClusterClientBuilder::new(vec![self.info.clone()])
            .connection_timeout(self.connect_timeout)
            .response_timeout(self.command_timeout)
            .retries(1);
        #[cfg(feature = "redis-tls")]
        let builder = match &self.ca_pem {
            Some(pem) => builder.certs(TlsCertificates {
                client_tls: None,
                root_cert: Some(pem.clone()),
            }),
            None => builder,
        };
        let client: ClusterClient = builder
            .build()
            .map_err(|error| ConnectError::Redis(unavailable(&error)))?;
        client
            .get_async_connection()
            .await
            .map_err(|error| ConnectError::Redis(unavailable(&error)))
    }

    /// Runs `command` on the slot's connection: once more on a new one when
    /// the connection was found closed, and the connection forgotten after
    /// any failure, so that the next call reconnects. That cannot accept a
    /// token twice: `SET NX` answers `OK` once per key, whichever connection
    /// carries it.
    pub(crate) async fn run<T, F, Fut>(
        &self,
        slot: &Mutex<Option<Conn>>,
        command: F,
    ) -> Result<T, RedisUnavailable>
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
    pub(crate) async fn send(
        &self,
        slot: &Mutex<Option<Conn>>,
        command: &Cmd,
    ) -> Result<Value, RedisUnavailable> {
        self.run(slot, |mut conn| async move { conn.send(command).await })
            .await
    }

    /// `PING`, then a look at Redis as the watcher takes one.
    pub(crate) async fn health_check(
        &self,
        slot: &Mutex<Option<Conn>>,
    ) -> Result<(), RedisUnavailable> {
        let ping = redis::cmd("PING");
        self.send(slot, &ping).await?;
        self.look(slot).await
    }
}

/// One node's multiplexed connection, or a cluster's.
#[derive(Clone)]
pub(crate) enum Conn {
    Single(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl Conn {
    /// `command`'s reply, a Redis error reply as an error; a script's
    /// call that found its node without the script, once more with the
    /// script's text ([`lua`]).
    pub(crate) async fn send(&mut self, command: &Cmd) -> Result<Value, RedisError> {
        match self.send_once(command).await {
            Err(error) if lua::is_missing(&error) => match lua::with_text(command) {
                Some(eval) => self.send_once(&eval).await,
                None => Err(error),
            },
            sent => sent,
        }
    }

    async fn send_once(&mut self, command: &Cmd) -> Result<Value, RedisError> {
        match self {
            Self::Single(conn) => conn.req_packed_command(command).await,
            Self::Cluster(conn) => conn.req_packed_command(command).await,
        }
        .and_then(Value::extract_error)
    }

    /// Each of `pipeline`'s replies, on one node (a cluster's: the one of
    /// the pipeline's first key), error replies as they came.
    pub(crate) async fn send_all(
        &mut self,
        pipeline: &redis::Pipeline,
    ) -> Result<Vec<Value>, RedisError> {
        match self {
            Self::Single(conn) => conn.req_packed_commands(pipeline, 0, pipeline.len()).await,
            Self::Cluster(conn) => conn.req_packed_commands(pipeline, 0, pipeline.len()).await,
        }
    }

    /// Each of `commands`' replies, error replies as they came, with the
    /// reply of a `WAIT replicas timeout` sent after them when `wait` says
    /// so: in one pipeline on one node (a cluster's: the one of the first
    /// command's key). The scripts' calls that found the node without
    /// their script go once more with its text, and the `WAIT` after them
    /// again, in a second pipeline ([`lua`]): no command runs twice. When
    /// the first `WAIT` fell short, they do not: each keeps its `NOSCRIPT`
    /// with the short `WAIT`, which its caller refuses as the replicas'.
    pub(crate) async fn send_then_wait(
        &mut self,
        commands: &[Cmd],
        wait: Option<(u32, Duration)>,
    ) -> Result<Vec<(Value, Option<Value>)>, RedisError> {
        let mut replies = self.pipeline_then_wait(commands.iter(), wait).await?;
        // Each missing script's text goes once, in its first call: the
        // calls after it in the pipeline find it there.
        let mut taught = std::collections::HashSet::new();
        let missing: Vec<(usize, Cmd)> = replies
            .iter()
            .zip(commands)
            .enumerate()
            .filter(|(_, ((reply, _), _))| {
                matches!(reply.clone().extract_error(), Err(error) if lua::is_missing(&error))
            })
            .filter_map(|(at, (_, command))| {
                let again = if taught.insert(lua::sha_of(command)?) {
                    lua::with_text(command)?
                } else {
                    command.clone()
                };
                Some((at, again))
            })
            .collect();
        // A `WAIT` that fell short says the replicas lag: the scripts that
        // did not run are refused for that, not sent again to wait twice.
        let short = |replies: &[(Value, Option<Value>)]| {
            wait.zip(replies.first()).is_some_and(|((wanted, _), (_, acked))| {
                !matches!(acked, Some(Value::Int(acked)) if *acked >= i64::from(wanted))
            })
        };
        if missing.is_empty() || short(&replies) {
            return Ok(replies);
        }
        let again = self
            .pipeline_then_wait(missing.iter().map(|(_, eval)| eval), wait)
            .await?;
        for ((at, _), reply) in missing.into_iter().zip(again) {
            if let Some(slot) = replies.get_mut(at) {
                *slot = reply;
            }
        }
        Ok(replies)
    }

    async fn pipeline_then_wait<'a>(
        &mut self,
        commands: impl ExactSizeIterator<Item = &'a Cmd>,
        wait: Option<(u32, Duration)>,
    ) -> Result<Vec<(Value, Option<Value>)>, RedisError> {
        let count = commands.len();
        let mut pipeline = redis::pipe();
        for command in commands {
            pipeline.add_command(command.clone());
        }
        if let Some((replicas, timeout)) = wait {
            pipeline
                .cmd("WAIT")
                .arg(replicas)
                .arg(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX));
        }
        let mut replies = self.send_all(&pipeline).await?;
        let acked = if wait.is_some() { replies.pop() } else { None };
        if replies.len() != count {
            return Err(RedisError::from((
                redis::ErrorKind::UnexpectedReturnType,
                "a pipeline's replies did not match its commands",
            )));
        }
        Ok(replies
            .into_iter()
            .map(|reply| (reply, acked.clone()))
            .collect())
    }

    /// `command` on the node, or on every master of a cluster: each one's
    /// reply.
    pub(super) async fn on_masters(&mut self, command: Cmd) -> Result<Vec<Value>, RedisError> {
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
        Ok(match (&*self, reply) {
            (Self::Cluster(_), Value::Map(nodes)) => nodes.into_iter().map(|(_, v)| v).collect(),
            (_, reply) => vec![reply],
        })
    }

    /// `CONFIG GET maxmemory-policy`, on every master of a cluster: the
    /// policies found.
    pub(super) async fn eviction_policies(&mut self) -> Result<Vec<String>, RedisError> {
        let mut command = redis::cmd("CONFIG");
        command.arg("GET").arg("maxmemory-policy");
        let replies = self.on_masters(command).await?;
        Ok(replies.iter().map(policy_of).collect())
    }
}

/// An error unless every policy is `noeviction`.
pub(super) fn evicting(policies: &[String]) -> Result<(), ConnectError> {
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

pub(super) fn lock(slot: &Mutex<Option<Conn>>) -> MutexGuard<'_, Option<Conn>> {
    // The slot is only read and replaced whole; a panic elsewhere cannot
    // leave it inconsistent.
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(super) fn forget(slot: &Mutex<Option<Conn>>) {
    *lock(slot) = None;
}

/// Whether a pooled connection failed because it was already closed, as
/// opposed to Redis being slow or answering in error.
fn is_stale(error: &RedisError) -> bool {
    error.is_connection_dropped() || error.is_unrecoverable_error()
}
