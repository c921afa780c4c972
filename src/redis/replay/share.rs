//! A principal's share on Redis: a sorted set per principal key, beside the
//! replay keys, checked and counted by one script before the `SET`.

use redis::{Cmd, Value};
use time::OffsetDateTime;

use crate::redis::error::unexpected;
use crate::redis::lua::Lua;
use crate::redis::replay::error::failed;
use crate::state::ReplayError;

/// The share check, atomic on one key (the principal's sorted set):
/// forgets entries whose retention has passed, admits a member already
/// counted (a retry, or a replay that `SET NX` then refuses), refuses past
/// the share, else counts the member and keeps the set as long as its
/// longest entry. `ARGV`: now and retention (Unix ms), share, member, TTL ms.
static SHARE_SCRIPT: Lua = Lua::new(&["\
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
return 1
"]);

/// The share check of `member` (`flow:round`) on `key`, the principal's
/// sorted set: a call of [`SHARE_SCRIPT`].
pub(super) fn script(
    key: String,
    member: String,
    share: usize,
    retain_until: OffsetDateTime,
    now: OffsetDateTime,
    ttl_ms: u64,
) -> Cmd {
    let mut script = SHARE_SCRIPT.call(1);
    script
        .arg(key)
        .arg(unix_ms(now))
        .arg(unix_ms(retain_until))
        .arg(share)
        .arg(member)
        .arg(ttl_ms);
    script
}

/// What the script answered: admitted, or [`ReplayError::ShareExceeded`]
/// when the principal holds its whole share.
pub(super) fn admitted(reply: &Value, share: usize) -> Result<(), ReplayError> {
    match reply {
        Value::Int(1) => Ok(()),
        Value::Int(0) => Err(ReplayError::ShareExceeded { share }),
        _ => Err(failed(unexpected("EVAL"))),
    }
}

/// Unix time in milliseconds (0 before 1970, which no token carries).
fn unix_ms(at: OffsetDateTime) -> u64 {
    u64::try_from(at.unix_timestamp_nanos() / 1_000_000).unwrap_or(0)
}
