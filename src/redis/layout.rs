//! The key layout on Redis, written once: every key the replay guard, the
//! task store and the connection store write is built here ([`Key`]), under
//! one prefix rule, and every one is written with a relative TTL
//! ([`time_to_live_ms`]).
//! `docs/REDIS.md` is its document (each key's type, TTL and writer, the
//! prefix rule, the Cluster hash tag); a test below reads that document's
//! table and fails when the two differ.

use std::fmt::Write as _;

use time::OffsetDateTime;

use crate::state::{FlowId, PrincipalKey};
use crate::task::TaskId;

/// The prefix of every key, for both contracts, unless a builder's
/// `key_prefix` sets another.
pub(crate) const DEFAULT_PREFIX: &str = "mrtr-guard";

/// Whether `prefix` may start keys: it is not empty (the layout's hash tag
/// `{prefix}` would be `{}`, which Redis Cluster ignores, placing the task
/// store's two caps sets in two slots) and holds no `{` or `}`, which Redis
/// Cluster would read as a hash tag and place keys by, instead of the
/// layout's one tag.
pub(crate) fn valid_prefix(prefix: &str) -> bool {
    !prefix.is_empty() && !prefix.contains(['{', '}'])
}

/// Every key the client's contracts write: the prefix, `:`, then each
/// contract's part.
pub(crate) enum Key<'a> {
    /// The replay guard's record that (flow id, round) was consumed, in
    /// its flow's group (`crate::redis::generation`).
    Round(FlowId, u32),
    /// The generation of a group's memory (`crate::redis::generation`).
    Generation(u8),
    /// The replay guard's count of a principal's live entries.
    Share(PrincipalKey),
    /// The task store's hash of one task: its version and sealed record.
    Task(&'a TaskId),
    /// The task store's remembered answer of a final round.
    Answer(&'a [u8; 32]),
    /// The task store's count of every task, for the total cap.
    Tasks,
    /// The task store's count of one owner's tasks, for its cap.
    OwnerTasks(PrincipalKey),
    /// The task store's charges (tasks and answers) by expiry, for the
    /// byte budgets.
    Held,
    /// The task store's charge of each task and answer.
    Charges,
    /// The task store's bytes held, by owner and in all.
    Bytes,
    /// The task store's sweep index: tasks by the time they are due.
    Due,
    /// The task store's fleet record: what the instances sharing it agree
    /// on.
    Fleet,
    /// The connection store's sealed connection of an owner, by name.
    Connection(PrincipalKey, &'a str),
}

impl Key<'_> {
    /// The key under `prefix`.
    pub(crate) fn under(&self, prefix: &str) -> String {
        match self {
            // `{<group>}` is the hash tag: a flow's keys and its group's
            // generation in one slot.
            // The two keys of every consume, built without `format!` (a
            // third of their cost): `<prefix>:replay:{gg}:<flow id>:<round>`.
            Self::Round(flow_id, round) => {
                let mut key = String::with_capacity(prefix.len().saturating_add(64));
                key.push_str(prefix);
                key.push_str(":replay:{");
                push_hex(&mut key, &[group_of(*flow_id)]);
                key.push_str("}:");
                push_hex(&mut key, flow_id.as_bytes());
                // Writing to a String cannot fail.
                let _ = write!(key, ":{round}");
                key
            }
            Self::Generation(group) => {
                let mut key = String::with_capacity(prefix.len().saturating_add(24));
                key.push_str(prefix);
                key.push_str(":replay:generation:{");
                push_hex(&mut key, &[*group]);
                key.push('}');
                key
            }
            Self::Share(principal) => format!("{prefix}:replay:share:{principal}"),
            Self::Task(id) => format!("{prefix}:task:{id}"),
            Self::Answer(key) => format!("{prefix}:answer:{}", hex(*key)),
            // `{prefix}` is the hash tag: both caps' sets in one slot.
            Self::Tasks => format!("{prefix}:tasks:{{{prefix}}}:all"),
            Self::OwnerTasks(owner) => format!("{prefix}:tasks:{{{prefix}}}:owner:{owner}"),
            Self::Held => format!("{prefix}:tasks:{{{prefix}}}:held"),
            Self::Charges => format!("{prefix}:tasks:{{{prefix}}}:charges"),
            Self::Bytes => format!("{prefix}:tasks:{{{prefix}}}:bytes"),
            Self::Due => format!("{prefix}:tasks:{{{prefix}}}:due"),
            Self::Fleet => format!("{prefix}:fleet"),
            // The name hex-encoded: any text, one key.
            Self::Connection(owner, name) => {
                format!("{prefix}:connection:{owner}:{}", hex(name.as_bytes()))
            }
        }
    }
}

/// How many groups the flows are split into (`crate::redis::generation`):
/// one per value of a flow id's first byte.
pub(crate) const GROUPS: usize = 256;

/// The group of `flow`'s keys: the hash tag of its round keys and of its
/// group's generation.
pub(crate) fn group_of(flow: FlowId) -> u8 {
    flow.as_bytes().first().copied().unwrap_or(0)
}

/// The member a principal's share counts a round by: `<flow id>:<round>`.
pub(crate) fn round_member(flow_id: FlowId, round: u32) -> String {
    format!("{flow_id}:{round}")
}

/// `bytes` in lowercase hex.
fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().saturating_mul(2));
    push_hex(&mut text, bytes);
    text
}

/// Appends `bytes` to `text` in lowercase hex.
fn push_hex(text: &mut String, bytes: &[u8]) {
    for byte in bytes {
        for nibble in [byte >> 4, byte & 0x0f] {
            text.push(char::from_digit(u32::from(nibble), 16).unwrap_or('0'));
        }
    }
}

/// Milliseconds from `now` until `retain_until` (for `PX`), rounded up so that the
/// entry never disappears early, and at least 1: `PX 0` is an error in Redis
/// (a contract only writes what has not expired).
pub(crate) fn time_to_live_ms(retain_until: OffsetDateTime, now: OffsetDateTime) -> u64 {
    let nanos = retain_until
        .unix_timestamp_nanos()
        .saturating_sub(now.unix_timestamp_nanos());
    let ms = nanos
        .saturating_add(999_999)
        .checked_div(1_000_000)
        .unwrap_or(1);
    u64::try_from(ms.max(1)).unwrap_or(u64::MAX)
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    reason = "test code: a panic is a failing test"
)]
mod tests {
    use std::collections::BTreeSet;

    use time::Duration;

    use super::*;

    /// The document the layout is written in.
    const DOC: &str = include_str!("../../docs/REDIS.md");

    /// The heading of the document's table of keys.
    const TABLE: &str = "## The keys";

    const FLOW: [u8; 16] = [0xab; 16];
    const ROUND: u32 = 7;
    const PRINCIPAL: [u8; 16] = [0x01; 16];
    const TASK: &str = "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd";
    const ANSWER: [u8; 32] = [0x0f; 32];
    const NAME: &str = "contacts";

    /// One of each key, in the order the document lists them: the match
    /// names every kind, so a kind added to [`Key`] does not compile here
    /// until it has its place (and so its row in the document).
    fn every_key(task: &TaskId) -> Vec<Key<'_>> {
        let mut keys = Vec::new();
        let mut next = Some(Key::Round(FlowId::from_bytes(FLOW), ROUND));
        while let Some(key) = next {
            next = match key {
                Key::Round(..) => Some(Key::Generation(FLOW[0])),
                Key::Generation(_) => Some(Key::Share(PrincipalKey::from_bytes(PRINCIPAL))),
                Key::Share(_) => Some(Key::Task(task)),
                Key::Task(_) => Some(Key::Answer(&ANSWER)),
                Key::Answer(_) => Some(Key::Tasks),
                Key::Tasks => Some(Key::OwnerTasks(PrincipalKey::from_bytes(PRINCIPAL))),
                Key::OwnerTasks(_) => Some(Key::Held),
                Key::Held => Some(Key::Charges),
                Key::Charges => Some(Key::Bytes),
                Key::Bytes => Some(Key::Due),
                Key::Due => Some(Key::Fleet),
                Key::Fleet => Some(Key::Connection(PrincipalKey::from_bytes(PRINCIPAL), NAME)),
                Key::Connection(..) => None,
            };
            keys.push(key);
        }
        keys
    }

    /// The first cell of each row of the document's table of keys: the
    /// key templates, `<placeholder>`s and all.
    fn documented() -> Vec<String> {
        let start = DOC.find(TABLE).unwrap() + TABLE.len();
        let section = DOC[start..].split("\n## ").next().unwrap();
        let rows: Vec<&str> = section
            .lines()
            .filter(|line| line.starts_with('|'))
            .collect();
        assert!(rows.len() > 2, "no table under {TABLE:?} in docs/REDIS.md");
        rows[2..]
            .iter()
            .map(|row| {
                let cell = row.split('|').nth(1).unwrap().trim();
                cell.strip_prefix('`')
                    .and_then(|cell| cell.strip_suffix('`'))
                    .unwrap_or_else(|| panic!("not a `key` cell: {cell}"))
                    .to_owned()
            })
            .collect()
    }

    /// A template's key for the sample values above.
    fn filled(template: &str) -> String {
        let hex16 = |byte: u8| format!("{byte:02x}").repeat(16);
        template
            .replace("<prefix>", "shop")
            .replace("<flow id>", &hex16(FLOW[0]))
            .replace("<group>", &format!("{:02x}", FLOW[0]))
            .replace("<round>", &ROUND.to_string())
            .replace("<principal key>", &hex16(PRINCIPAL[0]))
            .replace("<task id>", TASK)
            .replace("<answer key>", &hex(&ANSWER))
            .replace("<connection name>", &hex(NAME.as_bytes()))
    }

    #[test]
    fn every_key_is_in_docs_redis_md_and_every_documented_key_is_built() {
        let task = TaskId::parse(TASK).unwrap();
        let built: Vec<String> = every_key(&task)
            .iter()
            .map(|key| key.under("shop"))
            .collect();
        let documented = documented();
        for template in &documented {
            assert!(
                !filled(template).contains('<'),
                "a placeholder the test does not know: {template}"
            );
        }
        let documented: Vec<String> = documented.iter().map(|t| filled(t)).collect();
        assert_eq!(
            built.len(),
            documented.len(),
            "keys built {built:#?}, documented {documented:#?}"
        );
        assert_eq!(
            built.iter().collect::<BTreeSet<_>>(),
            documented.iter().collect::<BTreeSet<_>>(),
            "docs/REDIS.md's table and Key::under differ"
        );
        assert_eq!(
            built, documented,
            "docs/REDIS.md lists the keys in Key's order"
        );
    }

    #[test]
    fn the_default_prefix_is_the_documented_one() {
        assert!(
            DOC.contains(&format!("(default `{DEFAULT_PREFIX}`)")),
            "docs/REDIS.md names another default prefix"
        );
    }

    #[test]
    fn the_caps_sets_share_a_hash_tag_a_group_has_one_and_nothing_else_has_one() {
        let task = TaskId::parse(TASK).unwrap();
        for key in every_key(&task) {
            let text = key.under("shop");
            let tagged = matches!(
                key,
                Key::Tasks | Key::OwnerTasks(_) | Key::Held | Key::Charges | Key::Bytes | Key::Due
            );
            let grouped = matches!(key, Key::Round(..) | Key::Generation(_));
            assert_eq!(text.contains("{shop}"), tagged, "{text}");
            assert_eq!(text.contains("{ab}"), grouped, "{text}");
            assert_eq!(
                text.matches('{').count(),
                usize::from(tagged || grouped),
                "{text}"
            );
        }
        assert!(valid_prefix("shop:eu"));
        for prefix in ["a{b", "a}b", "{}"] {
            assert!(!valid_prefix(prefix), "{prefix}");
        }
    }

    #[test]
    fn round_and_generation_keys_spell_their_bytes_as_the_flow_id_does() {
        let bytes: [u8; 16] = std::array::from_fn(|i| u8::try_from(i * 17).unwrap());
        let flow = FlowId::from_bytes(bytes);
        assert_eq!(
            Key::Round(flow, 4_294_967_295).under("p"),
            format!("p:replay:{{00}}:{flow}:4294967295")
        );
        assert_eq!(
            Key::Round(FlowId::from_bytes([0x0f; 16]), 0).under(""),
            format!(":replay:{{0f}}:{}:0", "0f".repeat(16))
        );
        assert_eq!(Key::Generation(0xa5).under("p"), "p:replay:generation:{a5}");
        assert_eq!(hex(&[0x00, 0x09, 0xf0, 0xff]), "0009f0ff");
    }

    #[test]
    fn ttl_is_milliseconds_until_expiry_and_never_zero() {
        let at =
            |seconds: i64| OffsetDateTime::from_unix_timestamp(1_800_000_000 + seconds).unwrap();
        assert_eq!(time_to_live_ms(at(600), at(0)), 600_000);
        assert_eq!(
            time_to_live_ms(at(0) + Duration::milliseconds(1500), at(0)),
            1500
        );
        assert_eq!(
            time_to_live_ms(at(0) + Duration::nanoseconds(1_000_001), at(0)),
            2,
            "rounded up"
        );
        assert_eq!(time_to_live_ms(at(0), at(0)), 1);
        assert_eq!(time_to_live_ms(at(0), at(5)), 1);
    }
}
