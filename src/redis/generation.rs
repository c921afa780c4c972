//! The generation of Redis' memory, kept in Redis beside the replay keys:
//! one record per group of flows, in the slot of the group's keys, so that
//! a Redis (a cluster master) that lost its memory lost the record with
//! the keys, and a script that checks the record and writes a key in one
//! step refuses what the lost memory recorded.
//!
//! A flow's group is its id's first byte (256 groups): every round key of
//! the flow carries the group's hash tag, as does the group's record, so on
//! a cluster each group (record and keys) lives on one master. The record
//! holds the group's [`Generation`] in lower-case hex, without a TTL.
//!
//! [`GENERATION_SCRIPT`] reads a record, creating it when it is missing (a
//! new Redis, or one that lost its memory), and moves it to a new
//! generation when the client saw a loss the record survived (a restart
//! with persistence, a failover, an eviction): only from the generation
//! the client knew, so that instances that saw the same loss move it once
//! (from whatever it holds, when the client never read it).

use redis::{Cmd, Value};

use crate::redis::layout::Key;
pub(crate) use crate::redis::layout::{GROUPS, group_of};
use crate::redis::lua::Lua;
use crate::state::Generation;

/// Reads a group's record (`KEYS[1]`), atomically: creates it with the
/// candidate (`ARGV[2]`) when it is missing, and replaces it with the
/// candidate when it holds the generation the client knew before a loss
/// (`ARGV[1]`; empty for a plain read, `*` to replace whatever it holds).
/// Returns the record's generation.
/// Its first command is a write, so a full Redis refuses it whole (`OOM`).
static GENERATION_SCRIPT: Lua = Lua::new(&["\
if redis.call('SETNX', KEYS[1], ARGV[2]) == 1 then return ARGV[2] end
local g = redis.call('GET', KEYS[1])
if g == ARGV[1] or ARGV[1] == '*' then
  redis.call('SET', KEYS[1], ARGV[2])
  return ARGV[2]
end
return g
"]);
/// The read (or, with `known` a generation's text, the move from it) of
/// `group`'s record under `prefix`: a call of [`GENERATION_SCRIPT`]. An
/// empty `known` reads; `*` moves the record from whatever it holds.
pub(crate) fn script(prefix: &str, group: u8, known: &str, candidate: Generation) -> Cmd {
    let mut script = GENERATION_SCRIPT.call(1);
    script
        .arg(Key::Generation(group).under(prefix))
        .arg(known)
        .arg(candidate.to_string());
    script
}

/// The generation a reply spells (the record's text); `None` for anything
/// else.
pub(crate) fn generation_of(reply: &Value) -> Option<Generation> {
    match reply {
        Value::BulkString(bytes) => std::str::from_utf8(bytes)
            .ok()
            .and_then(Generation::parse_hex),
        Value::SimpleString(text) => Generation::parse_hex(text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::FlowId;

    #[test]
    fn a_flow_is_grouped_by_its_first_byte_and_replies_parse_strictly() {
        let mut bytes = [0u8; 16];
        bytes[0] = 0xab;
        assert_eq!(group_of(FlowId::from_bytes(bytes)), 0xab);
        let generation = Generation::from_bytes([1, 2, 3, 4, 5, 6, 7, 8]);
        let reply = Value::BulkString(b"0102030405060708".to_vec());
        assert_eq!(generation_of(&reply), Some(generation));
        assert_eq!(generation_of(&Value::BulkString(b"xyz".to_vec())), None);
        assert_eq!(generation_of(&Value::Nil), None);
    }
}
