//! The generation of a guard's memory: which memory a token was minted
//! under, so that a guard that lost its memory refuses what it cannot vouch
//! for, without reading a clock.

use std::fmt;

/// Which memory of a replay guard a token was minted under: 8 random
/// bytes, new each time the guard's memory starts afresh.
///
/// A guard hands the codec its current generation when a token is minted
/// ([`ReplayGuard::generation`](crate::state::ReplayGuard::generation)); the
/// token carries it (claim `gen`, `docs/FORMAT.md` §5), and the guard that
/// consumes it refuses a token of another generation
/// ([`ReplayError::GenerationChanged`](crate::state::ReplayError::GenerationChanged)):
/// whatever the old memory recorded may be gone, so the token may have been
/// used already. [`MemoryReplayGuard`](crate::state::MemoryReplayGuard)
/// draws one per process; the Redis guard keeps one in Redis beside its
/// keys and draws a new one on every loss it sees.
///
/// Not secret: the token's tag covers it, so a client cannot change it.
/// `Display` is lower-case hex; the claims spell it in unpadded base64url.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Generation([u8; 8]);

impl Generation {
    /// The generation these bytes spell.
    pub const fn from_bytes(bytes: [u8; 8]) -> Self {
        Self(bytes)
    }

    /// A fresh generation from the operating system's generator; `None`
    /// when it fails.
    pub fn random() -> Option<Self> {
        let mut bytes = [0u8; 8];
        crate::state::keys::fill_random(&mut bytes).ok()?;
        Some(Self(bytes))
    }

    /// The generation's bytes.
    pub fn as_bytes(&self) -> &[u8; 8] {
        &self.0
    }

    /// The generation spelled in lower-case hex (16 digits), as
    /// [`Display`](fmt::Display) writes it; `None` for any other text.
    pub fn parse_hex(text: &str) -> Option<Self> {
        if text.len() != 16 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            return None;
        }
        u64::from_str_radix(text, 16)
            .ok()
            .map(|value| Self(value.to_be_bytes()))
    }
}

/// Lower-case hex, 16 digits.
impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", u64::from_be_bytes(self.0))
    }
}

impl fmt::Debug for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Generation({self})")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "test code: a panic is a failing test")]
mod tests {
    use super::Generation;

    #[test]
    fn hex_round_trips_and_is_strict() {
        let generation = Generation::from_bytes([0, 1, 0xab, 0xcd, 0xef, 0x10, 0x7f, 0xff]);
        assert_eq!(generation.to_string(), "0001abcdef107fff");
        assert_eq!(Generation::parse_hex("0001abcdef107fff"), Some(generation));
        for bad in [
            "0001ABCDEF107FFF",
            "0001abcdef107ff",
            "+001abcdef107fff",
            "",
        ] {
            assert_eq!(Generation::parse_hex(bad), None, "{bad}");
        }
        assert_ne!(Generation::random().unwrap(), Generation::random().unwrap());
    }
}
