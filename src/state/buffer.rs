//! The buffer a token is minted in: wiped when dropped, and when it grows.

use zeroize::Zeroizing;

use crate::state::layout::Mode;

/// The buffer a new token is built in: zeroed room for the header, then the
/// claims, then the tag. The claims are secret until the token is minted
/// (carried answers, application data), so the buffer is wiped when dropped and, unlike a bare
/// `Zeroizing<Vec<u8>>`, also wipes the allocation it leaves behind when it
/// grows (a `Vec` that grows copies its bytes and frees the old allocation
/// as it is).
pub(crate) struct TokenBuffer(Zeroizing<Vec<u8>>);

impl TokenBuffer {
    /// Room for the header of a token of `mode`, and space for
    /// `claims_len` bytes of claims and the tag: when the claims take no
    /// more, the buffer never grows (so never copies and wipes them).
    pub(crate) fn new(mode: Mode, claims_len: usize) -> Self {
        let capacity = mode.min_len().saturating_add(claims_len);
        let mut bytes = Zeroizing::new(Vec::with_capacity(capacity));
        bytes.resize(mode.header_len(), 0);
        Self(bytes)
    }

    /// Makes room for `extra` more bytes, moving to a new allocation (and
    /// wiping the old one) when there is not enough.
    #[inline]
    pub(crate) fn reserve(&mut self, extra: usize) {
        if extra > self.0.capacity().saturating_sub(self.0.len()) {
            self.grow(extra);
        }
    }

    /// Moves to an allocation with room for `extra` more bytes, at least
    /// twice as large, and wipes the old one.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, extra: usize) {
        let needed = self.0.len().saturating_add(extra);
        let capacity = needed.max(self.0.capacity().saturating_mul(2));
        let mut bigger = Zeroizing::new(Vec::with_capacity(capacity));
        bigger.extend_from_slice(&self.0);
        // The old allocation is dropped here, and so wiped.
        self.0 = bigger;
    }

    /// Appends `bytes`. Inlined into the serializer's many small writes:
    /// only growing is a call.
    #[inline(always)]
    pub(crate) fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.reserve(bytes.len());
        self.0.extend_from_slice(bytes);
    }

    /// The bytes so far.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        self.0.as_mut_slice()
    }

    /// The finished token's bytes, once they are ciphertext or signed
    /// claims the client may read: nothing is left to wipe.
    pub(crate) fn into_minted(mut self) -> Vec<u8> {
        std::mem::take(&mut *self.0)
    }
}

impl std::io::Write for TokenBuffer {
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use super::*;

    #[test]
    fn token_buffer_keeps_its_bytes_when_it_grows() {
        let mut buffer = TokenBuffer::new(Mode::Signed, 0);
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        for chunk in data.chunks(7) {
            std::io::Write::write_all(&mut buffer, chunk).unwrap();
        }
        buffer.reserve(32);
        let mut expected = vec![0u8; crate::state::layout::SIGNED_HEADER_LEN];
        expected.extend_from_slice(&data);
        assert_eq!(buffer.as_mut_slice(), &expected[..]);
        assert!(buffer.0.capacity() >= expected.len() + 32);
        assert_eq!(buffer.into_minted(), expected);
    }

    /// Claims within the size given, and the tag, fit without growing.
    #[test]
    fn token_buffer_sized_for_its_claims_does_not_grow() {
        let mut buffer = TokenBuffer::new(Mode::Sealed, 600);
        let capacity = buffer.0.capacity();
        buffer.extend_from_slice(&[1; 600]);
        buffer.extend_from_slice(&[2; crate::state::layout::AEAD_TAG_LEN]);
        assert_eq!(buffer.0.capacity(), capacity);
        assert_eq!(
            buffer.0.len(),
            crate::state::layout::SEALED_HEADER_LEN + 600 + crate::state::layout::AEAD_TAG_LEN
        );
    }
}
