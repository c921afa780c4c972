//! Looking at Redis: on each new connection, in the health check, and
//! whenever a contract on the client looks again (the replay guard, every
//! watch interval). `INFO server` (each master's `run_id`) and, unless the
//! builder opted out, `CONFIG GET maxmemory-policy`, on every master of a
//! cluster; what they say is recorded in the connector's `watch`.

use std::collections::BTreeSet;
use std::sync::Mutex;

use redis::Value;
use time::OffsetDateTime;

use crate::redis::connection::{Conn, Connector, evicting, forget};
use crate::redis::error::{ConnectError, RedisUnavailable, timed_out, unavailable};

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
        self.watch
            .record(run_ids, policy, OffsetDateTime::now_utc())
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
