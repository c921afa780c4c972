//! The token's byte layout and its one text spelling. `docs/FORMAT.md`
//! (§1, §2) describes the same bytes for other languages.
//!
//! ```text
//! sealed (0x01): version(1) | key id(4) | nonce(24) | ciphertext(n) | tag(16)
//! signed (0x02): version(1) | key id(4) | claims(n)                 | tag(32)
//! ```
//!
//! The token text, and the flow ids and digests inside the claims, are
//! unpadded URL-safe base64 through the `base64` crate's strict engine.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

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
/// table-driven decoder is used (docs/BENCHMARKS.md "Constant time" measures its timing).
pub(crate) fn decode_token(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text).ok()
}

/// Encodes a short identifier (flow id, digest) inside the claims.
#[cfg(test)]
pub(crate) fn encode_id(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The longest identifier text [`encode_id_in`] writes: 32 bytes.
pub(crate) const ID_TEXT_MAX: usize = 43;

/// [`encode_id`] into `out`, without allocating: `None` when the
/// identifier is longer than 32 bytes.
pub(crate) fn encode_id_in<'a>(bytes: &[u8], out: &'a mut [u8; ID_TEXT_MAX]) -> Option<&'a str> {
    let len = URL_SAFE_NO_PAD.encode_slice(bytes, out).ok()?;
    std::str::from_utf8(out.get(..len)?).ok()
}

/// Decodes an identifier as [`encode_id_in`] writes it into exactly `N`
/// bytes, in place: text that decodes to more or fewer bytes is refused.
pub(crate) fn decode_id<const N: usize>(text: &str) -> Option<[u8; N]> {
    let mut out = [0u8; N];
    let len = URL_SAFE_NO_PAD.decode_slice(text, &mut out).ok()?;
    (len == N).then_some(out)
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

    /// The domain label that starts the mode's authenticated context.
    pub(crate) fn label(self) -> &'static [u8] {
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

    /// The longest claims a token of this mode holds within `max_token_len`
    /// characters: unpadded base64 spells `n` bytes in `ceil(4n / 3)`
    /// characters, so a token has at most `floor(3 * max_token_len / 4)`
    /// bytes, of which header and tag take [`min_len`](Self::min_len).
    pub(crate) fn max_claims_len(self, max_token_len: usize) -> usize {
        let quarters = max_token_len / 4;
        let rest = max_token_len % 4;
        let bytes = quarters
            .saturating_mul(3)
            .saturating_add(rest.saturating_mul(3) / 4);
        bytes.saturating_sub(self.min_len())
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

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use super::*;

    /// Identifiers spelled without allocating read back, at their exact
    /// length only, and strictly.
    #[test]
    fn identifiers_round_trip_at_their_length_only() {
        let mut text = [0u8; ID_TEXT_MAX];
        let digest = encode_id_in(&[9; 32], &mut text).unwrap().to_owned();
        assert_eq!(digest, encode_id(&[9; 32]));
        assert_eq!(decode_id::<32>(&digest), Some([9; 32]));
        assert_eq!(decode_id::<16>(&digest), None);
        assert_eq!(decode_id::<33>(&digest), None);
        assert_eq!(decode_id::<32>(&format!("{digest}=")), None);
        assert_eq!(decode_id::<32>(&digest.replace('k', "+")), None);
        assert_eq!(encode_id_in(&[1; 33], &mut text), None);
        let fid = encode_id(&[7; 16]);
        assert_eq!(decode_id::<16>(&fid), Some([7; 16]));
        assert_eq!(decode_id::<16>(&fid[..21]), None);
    }

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

    /// Claims of the computed length fit the limit exactly; one byte more
    /// does not.
    #[test]
    fn max_claims_len_is_the_longest_that_fits() {
        for mode in [Mode::Sealed, Mode::Signed] {
            for limit in (256..=300).chain([8192]) {
                let claims = mode.max_claims_len(limit);
                let token = |claims: usize| encode_token(&vec![0; mode.min_len() + claims]).len();
                assert!(token(claims) <= limit, "{mode:?} {limit}");
                assert!(token(claims + 1) > limit, "{mode:?} {limit}");
            }
        }
        assert_eq!(Mode::Sealed.max_claims_len(8192), 6099);
        assert_eq!(Mode::Signed.max_claims_len(8192), 6107);
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
}
