//! How much of a state the answers a flow carries may take, so that no answer
//! a round accepts can make a later round's state too long to mint.
//!
//! A token holds at most [`Mode::max_claims_len`] bytes of claims
//! (`docs/FORMAT.md` §§1, 2). The claims (§5) are a skeleton of fixed
//! members, the carried answers (`ans`: client-sized, and growing from round
//! to round), and the state's own part (`q`, `inv`, `once`, `step`, `app`: what the
//! handler chose, rebuilt every round). The room the skeleton leaves is
//! split once: three quarters for the answers, one quarter for the own part.
//! Each part is held to its share, the answers when a round accepts one, the
//! own part when a round mints, so every state fits.

use std::collections::{BTreeMap, BTreeSet};
use std::io;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::json::JsonDigest;
use crate::state::{
    ANSWER_FRAME_LEN, GEN_MEMBER_LEN, INV_MEMBER_LEN, Mode, ONCE_MEMBER_LEN, Policy, Reask,
    SKELETON_LEN, STEP_MEMBER_LEN,
};

/// The two shares of the claims a state may fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// For the carried answers, each counted as [`answer_len`] says.
    pub(crate) answers: usize,
    /// For the state's own part, counted as [`own_len`] says.
    pub(crate) own: usize,
}

impl Budget {
    /// The shares for tokens of `mode` under `policy`.
    pub(crate) fn new(mode: Mode, policy: &Policy) -> Self {
        let room = mode
            .max_claims_len(policy.max_token_len())
            .saturating_sub(SKELETON_LEN);
        let answers = (room / 4)
            .saturating_mul(3)
            .saturating_add((room % 4).saturating_mul(3) / 4);
        Self {
            answers,
            own: room.saturating_sub(answers),
        }
    }
}

/// What carrying `response` under `key` takes of the claims: the key and
/// the response as JSON, and the answer's frame.
pub(crate) fn answer_len(key: &str, response: &Map<String, Value>) -> usize {
    json_len(key)
        .saturating_add(json_len(response))
        .saturating_add(ANSWER_FRAME_LEN)
}

/// What the state's own part takes of the claims beyond the skeleton: the
/// questions, the re-asks, the effect names and the steps' results (their
/// members only when not empty), the application data, and room for the
/// replay guard's generation (`gen`), counted whether or not the codec has
/// a guard.
pub(crate) fn own_len<A: Serialize>(
    questions: &BTreeMap<String, JsonDigest>,
    reasks: &BTreeMap<String, Reask>,
    (ran, steps): (&BTreeSet<String>, &BTreeMap<String, Value>),
    app: &A,
) -> usize {
    let member = |empty: bool, name: usize, len: usize| {
        if empty { 0 } else { name.saturating_add(len) }
    };
    json_len(questions)
        .saturating_sub("{}".len())
        .saturating_add(json_len(app))
        .saturating_add(member(reasks.is_empty(), INV_MEMBER_LEN, json_len(reasks)))
        .saturating_add(member(ran.is_empty(), ONCE_MEMBER_LEN, json_len(ran)))
        .saturating_add(member(steps.is_empty(), STEP_MEMBER_LEN, json_len(steps)))
        .saturating_add(GEN_MEMBER_LEN)
}

/// The length of `value` as the claims hold it (compact `serde_json`),
/// counted without keeping the text.
fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

/// A writer that only counts.
struct Count(usize);

impl io::Write for Count {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 = self.0.saturating_add(bytes.len());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default policy's shares, as `docs/FORMAT.md` §5.4 computes them.
    #[test]
    fn default_shares() {
        let policy = Policy::default();
        assert_eq!(
            Budget::new(Mode::Sealed, &policy),
            Budget {
                answers: 4476,
                own: 1492
            }
        );
        assert_eq!(
            Budget::new(Mode::Signed, &policy),
            Budget {
                answers: 4482,
                own: 1494
            }
        );
        // The smallest limit leaves no room at all: nothing can be carried.
        let tiny = policy.with_max_token_len(Policy::MIN_MAX_TOKEN_LEN);
        assert_eq!(
            Budget::new(Mode::Sealed, &tiny),
            Budget {
                answers: 12,
                own: 4
            }
        );
    }
}
