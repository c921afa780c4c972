//! [`TaskId`]: 128 bits from the OS random generator, as 32 hex digits.

use std::fmt;

use crate::state::fill_random;

/// A task's id: 128 bits from the operating system's random number
/// generator, written as 32 lowercase hex digits. Unguessable, so that it
/// can name the task on the wire; it is not what makes the task its
/// principal's (every request is checked against the principal that created
/// the task).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId([u8; 16]);

impl TaskId {
    /// A fresh id; `None` when the OS random generator fails.
    #[must_use]
    pub fn random() -> Option<Self> {
        let mut bytes = [0u8; 16];
        fill_random(&mut bytes).ok()?;
        Some(Self(bytes))
    }

    /// The id written as `text`, if it is one this crate makes (32
    /// lowercase hex digits); anything else names no task.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        if text.len() != 32 {
            return None;
        }
        let mut bytes = [0u8; 16];
        for (slot, pair) in bytes.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
            let digit = |byte: u8| match byte {
                b'0'..=b'9' => byte.checked_sub(b'0'),
                b'a'..=b'f' => byte.checked_sub(b'a' - 10),
                _ => None,
            };
            *slot = digit(*pair.first()?)? << 4 | digit(*pair.get(1)?)?;
        }
        Some(Self(bytes))
    }

    /// The id's 16 bytes.
    #[must_use]
    pub fn to_bytes(self) -> [u8; 16] {
        self.0
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
    }
}

impl fmt::Debug for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TaskId({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_fresh_and_read_back_only_as_written() {
        let a = TaskId::random().expect("random");
        let b = TaskId::random().expect("random");
        assert_ne!(a, b);
        assert_eq!(a.to_string().len(), 32);
        assert_eq!(TaskId::parse(&a.to_string()), Some(a));
        for text in [
            "",
            "gate-test",
            "tasks-conformance-nonexistent-12345",
            &a.to_string().to_uppercase(),
            &format!("{a}0"),
            &a.to_string()[..31],
            "0123456789abcdef0123456789abcdeg",
        ] {
            assert_eq!(TaskId::parse(text), None, "{text}");
        }
    }
}
