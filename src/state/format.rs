//! The token's byte layout, its one base64 spelling, and the authenticated
//! context. `docs/FORMAT.md` describes the same bytes for other languages.
//!
//! ```text
//! sealed (0x01): version(1) | key id(4) | nonce(24) | ciphertext(n) | tag(16)
//! signed (0x02): version(1) | key id(4) | claims(n)                 | tag(32)
//! ```

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use zeroize::Zeroizing;

use crate::state::binding::Binding;
use crate::state::keys::KeyId;

/// The version byte of a sealed (XChaCha20-Poly1305) token.
pub(crate) const VERSION_SEALED: u8 = 0x01;
/// The version byte of a signed (HMAC-SHA256) token.
pub(crate) const VERSION_SIGNED: u8 = 0x02;

pub(crate) const KEY_ID_LEN: usize = 4;
pub(crate) const NONCE_LEN: usize = 24;
pub(crate) const AEAD_TAG_LEN: usize = 16;
pub(crate) const MAC_TAG_LEN: usize = 32;

/// Bytes before the body of a sealed token: version, key id, nonce.
pub(crate) const SEALED_HEADER_LEN: usize = 1 + KEY_ID_LEN + NONCE_LEN;
/// Bytes before the body of a signed token: version, key id.
pub(crate) const SIGNED_HEADER_LEN: usize = 1 + KEY_ID_LEN;

const LABEL_SEALED: &[u8] = b"mrtr-guard/v1/sealed";
const LABEL_SIGNED: &[u8] = b"mrtr-guard/v1/signed";

/// Encodes token bytes: URL-safe base64, no padding.
pub(crate) fn encode_token(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes token text strictly: URL-safe alphabet only, no padding, no white
/// space, and no stray bits in the last character, so that one token has
/// exactly one spelling. Token text is not secret: the `base64` crate's
/// table-driven decoder is used (README "Cost" measures its timing).
pub(crate) fn decode_token(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text).ok()
}

/// Decodes a master key written as base64: the standard or the URL-safe
/// alphabet, padded or not (padding, when present, must be right). The text
/// is secret, so it is decoded by `base64ct` (no table lookup or branch on a
/// character) into a buffer that is wiped when dropped, and never grows.
pub(crate) fn decode_key_text(text: &str) -> Option<Zeroizing<Vec<u8>>> {
    let mut buf = Zeroizing::new(vec![0u8; text.len().div_ceil(4).saturating_mul(3)]);
    let len = decode_key_with::<base64ct::Base64>(text, &mut buf)
        .or_else(|| decode_key_with::<base64ct::Base64Unpadded>(text, &mut buf))
        .or_else(|| decode_key_with::<base64ct::Base64Url>(text, &mut buf))
        .or_else(|| decode_key_with::<base64ct::Base64UrlUnpadded>(text, &mut buf))?;
    buf.truncate(len);
    Some(buf)
}

/// Decodes `text` with one `base64ct` spelling into `buf`; the length decoded.
fn decode_key_with<E: base64ct::Encoding>(text: &str, buf: &mut [u8]) -> Option<usize> {
    E::decode(text, buf).ok().map(<[u8]>::len)
}

/// Encodes a master key as standard padded base64, in constant time, into a
/// string allocated at its final length: no freed buffer holds a copy.
pub(crate) fn encode_key_text(bytes: &[u8]) -> Zeroizing<String> {
    use base64ct::Encoding as _;
    Zeroizing::new(base64ct::Base64::encode_string(bytes))
}

/// Encodes a short identifier (flow id, digest) inside the claims.
pub(crate) fn encode_id(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes an identifier written by [`encode_id`] into exactly `N` bytes.
pub(crate) fn decode_id<const N: usize>(text: &str) -> Option<[u8; N]> {
    let bytes = URL_SAFE_NO_PAD.decode(text).ok()?;
    bytes.try_into().ok()
}

/// Fills `out` from the operating system's random number generator.
pub(crate) fn fill_random(out: &mut [u8]) -> Result<(), ()> {
    chacha20poly1305::aead::common::getrandom::fill(out).map_err(|_| ())
}

/// The two constructions a token can have. Its version byte fixes which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Mode {
    /// XChaCha20-Poly1305 with a random 24-byte nonce: the claims are
    /// encrypted and authenticated. The default.
    #[default]
    Sealed,
    /// HMAC-SHA256 with the full 32-byte tag: the claims are authenticated
    /// but travel in clear text, readable by the client.
    Signed,
}

impl Mode {
    pub(crate) fn version(self) -> u8 {
        match self {
            Self::Sealed => VERSION_SEALED,
            Self::Signed => VERSION_SIGNED,
        }
    }

    pub(crate) fn from_version(version: u8) -> Option<Self> {
        match version {
            VERSION_SEALED => Some(Self::Sealed),
            VERSION_SIGNED => Some(Self::Signed),
            _ => None,
        }
    }

    fn label(self) -> &'static [u8] {
        match self {
            Self::Sealed => LABEL_SEALED,
            Self::Signed => LABEL_SIGNED,
        }
    }

    /// The smallest well-formed token of this mode, in bytes (empty body).
    pub(crate) fn min_len(self) -> usize {
        self.header_len().saturating_add(self.tag_len())
    }

    /// The header's length: version, key id, and the nonce when sealed.
    pub(crate) fn header_len(self) -> usize {
        match self {
            Self::Sealed => SEALED_HEADER_LEN,
            Self::Signed => SIGNED_HEADER_LEN,
        }
    }

    /// The tag's length: the AEAD tag, or the full HMAC.
    fn tag_len(self) -> usize {
        match self {
            Self::Sealed => AEAD_TAG_LEN,
            Self::Signed => MAC_TAG_LEN,
        }
    }
}

/// A token split into its parts. Nothing here has been verified.
#[derive(Debug)]
pub(crate) struct RawToken<'a> {
    pub(crate) mode: Mode,
    pub(crate) key_id: KeyId,
    /// Version, key id and (sealed) nonce: everything before the body.
    pub(crate) header: &'a [u8],
    /// Ciphertext (sealed) or clear claims (signed).
    pub(crate) body: &'a [u8],
    pub(crate) tag: &'a [u8],
}

/// Why token bytes do not split into a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SplitError {
    UnknownVersion,
    Truncated,
}

impl<'a> RawToken<'a> {
    /// Splits decoded token bytes by the layout their version byte names.
    pub(crate) fn split(bytes: &'a [u8]) -> Result<Self, SplitError> {
        let (&version, _) = bytes.split_first().ok_or(SplitError::Truncated)?;
        let mode = Mode::from_version(version).ok_or(SplitError::UnknownVersion)?;
        if bytes.len() < mode.min_len() {
            return Err(SplitError::Truncated);
        }
        let (header_len, tag_len) = (mode.header_len(), mode.tag_len());
        let (header, rest) = bytes
            .split_at_checked(header_len)
            .ok_or(SplitError::Truncated)?;
        let body_len = rest
            .len()
            .checked_sub(tag_len)
            .ok_or(SplitError::Truncated)?;
        let (body, tag) = rest
            .split_at_checked(body_len)
            .ok_or(SplitError::Truncated)?;
        let key_id = header
            .get(1..=KEY_ID_LEN)
            .and_then(|id| <[u8; KEY_ID_LEN]>::try_from(id).ok())
            .ok_or(SplitError::Truncated)?;
        Ok(Self {
            mode,
            key_id: KeyId::from_bytes(key_id),
            header,
            body,
            tag,
        })
    }

    /// The nonce of a sealed token.
    pub(crate) fn nonce(&self) -> Option<&'a [u8]> {
        match self.mode {
            Mode::Sealed => self.header.get(SIGNED_HEADER_LEN..SEALED_HEADER_LEN),
            Mode::Signed => None,
        }
    }
}

/// The header of a new token: version, key id and, when sealed, the nonce.
pub(crate) fn header(mode: Mode, key_id: KeyId, nonce: Option<&[u8; NONCE_LEN]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(SEALED_HEADER_LEN);
    out.push(mode.version());
    out.extend_from_slice(&key_id.to_bytes());
    if let Some(nonce) = nonce {
        out.extend_from_slice(nonce);
    }
    out
}

/// The buffer a new token is built in: zeroed room for the header, then the
/// claims, then the tag. The claims are secret until sealed (carried answers,
/// application data), so the buffer is wiped when dropped and, unlike a bare
/// `Zeroizing<Vec<u8>>`, also wipes the allocation it leaves behind when it
/// grows (a `Vec` that grows copies its bytes and frees the old allocation
/// as it is).
pub(crate) struct TokenBuffer(Zeroizing<Vec<u8>>);

impl TokenBuffer {
    /// Room for the header of a token of `mode`, and space for claims with
    /// up to about 800 bytes of application data and the tag.
    pub(crate) fn new(mode: Mode) -> Self {
        let mut bytes = Zeroizing::new(Vec::with_capacity(1024));
        bytes.resize(mode.header_len(), 0);
        Self(bytes)
    }

    /// Makes room for `extra` more bytes, moving to a new allocation (and
    /// wiping the old one) when there is not enough.
    #[inline]
    pub(crate) fn reserve(&mut self, extra: usize) {
        let needed = self.0.len().saturating_add(extra);
        if needed > self.0.capacity() {
            let capacity = needed.max(self.0.capacity().saturating_mul(2));
            let mut bigger = Zeroizing::new(Vec::with_capacity(capacity));
            bigger.extend_from_slice(&self.0);
            // The old allocation is dropped here, and so wiped.
            self.0 = bigger;
        }
    }

    /// Appends `bytes`.
    #[inline]
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
    pub(crate) fn into_sealed(mut self) -> Vec<u8> {
        std::mem::take(&mut *self.0)
    }
}

impl std::io::Write for TokenBuffer {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The authenticated context: the AEAD associated data of a sealed token, and
/// the start of the MAC input of a signed one (which then appends the claims
/// with [`push_field`]).
///
/// ```text
/// LP(label) | LP(header) | LP(audience) | principal | LP(method) | LP(target) | digest(32)
/// principal = 0x00 (anonymous) or 0x01 | LP(principal)
/// LP(x)     = len(x) as u64 little-endian | x
/// ```
pub(crate) fn context(mode: Mode, header: &[u8], audience: &str, binding: &Binding<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        128usize
            .saturating_add(audience.len())
            .saturating_add(binding.target().len())
            .saturating_add(binding.principal().map_or(0, str::len)),
    );
    push_field(&mut out, mode.label());
    push_field(&mut out, header);
    push_field(&mut out, audience.as_bytes());
    match binding.principal() {
        None => out.push(0x00),
        Some(principal) => {
            out.push(0x01);
            push_field(&mut out, principal.as_bytes());
        }
    }
    push_field(&mut out, binding.method().as_str().as_bytes());
    push_field(&mut out, binding.target().as_bytes());
    out.extend_from_slice(binding.arguments().as_bytes());
    out
}

/// Appends `field` with its length as a little-endian u64 before it.
pub(crate) fn push_field(out: &mut Vec<u8>, field: &[u8]) {
    out.extend_from_slice(&field_len(field));
    out.extend_from_slice(field);
}

/// The length prefix of a field: its length as a little-endian u64.
pub(crate) fn field_len(field: &[u8]) -> [u8; 8] {
    u64::try_from(field.len()).unwrap_or(u64::MAX).to_le_bytes()
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
    fn token_base64_has_one_spelling() {
        let text = encode_token(&[0xff, 0xee]);
        assert_eq!(text, "_-4");
        assert_eq!(decode_token(&text), Some(vec![0xff, 0xee]));
        // Padding, the standard alphabet, white space and stray low bits are all refused.
        for other in ["_-4=", "/+4", " _-4", "_-4\n", "_-5", "_-"] {
            assert_eq!(decode_token(other), None, "{other:?}");
        }
        // A length of 1 mod 4 never decodes.
        assert_eq!(decode_token("AAAAA"), None);
        assert_eq!(decode_token(""), Some(vec![]));
    }

    #[test]
    fn split_refuses_unknown_versions_and_short_tokens() {
        assert_eq!(RawToken::split(&[]).err(), Some(SplitError::Truncated));
        assert_eq!(
            RawToken::split(&[0x03; 64]).err(),
            Some(SplitError::UnknownVersion)
        );
        assert_eq!(
            RawToken::split(&[0x00; 64]).err(),
            Some(SplitError::UnknownVersion)
        );
        let short = vec![VERSION_SEALED; Mode::Sealed.min_len() - 1];
        assert_eq!(RawToken::split(&short).err(), Some(SplitError::Truncated));
        let short = vec![VERSION_SIGNED; Mode::Signed.min_len() - 1];
        assert_eq!(RawToken::split(&short).err(), Some(SplitError::Truncated));
    }

    #[test]
    fn split_finds_each_part() {
        let mut bytes = vec![VERSION_SEALED, 1, 2, 3, 4];
        bytes.extend([9u8; NONCE_LEN]);
        bytes.extend(b"body");
        bytes.extend([7u8; AEAD_TAG_LEN]);
        let raw = RawToken::split(&bytes).unwrap();
        assert_eq!(raw.mode, Mode::Sealed);
        assert_eq!(raw.key_id.to_bytes(), [1, 2, 3, 4]);
        assert_eq!(raw.nonce(), Some(&[9u8; NONCE_LEN][..]));
        assert_eq!(raw.body, b"body");
        assert_eq!(raw.tag, &[7u8; AEAD_TAG_LEN]);

        let mut bytes = vec![VERSION_SIGNED, 1, 2, 3, 4];
        bytes.extend(b"{}");
        bytes.extend([7u8; MAC_TAG_LEN]);
        let raw = RawToken::split(&bytes).unwrap();
        assert_eq!(raw.mode, Mode::Signed);
        assert_eq!(raw.body, b"{}");
        assert_eq!(raw.nonce(), None);
    }

    #[test]
    fn fields_are_length_prefixed() {
        let mut out = Vec::new();
        push_field(&mut out, b"ab");
        assert_eq!(out, [2, 0, 0, 0, 0, 0, 0, 0, b'a', b'b']);
    }

    #[test]
    fn token_buffer_keeps_its_bytes_when_it_grows() {
        let mut buffer = TokenBuffer::new(Mode::Signed);
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        for chunk in data.chunks(7) {
            std::io::Write::write_all(&mut buffer, chunk).unwrap();
        }
        buffer.reserve(32);
        let mut expected = vec![0u8; SIGNED_HEADER_LEN];
        expected.extend_from_slice(&data);
        assert_eq!(buffer.as_mut_slice(), &expected[..]);
        assert!(buffer.0.capacity() >= expected.len() + 32);
        assert_eq!(buffer.into_sealed(), expected);
    }
}
