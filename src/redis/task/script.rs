//! The task store's commands on Redis, each atomic on the keys of one hash
//! slot, and what their replies mean: the caps (two sorted sets), a task's
//! hash (its version and record), a remembered answer (a string).

use redis::{Cmd, Value};

use crate::redis::error::{self, RedisUnavailable};
use crate::task::{Stored, TaskLimits, TaskStoreError};

/// The caps check, atomic on the two sorted sets of one hash slot (`KEYS`:
/// every task, the owner's tasks; members are task ids scored by their
/// expiry in Unix ms): forgets the expired, admits a task already counted
/// (2: the same create sent again), refuses at the total cap (-1), then at
/// the owner's (0), else counts the task in both (1) and keeps each set as
/// long as its longest entry. `ARGV`: now (Unix ms), the task's
/// expiry (Unix ms), the total cap, the owner's cap, the task id, its TTL
/// in ms.
const CAPS: &str = "\
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[2], ARGV[5]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[5])
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[6]) then
    redis.call('PEXPIRE', KEYS[i], ARGV[6])
  end
end
return 1
";

/// A new task's hash, unless the id is taken (0): version 1 and the record,
/// forgotten after the TTL. The same create sent again (the hash holds this
/// very record, sealed under a fresh nonce) is done (1). `ARGV`: the record,
/// the TTL in ms.
const CREATE: &str = "\
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'r') == ARGV[1] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'v', '1', 'r', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
";

/// Compare and replace: only when the hash's version is still the one read
/// (compared as text: no float on the way), the next version, the record
/// and the new TTL (1); otherwise nothing (0), the task gone included.
/// `ARGV`: the version read, the record, the TTL in ms.
const REPLACE: &str = "\
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'r', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
";

/// `EVAL` of the caps check for the task `member`.
pub(super) fn caps(
    total_key: &str,
    owner_key: &str,
    member: &str,
    limits: TaskLimits,
    (now_ms, expires_ms, ttl_ms): (i64, i64, u64),
) -> Cmd {
    let mut command = redis::cmd("EVAL");
    command
        .arg(CAPS)
        .arg(2)
        .arg(total_key)
        .arg(owner_key)
        .arg(now_ms)
        .arg(expires_ms)
        .arg(limits.total)
        .arg(limits.per_principal)
        .arg(member)
        .arg(ttl_ms);
    command
}

/// What the caps check answered: admitted, and whether this call counted
/// the task (`false`: an earlier call did).
pub(super) fn admitted(reply: &Value) -> Result<bool, TaskStoreError> {
    match reply {
        Value::Int(1) => Ok(true),
        Value::Int(2) => Ok(false),
        Value::Int(0) => Err(TaskStoreError::PrincipalFull),
        Value::Int(-1) => Err(TaskStoreError::Full),
        _ => Err(unexpected("the caps check")),
    }
}

/// `ZREM` of the task from one of the caps' sets: a create that failed
/// after its caps check gives its place back.
pub(super) fn uncount(key: &str, member: &str) -> Cmd {
    let mut command = redis::cmd("ZREM");
    command.arg(key).arg(member);
    command
}

/// `EVAL` of the new task's hash.
pub(super) fn create(key: &str, record: &[u8], ttl_ms: u64) -> Cmd {
    let mut command = redis::cmd("EVAL");
    command.arg(CREATE).arg(1).arg(key).arg(record).arg(ttl_ms);
    command
}

/// `EVAL` of compare and replace.
pub(super) fn replace(key: &str, version: u64, record: &[u8], ttl_ms: u64) -> Cmd {
    let mut command = redis::cmd("EVAL");
    command
        .arg(REPLACE)
        .arg(1)
        .arg(key)
        .arg(version.to_string())
        .arg(record)
        .arg(ttl_ms);
    command
}

/// What a create or a replace answered: whether it wrote.
pub(super) fn wrote(reply: &Value, command: &str) -> Result<bool, TaskStoreError> {
    match reply {
        Value::Int(1) => Ok(true),
        Value::Int(0) => Ok(false),
        _ => Err(unexpected(command)),
    }
}

/// `HMGET key v r`: a task's version and record.
pub(super) fn load(key: &str) -> Cmd {
    let mut command = redis::cmd("HMGET");
    command.arg(key).arg("v").arg("r");
    command
}

/// What `HMGET key v r` answered: the task, or `None` when the key is gone.
pub(super) fn loaded(reply: Value) -> Result<Option<Stored>, TaskStoreError> {
    let Value::Array(fields) = reply else {
        return Err(unexpected("HMGET"));
    };
    match <[Value; 2]>::try_from(fields) {
        Ok([Value::Nil, Value::Nil]) => Ok(None),
        Ok([Value::BulkString(version), Value::BulkString(record)]) => {
            let version = std::str::from_utf8(&version)
                .ok()
                .and_then(|text| text.parse().ok())
                .ok_or_else(|| unexpected("HMGET"))?;
            Ok(Some(Stored { version, record }))
        }
        _ => Err(unexpected("HMGET")),
    }
}

/// `SET key answer PX ttl`.
pub(super) fn remember(key: &str, answer: &[u8], ttl_ms: u64) -> Cmd {
    let mut command = redis::cmd("SET");
    command.arg(key).arg(answer).arg("PX").arg(ttl_ms);
    command
}

/// What `SET` answered.
pub(super) fn set(reply: &Value) -> Result<(), TaskStoreError> {
    match reply {
        Value::Okay => Ok(()),
        _ => Err(unexpected("SET")),
    }
}

/// `GET key`.
pub(super) fn recall(key: &str) -> Cmd {
    let mut command = redis::cmd("GET");
    command.arg(key);
    command
}

/// What `GET` answered.
pub(super) fn got(reply: Value) -> Result<Option<Vec<u8>>, TaskStoreError> {
    match reply {
        Value::Nil => Ok(None),
        Value::BulkString(answer) => Ok(Some(answer)),
        _ => Err(unexpected("GET")),
    }
}

/// What `WAIT replicas timeout` answered: enough replicas, or an error.
pub(super) fn acked(reply: &Value, replicas: u32) -> Result<(), TaskStoreError> {
    match reply {
        Value::Int(acked) if *acked >= i64::from(replicas) => Ok(()),
        Value::Int(_) => Err(TaskStoreError::Unavailable(
            format!("fewer than {replicas} redis replicas acknowledged the write in time").into(),
        )),
        _ => Err(unexpected("WAIT")),
    }
}

/// The client's failure as the task store reports it: every
/// [`RedisUnavailable`] becomes [`TaskStoreError::Unavailable`] here, and
/// only here.
pub(super) fn failed(why: RedisUnavailable) -> TaskStoreError {
    TaskStoreError::Unavailable(Box::new(why))
}

/// A reply of the wrong shape to `command`.
pub(super) fn unexpected(command: &str) -> TaskStoreError {
    failed(error::unexpected(command))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "test code: a panic is a failing test")]
mod tests {
    use super::*;

    fn bulk(text: &[u8]) -> Value {
        Value::BulkString(text.to_vec())
    }

    #[test]
    fn the_caps_check_names_the_cap_it_hit() {
        assert!(admitted(&Value::Int(1)).unwrap());
        assert!(!admitted(&Value::Int(2)).unwrap());
        assert_eq!(
            admitted(&Value::Int(0)).unwrap_err().code(),
            "principal_full"
        );
        assert_eq!(admitted(&Value::Int(-1)).unwrap_err().code(), "full");
        assert_eq!(admitted(&Value::Nil).unwrap_err().code(), "unavailable");
    }

    #[test]
    fn a_task_reads_back_from_its_hash_or_fails_closed() {
        let found = loaded(Value::Array(vec![bulk(b"7"), bulk(b"\x00sealed")])).unwrap();
        assert_eq!(
            found,
            Some(Stored {
                version: 7,
                record: b"\x00sealed".to_vec()
            })
        );
        assert_eq!(
            loaded(Value::Array(vec![Value::Nil, Value::Nil])).unwrap(),
            None
        );
        for odd in [
            Value::Nil,
            Value::Array(vec![bulk(b"x"), bulk(b"r")]),
            Value::Array(vec![bulk(b"-1"), bulk(b"r")]),
            Value::Array(vec![bulk(b"1"), Value::Nil]),
            Value::Array(vec![bulk(b"1")]),
        ] {
            assert_eq!(loaded(odd).unwrap_err().code(), "unavailable");
        }
    }

    #[test]
    fn writes_and_waits_fail_closed_on_anything_unexpected() {
        assert!(wrote(&Value::Int(1), "EVAL").unwrap());
        assert!(!wrote(&Value::Int(0), "EVAL").unwrap());
        assert!(wrote(&Value::Okay, "EVAL").is_err());
        assert!(set(&Value::Okay).is_ok());
        assert!(set(&Value::Nil).is_err());
        assert!(acked(&Value::Int(1), 1).is_ok());
        let short = acked(&Value::Int(0), 1).unwrap_err();
        assert_eq!(
            short.to_string(),
            "the task store failed: fewer than 1 redis replicas acknowledged the write in time"
        );
        assert_eq!(got(Value::Nil).unwrap(), None);
        assert_eq!(got(bulk(b"a")).unwrap(), Some(b"a".to_vec()));
        assert!(got(Value::Int(1)).is_err());
    }

    #[test]
    fn a_redis_failure_is_told_in_the_store_s_words() {
        let error = failed(error::timed_out());
        assert_eq!(
            error.to_string(),
            "the task store failed: redis did not answer in time"
        );
        let source = std::error::Error::source(&error).unwrap();
        assert!(source.is::<RedisUnavailable>(), "{source:?}");
    }
}
