//! The task store's commands on Redis, each atomic on the keys of one hash
//! slot, and what their replies mean: the caps (two sorted sets) and the
//! byte budgets (a sorted set and two hashes) in the caps' slot, the
//! sweep's index (a sorted set there too), a task's hash (its version,
//! head and body), a remembered answer (a string).

use redis::{Cmd, Value};

use crate::redis::error::{self, RedisUnavailable};
use crate::redis::lua::Lua;
use crate::task::millis::from_millis;
use crate::task::{Due, Stored, StoredHead, TaskId, TaskLimits, TaskStoreError};

/// The byte budgets' Lua, shared by the scripts that charge: `forget`
/// drops the charges expired at `now` (at most 256 a call: the rest at the
/// next), giving their bytes back; `charge` charges `member` of `owner`
/// `n` bytes at `version` in three keys of the caps' slot (`held`: members
/// by expiry; `charges`: member -> "bytes version owner"; `bytes`: `all`
/// and each owner -> bytes held), refusing growth past the owner's budget
/// (0) or the total (-1). A charge at an older version than the one held
/// changes nothing; before a write (`settle` 0) a charge is never lowered
/// (2 when it was kept higher: the write settles it after); a settle sets
/// it exactly. Every key lives as long as its longest entry.
const BUDGET: &str = "\
local function forget(held, charges, bytes, now)
  local gone = redis.call('ZRANGEBYSCORE', held, '-inf', now, 'LIMIT', 0, 256)
  for _, m in ipairs(gone) do
    local c = redis.call('HGET', charges, m)
    if c then
      local n, _, o = string.match(c, '^(%d+) (%d+) (%x+)$')
      redis.call('HINCRBY', bytes, 'all', -tonumber(n))
      if redis.call('HINCRBY', bytes, o, -tonumber(n)) <= 0 then redis.call('HDEL', bytes, o) end
      redis.call('HDEL', charges, m)
    end
    redis.call('ZREM', held, m)
  end
end
local function keep(key, ttl)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
local function charge(k, member, owner, n, version, settle, expiry, ttl, per_owner, total)
  local old, at = 0, 0
  local c = redis.call('HGET', k[2], member)
  if c then
    local a, b = string.match(c, '^(%d+) (%d+)')
    old, at = tonumber(a), tonumber(b)
  end
  if version < at then return 1 end
  local new, kept = n, 1
  if settle == 0 and n < old then new, kept = old, 2 end
  local more = new - old
  if more > 0 then
    if tonumber(redis.call('HGET', k[3], 'all') or '0') + more > total then return -1 end
    if tonumber(redis.call('HGET', k[3], owner) or '0') + more > per_owner then return 0 end
  end
  redis.call('HSET', k[2], member, string.format('%d %d %s', new, version, owner))
  if more ~= 0 then
    redis.call('HINCRBY', k[3], 'all', more)
    redis.call('HINCRBY', k[3], owner, more)
  end
  redis.call('ZADD', k[1], expiry, member)
  for i = 1, 3 do keep(k[i], ttl) end
  return kept
end
";

/// The caps check of a new task, atomic on the keys of the caps' slot
/// (`KEYS`: every task, the owner's tasks, then `held`, `charges`, `bytes`
/// as [`BUDGET`] names them; count members are task ids scored by their
/// expiry in Unix ms): forgets the expired, admits a task already counted
/// (2: the same create sent again), refuses at the total count (-1), then
/// at the owner's (0), then past the total bytes (-2) or the owner's (-3),
/// else counts and charges the task (1). `ARGV`: now (Unix ms), the task's
/// expiry (Unix ms), the total cap, the owner's cap, the task id, its TTL in
/// ms, the owner's key, the task's charge, the owner's byte budget, the
/// total.
static CAPS: Lua = Lua::new(&[
    BUDGET,
    "\
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
forget(KEYS[3], KEYS[4], KEYS[5], ARGV[1])
if redis.call('ZSCORE', KEYS[2], ARGV[5]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
local charged = charge({KEYS[3], KEYS[4], KEYS[5]}, ARGV[5], ARGV[7], tonumber(ARGV[8]), 1, 1,
  ARGV[2], tonumber(ARGV[6]), tonumber(ARGV[9]), tonumber(ARGV[10]))
if charged == -1 then return -2 end
if charged == 0 then return -3 end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[5])
  keep(KEYS[i], tonumber(ARGV[6]))
end
return 1
",
]);

/// A charge of a replacement or a remembered answer (`KEYS`: `held`,
/// `charges`, `bytes`): forgets the expired, then [`BUDGET`]'s `charge`.
/// `ARGV`: now, the member, the owner's key, the bytes, the version,
/// settle (0 or 1), the expiry (Unix ms), the TTL in ms, the owner's
/// budget, the total.
static CHARGE: Lua = Lua::new(&[
    BUDGET,
    "\
forget(KEYS[1], KEYS[2], KEYS[3], ARGV[1])
return charge(KEYS, ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]),
  ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]))
",
]);

/// Gives back the charge of a member whose write failed (`KEYS`: `held`,
/// `charges`, `bytes`; `ARGV`: the member).
static UNCHARGE: Lua = Lua::new(&["\
local c = redis.call('HGET', KEYS[2], ARGV[1])
if not c then return 0 end
local n, _, o = string.match(c, '^(%d+) (%d+) (%x+)$')
redis.call('HINCRBY', KEYS[3], 'all', -tonumber(n))
if redis.call('HINCRBY', KEYS[3], o, -tonumber(n)) <= 0 then redis.call('HDEL', KEYS[3], o) end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
"]);

/// A new end to a task's count (`KEYS`: every task, the owner's tasks;
/// `ARGV`: the task id, the end in Unix ms): its score moved in each set
/// that still counts it (`XX`: a released task stays released).
static RECOUNT: Lua = Lua::new(&["\
for i = 1, 2 do redis.call('ZADD', KEYS[i], 'XX', ARGV[2], ARGV[1]) end
return 1
"]);

/// `EVAL` moving the end of the task `member`'s count to `until_ms`.
pub(super) fn recount(total_key: &str, owner_key: &str, member: &str, until_ms: i64) -> Cmd {
    let mut command = RECOUNT.call(2);
    command
        .arg(total_key)
        .arg(owner_key)
        .arg(member)
        .arg(until_ms);
    command
}

/// A new task's hash, unless the id is taken (0): version 1, the head and
/// the body, forgotten after the TTL. The same create sent again (the hash
/// holds this very head, sealed under a fresh nonce) is done (1). `ARGV`:
/// the head, the body, the TTL in ms.
static CREATE: Lua = Lua::new(&["\
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'h') == ARGV[1] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'v', '1', 'h', ARGV[1], 'b', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"]);

/// Compare and replace: only when the hash's version is still the one read
/// (compared as text: no float on the way), the next version, the head, the
/// body and the new TTL (1); otherwise nothing (0), the task gone included.
/// `ARGV`: the version read, the head, the body, the TTL in ms.
static REPLACE: Lua = Lua::new(&["\
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'h', ARGV[2], 'b', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
"]);

/// The task `ARGV[2]` due at `ARGV[1]` (Unix ms) in the sweep's index,
/// which lives as long as its longest entry (`ARGV[3]`: the task's TTL in
/// ms). Its first command writes (Redis checks `maxmemory` then).
static DUE: Lua = Lua::new(&["\
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1
"]);

/// Moves the task `ARGV[1]` in the sweep's index to `ARGV[3]` (Unix ms;
/// empty: drops it) only if it is still due at `ARGV[2]` (1), else nothing
/// (0). It reads first, and never grows the set: it moves or drops a
/// member.
static RESCHEDULE: Lua = Lua::new(&["\
local at = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not at or tonumber(at) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"]);

/// `EVAL` making `member` due at `at_ms` in the sweep's index `key`.
pub(super) fn due(key: &str, member: &str, at_ms: i64, ttl_ms: u64) -> Cmd {
    let mut command = DUE.call(1);
    command.arg(key).arg(at_ms).arg(member).arg(ttl_ms);
    command
}

/// `EVAL` moving `due` in the sweep's index `key` to `at_ms` (`None`:
/// dropping it), if it is still where it was read.
pub(super) fn reschedule(key: &str, due: Due, at_ms: Option<i64>) -> Cmd {
    let mut command = RESCHEDULE.call(1);
    command
        .arg(key)
        .arg(due.id.to_string())
        .arg(crate::task::millis::millis(due.at))
        .arg(at_ms.map(|at| at.to_string()).unwrap_or_default());
    command
}

/// `ZRANGE key -inf now BYSCORE LIMIT 0 limit WITHSCORES`: the tasks due
/// by `now_ms`, soonest first.
pub(super) fn due_by(key: &str, now_ms: i64, limit: usize) -> Cmd {
    let mut command = redis::cmd("ZRANGE");
    command
        .arg(key)
        .arg("-inf")
        .arg(now_ms)
        .arg("BYSCORE")
        .arg("LIMIT")
        .arg(0)
        .arg(limit)
        .arg("WITHSCORES");
    command
}

/// What `ZRANGE ... WITHSCORES` answered, as due tasks: a member that is
/// not a task id is skipped (no writer of this store puts one there).
pub(super) fn listed_due(reply: Value) -> Result<Vec<Due>, TaskStoreError> {
    let pairs: Vec<(String, f64)> =
        redis::FromRedisValue::from_redis_value(reply).map_err(|_| unexpected("ZRANGE"))?;
    Ok(pairs
        .into_iter()
        .filter_map(|(member, at)| {
            let id = TaskId::parse(&member)?;
            // Whole milliseconds, well within f64's exact integers.
            #[allow(clippy::cast_possible_truncation, reason = "scores are whole Unix ms")]
            let at = from_millis(at as i64);
            Some(Due { id, at })
        })
        .collect())
}

/// The keys of the caps' slot a charge names: `held`, `charges`, `bytes`.
pub(super) struct Budget {
    pub(super) held: String,
    pub(super) charges: String,
    pub(super) bytes: String,
}

/// What is charged: a member of an owner, its bytes, at a version, until
/// an expiry (Unix ms; TTL ms).
pub(super) struct Charge<'a> {
    pub(super) member: &'a str,
    pub(super) owner: &'a str,
    pub(super) bytes: usize,
    pub(super) version: u64,
    pub(super) expires: (i64, u64),
}

/// `EVAL` of the caps check for the task `charge` names.
pub(super) fn caps(
    (total_key, owner_key): (&str, &str),
    budget: &Budget,
    charge: &Charge<'_>,
    limits: TaskLimits,
    now_ms: i64,
) -> Cmd {
    let mut command = CAPS.call(5);
    command
        .arg(total_key)
        .arg(owner_key)
        .arg(&budget.held)
        .arg(&budget.charges)
        .arg(&budget.bytes)
        .arg(now_ms)
        .arg(charge.expires.0)
        .arg(limits.total)
        .arg(limits.per_principal)
        .arg(charge.member)
        .arg(charge.expires.1)
        .arg(charge.owner)
        .arg(charge.bytes)
        .arg(limits.bytes_per_principal)
        .arg(limits.bytes_total);
    command
}

/// `EVAL` of a charge: before the write (`settle` false: never lowered)
/// or after it (exact).
pub(super) fn charge(
    budget: &Budget,
    charge: &Charge<'_>,
    settle: bool,
    limits: TaskLimits,
    now_ms: i64,
) -> Cmd {
    let mut command = CHARGE.call(3);
    command
        .arg(&budget.held)
        .arg(&budget.charges)
        .arg(&budget.bytes)
        .arg(now_ms)
        .arg(charge.member)
        .arg(charge.owner)
        .arg(charge.bytes)
        .arg(charge.version)
        .arg(u8::from(settle))
        .arg(charge.expires.0)
        .arg(charge.expires.1)
        .arg(limits.bytes_per_principal)
        .arg(limits.bytes_total);
    command
}

/// What a charge answered: `true` when it was kept higher than asked (the
/// write that follows settles it).
pub(super) fn charged(reply: &Value) -> Result<bool, TaskStoreError> {
    match reply {
        Value::Int(1) => Ok(false),
        Value::Int(2) => Ok(true),
        Value::Int(0) => Err(TaskStoreError::PrincipalOverBudget),
        Value::Int(-1) => Err(TaskStoreError::OverBudget),
        _ => Err(unexpected("the budget's charge")),
    }
}

/// `EVAL` giving back the charge of `member`.
pub(super) fn uncharge(budget: &Budget, member: &str) -> Cmd {
    let mut command = UNCHARGE.call(3);
    command
        .arg(&budget.held)
        .arg(&budget.charges)
        .arg(&budget.bytes)
        .arg(member);
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
        Value::Int(-2) => Err(TaskStoreError::OverBudget),
        Value::Int(-3) => Err(TaskStoreError::PrincipalOverBudget),
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
pub(super) fn create(key: &str, (head, body): (&[u8], &[u8]), ttl_ms: u64) -> Cmd {
    let mut command = CREATE.call(1);
    command.arg(key).arg(head).arg(body).arg(ttl_ms);
    command
}

/// `EVAL` of compare and replace.
pub(super) fn replace(key: &str, version: u64, (head, body): (&[u8], &[u8]), ttl_ms: u64) -> Cmd {
    let mut command = REPLACE.call(1);
    command
        .arg(key)
        .arg(version.to_string())
        .arg(head)
        .arg(body)
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

/// `HMGET key v h b`: a task's version, head and body.
pub(super) fn load(key: &str) -> Cmd {
    let mut command = redis::cmd("HMGET");
    command.arg(key).arg("v").arg("h").arg("b");
    command
}

/// `HMGET key v h`: a task's version and head, without its body.
pub(super) fn load_head(key: &str) -> Cmd {
    let mut command = redis::cmd("HMGET");
    command.arg(key).arg("v").arg("h");
    command
}

/// What `HMGET key v h b` answered: the task, or `None` when the key is
/// gone.
pub(super) fn loaded(reply: Value) -> Result<Option<Stored>, TaskStoreError> {
    let Some([version, head, body]) = fields(reply)? else {
        return Ok(None);
    };
    Ok(Some(Stored {
        version: version_of(&version)?,
        head,
        body,
    }))
}

/// What `HMGET key v h` answered: the task's head, or `None` when the key
/// is gone.
pub(super) fn loaded_head(reply: Value) -> Result<Option<StoredHead>, TaskStoreError> {
    let Some([version, head]) = fields(reply)? else {
        return Ok(None);
    };
    Ok(Some(StoredHead {
        version: version_of(&version)?,
        head,
    }))
}

/// The `N` fields `HMGET` answered, `None` when all are nil (the key is
/// gone), an error when some are and some are not.
fn fields<const N: usize>(reply: Value) -> Result<Option<[Vec<u8>; N]>, TaskStoreError> {
    let Value::Array(fields) = reply else {
        return Err(unexpected("HMGET"));
    };
    if fields.len() == N && fields.iter().all(|field| matches!(field, Value::Nil)) {
        return Ok(None);
    }
    let bytes: Vec<Vec<u8>> = fields
        .into_iter()
        .map(|field| match field {
            Value::BulkString(bytes) => Ok(bytes),
            _ => Err(unexpected("HMGET")),
        })
        .collect::<Result<_, _>>()?;
    <[Vec<u8>; N]>::try_from(bytes)
        .map(Some)
        .map_err(|_| unexpected("HMGET"))
}

/// A version as the hash holds it: decimal text.
fn version_of(text: &[u8]) -> Result<u64, TaskStoreError> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|text| text.parse().ok())
        .ok_or_else(|| unexpected("HMGET"))
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
        assert_eq!(admitted(&Value::Int(-2)).unwrap_err().code(), "over_budget");
        assert_eq!(
            admitted(&Value::Int(-3)).unwrap_err().code(),
            "principal_over_budget"
        );
        assert!(!charged(&Value::Int(1)).unwrap());
        assert!(charged(&Value::Int(2)).unwrap());
        assert_eq!(
            charged(&Value::Int(0)).unwrap_err().code(),
            "principal_over_budget"
        );
        assert_eq!(charged(&Value::Int(-1)).unwrap_err().code(), "over_budget");
        assert_eq!(admitted(&Value::Nil).unwrap_err().code(), "unavailable");
    }

    #[test]
    fn a_task_reads_back_from_its_hash_or_fails_closed() {
        let found = loaded(Value::Array(vec![bulk(b"7"), bulk(b"\x00h"), bulk(b"b")])).unwrap();
        assert_eq!(
            found,
            Some(Stored {
                version: 7,
                head: b"\x00h".to_vec(),
                body: b"b".to_vec(),
            })
        );
        let head = loaded_head(Value::Array(vec![bulk(b"7"), bulk(b"h")])).unwrap();
        assert_eq!(
            head,
            Some(StoredHead {
                version: 7,
                head: b"h".to_vec()
            })
        );
        assert_eq!(
            loaded(Value::Array(vec![Value::Nil, Value::Nil, Value::Nil])).unwrap(),
            None
        );
        assert_eq!(
            loaded_head(Value::Array(vec![Value::Nil, Value::Nil])).unwrap(),
            None
        );
        for odd in [
            Value::Nil,
            Value::Array(vec![bulk(b"x"), bulk(b"h"), bulk(b"b")]),
            Value::Array(vec![bulk(b"-1"), bulk(b"h"), bulk(b"b")]),
            Value::Array(vec![bulk(b"1"), bulk(b"h"), Value::Nil]),
            Value::Array(vec![bulk(b"1"), bulk(b"h")]),
            Value::Array(vec![Value::Nil, Value::Nil]),
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
