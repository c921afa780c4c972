//! A batch of `SET NX` on one connection: the pipeline the group commit
//! sends, and what each entry's replies mean.

use std::sync::Mutex;
use std::time::Duration;

use redis::aio::ConnectionLike;
use redis::{RedisError, Value};

use crate::redis::connection::{Conn, Connector};
use crate::redis::error::{unavailable, unexpected};
use crate::redis::replay::commit;
use crate::redis::replay::error::failed;
use crate::state::ReplayError;

impl Conn {
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
        let sent = self
            .run(
                slot,
                |mut conn| async move { conn.set_all(batch, wait).await },
            )
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
            .map(|replies| outcome(replies, wait))
            .collect())
    }
}

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
            Err(failed(unavailable(&error)))
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
        _ => Err(failed(unexpected("SET NX"))),
    }
}
