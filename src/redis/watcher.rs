//! Looking at Redis: on each new connection, in the health check, and
//! whenever a contract on the client looks again (the replay guard, every
//! watch interval). `INFO server` (each master's `run_id`) and, unless the
//! builder opted out, `CONFIG GET maxmemory-policy`, on every master of a
//! cluster; what they say is recorded in the connector's `watch`. For the
//! replay guard's client, then the generation records (`generation`): read
//! (created where missing), or moved past a loss the look saw.

use std::collections::BTreeSet;
use std::sync::Mutex;

use redis::Value;

use crate::redis::connection::{Conn, Connector, evicting, forget};
use crate::redis::error::{ConnectError, RedisUnavailable, timed_out, unavailable};
use crate::redis::generation::{self, GROUPS};
use crate::redis::watch::Plan;
use crate::state::Generation;

impl Connector {
    /// Looks at Redis through `conn` and records what it saw: the masters'
    /// `run_id`s (`INFO server`; none when Redis refuses `INFO`) and, when
    /// the guard checks it, their policy. An error when Redis failed or may
    /// evict.
    pub(super) async fn observe(&self, conn: &mut Conn) -> Result<(), ConnectError> {
        let mut info = redis::cmd("INFO");
        info.arg("server");
        let run_ids = match conn.on_masters(info).await {
            Ok(replies) => replies.iter().filter_map(run_id_of).collect(),
            Err(error) if error.code().is_some() => BTreeSet::new(),
            Err(error) => return Err(ConnectError::Redis(unavailable(&error))),
        };
        let policy = if self.check_policy {
            match conn.eviction_policies().await {
                Ok(policies) => evicting(&policies),
                Err(error) if error.code().is_some() => Err(ConnectError::PolicyUnreadable),
                Err(error) => return Err(ConnectError::Redis(unavailable(&error))),
            }
        } else {
            Ok(())
        };
        self.watch.record(run_ids, policy)?;
        if let Some(plan) = self.watch.plan() {
            // A failure leaves the watch as it was: still unsettled after a
            // loss (every call refused), or with the generations of the
            // last read. A full `noeviction` Redis cannot create a missing
            // record, and is no loss.
            if let Some(read) = self.generations(conn, &plan).await {
                self.watch.settle(&plan, read);
            }
        }
        Ok(())
    }

    /// Reads every group's generation record through `conn`, creating the
    /// missing ones, or moves them from the generations `plan` knew: one
    /// pipeline on one node, one script per group on a cluster.
    async fn generations(
        &self,
        conn: &mut Conn,
        plan: &Plan,
    ) -> Option<Box<[Option<Generation>; GROUPS]>> {
        let candidate = Generation::random()?;
        let scripts = (0..=u8::MAX).map(|group| {
            let known = plan
                .moving_from
                .as_ref()
                .and_then(|known| known.get(usize::from(group)).copied().flatten());
            // Moving from a generation never read: from whatever the
            // record holds (`*`), since it may be the one the loss left.
            let known = match (&plan.moving_from, known) {
                (Some(_), Some(known)) => known.to_string(),
                (Some(_), None) => "*".to_owned(),
                (None, _) => String::new(),
            };
            generation::script(&plan.prefix, group, &known, candidate)
        });
        let replies = match conn {
            Conn::Single(_) => {
                let scripts: Vec<_> = scripts.collect();
                let replies = conn.send_then_wait(&scripts, None).await.ok()?;
                replies.into_iter().map(|(reply, _)| reply).collect()
            }
            Conn::Cluster(_) => {
                let sends = scripts.map(|script| {
                    let mut conn = conn.clone();
                    async move { conn.send(&script).await }
                });
                futures_util::future::join_all(sends)
                    .await
                    .into_iter()
                    .collect::<Result<Vec<_>, _>>()
                    .ok()?
            }
        };
        let mut read = Box::new([None; GROUPS]);
        for (slot, reply) in read.iter_mut().zip(&replies) {
            *slot = generation::generation_of(reply);
        }
        Some(read)
    }

    /// A look at Redis on the slot's connection (a new one is looked at as
    /// it opens), within the command timeout; the connection forgotten when
    /// Redis failed.
    pub(crate) async fn look(&self, slot: &Mutex<Option<Conn>>) -> Result<(), RedisUnavailable> {
        let mut conn = self.connection(slot).await?;
        match tokio::time::timeout(self.command_timeout, self.observe(&mut conn)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(ConnectError::Redis(error))) => {
                forget(slot);
                Err(error)
            }
            Ok(Err(fault)) => Err(fault.into_unavailable()),
            Err(_) => {
                forget(slot);
                Err(timed_out())
            }
        }
    }
}

/// The `run_id` in one reply to `INFO server`.
fn run_id_of(reply: &Value) -> Option<String> {
    let text = match reply {
        Value::BulkString(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Value::VerbatimString { text, .. } => text.clone(),
        _ => return None,
    };
    text.lines()
        .find_map(|line| line.trim().strip_prefix("run_id:"))
        .map(str::to_owned)
        .filter(|id| !id.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_read_from_info_server() {
        let reply = Value::BulkString(b"# Server\r\nredis_version:7.0\r\nrun_id:ab12\r\n".to_vec());
        assert_eq!(run_id_of(&reply), Some("ab12".to_owned()));
        assert_eq!(run_id_of(&Value::Nil), None);
    }
}
