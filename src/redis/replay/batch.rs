//! A batch of consumes on one connection: the pipeline the group commit
//! sends (one script per entry: the generation check and the `SET NX`,
//! atomic), and what each entry's replies mean.

use std::sync::Mutex;
use std::time::Duration;

use redis::{Cmd, RedisError, Value};

use crate::redis::connection::{Conn, Connector};
use crate::redis::error::{unavailable, unexpected};
use crate::redis::generation::{self};
use crate::redis::lua::{self, Lua};
use crate::redis::replay::commit;
use crate::redis::replay::error::failed;
use crate::redis::watch::Watch;
use crate::state::{Generation, ReplayError};

/// One consume, atomic on a round's key (`KEYS[1]`) and its group's
/// generation record (`KEYS[2]`, same slot): a missing record (a Redis that
/// lost its memory, or a new one) is created with the candidate
/// (`ARGV[3]`); a record that holds another generation than the token's
/// (`ARGV[1]`) refuses it, unrecorded, and comes back with the code
/// (`{0, generation}`); else `SET key 1 NX PX ttl` (`ARGV[2]`): 1 when set,
/// 2 when it was set before (a replay), a bare code (the record holds the
/// token's generation: the caller knows it). The first command is a
/// write (`SETNX`), so a full `noeviction` Redis refuses the whole script
/// with `OOM` (Redis checks memory at a script's first write only when no
/// read came before it).
static CONSUME: Lua = Lua::new(&["\
redis.call('SETNX', KEYS[2], ARGV[3])
local g = redis.call('GET', KEYS[2])
if g ~= ARGV[1] then return {0, g} end
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then return 1 end
return 2
"]);
impl Conn {
    /// The replies to each entry's consume and, with `wait`, to the `WAIT`
    /// after it: on one node, one pipeline for the whole batch (one `WAIT`
    /// covers every consume before it on the connection); on a cluster,
    /// whose keys are on many nodes, one pipeline per key, all at once.
    async fn set_all(
        &mut self,
        batch: &[commit::Entry],
        wait: Option<(u32, Duration)>,
        candidate: Generation,
    ) -> Result<Vec<(Value, Option<Value>)>, RedisError> {
        let candidate = candidate.to_string();
        let consumes: Vec<Cmd> = batch
            .iter()
            .map(|entry| consume(entry, &candidate))
            .collect();
        match self {
            Self::Single(_) => self.send_then_wait(&consumes, wait).await,
            Self::Cluster(conn) => {
                let sends = consumes.iter().map(|consume| {
                    let mut conn = Self::Cluster(conn.clone());
                    async move {
                        conn.send_then_wait(std::slice::from_ref(consume), wait)
                            .await
                    }
                });
                let replies = futures_util::future::join_all(sends).await;
                let mut all = Vec::with_capacity(batch.len());
                for reply in replies {
                    all.extend(reply?);
                }
                Ok(all)
            }
        }
    }
}

impl Connector {
    /// Sends a batch of `SET`s (each followed by `WAIT` with `wait`) on the
    /// slot's connection (see [`run`](Self::run)).
    pub(super) async fn set_all(
        &self,
        slot: &Mutex<Option<Conn>>,
        batch: &[commit::Entry],
        wait: Option<(u32, Duration)>,
    ) -> commit::Outcomes {
        let Some(candidate) = Generation::random() else {
            return Err(ReplayError::Unavailable(
                "the operating system's random number generator failed".to_owned(),
            ));
        };
        let sent = self
            .run(slot, |mut conn| async move {
                conn.set_all(batch, wait, candidate).await
            })
            .await;
        let replies = sent.map_err(failed)?;
        if replies.len() != batch.len() {
            return Ok(vec![
                Err(failed(unexpected("the batch of SET NX")));
                batch.len()
            ]);
        }
        Ok(replies
            .into_iter()
            .zip(batch)
            .map(|(replies, entry)| outcome(replies, wait, entry, &self.watch))
            .collect())
    }
}

/// [`CONSUME`]'s call for one entry.
fn consume(entry: &commit::Entry, candidate: &str) -> Cmd {
    let write = &entry.write;
    let mut command = CONSUME.call(2);
    command
        .arg(&write.key)
        .arg(&write.record)
        // `-` is no generation's text: the script refuses the token.
        .arg(
            write
                .generation
                .map_or_else(|| "-".to_owned(), |g| g.to_string()),
        )
        .arg(write.ttl_ms)
        .arg(candidate);
    command
}

/// What one consume (and the `WAIT` after it) answered means; the group's
/// generation it read goes to the watch, for minting.
fn outcome(
    (reply, acked): (Value, Option<Value>),
    wait: Option<(u32, Duration)>,
    entry: &commit::Entry,
    watch: &Watch,
) -> Result<(), ReplayError> {
    let acked = acked.map(Value::extract_error);
    let consumed = match (reply.extract_error(), &acked, wait) {
        (Ok(reply), _, _) => consumed(&reply, entry, watch),
        // Not run (`NOSCRIPT`) behind a `WAIT` that fell short: refused as
        // the replicas'.
        (Err(error), Some(Ok(Value::Int(acked))), Some((replicas, _)))
            if lua::is_missing(&error) && *acked < i64::from(replicas) =>
        {
            return Err(too_few(replicas));
        }
        (Err(error), _, _) => return Err(failed(unavailable(&error))),
    };
    match (consumed, acked, wait) {
        (Some(Ok(())), Some(Err(error)), Some(_)) => Err(failed(unavailable(&error))),
        (Some(Err(refused)), _, _) => Err(refused),
        (Some(Ok(())), None, None) => Ok(()),
        (Some(Ok(())), Some(Ok(Value::Int(acked))), Some((replicas, _))) => {
            if acked >= i64::from(replicas) {
                Ok(())
            } else {
                Err(too_few(replicas))
            }
        }
        _ => Err(failed(unexpected("the consume script"))),
    }
}

/// The refusal when fewer than `replicas` acknowledged an entry.
fn too_few(replicas: u32) -> ReplayError {
    ReplayError::Unavailable(format!(
        "fewer than {replicas} redis replicas acknowledged the entry in time"
    ))
}

/// What [`CONSUME`] answered: set (`Ok`), a replay, or another
/// generation; `None` for a reply it never gives.
fn consumed(
    reply: &Value,
    entry: &commit::Entry,
    watch: &Watch,
) -> Option<Result<(), ReplayError>> {
    let (code, generation) = match reply {
        // The record holds the token's generation.
        Value::Int(code) => (*code, entry.write.generation?),
        Value::Array(items) => match items.as_slice() {
            [Value::Int(0), generation] => (0, generation::generation_of(generation)?),
            _ => return None,
        },
        _ => return None,
    };
    watch.learn(entry.write.group, generation);
    match code {
        1 => Some(Ok(())),
        2 => Some(Err(ReplayError::Replayed)),
        0 if entry.write.generation.is_none() => Some(Err(ReplayError::NoGeneration)),
        0 => Some(Err(ReplayError::GenerationChanged)),
        _ => None,
    }
}
