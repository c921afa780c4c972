//! What a token says about itself before any key is involved: for operators
//! and logs, never for decisions.

use crate::state::error::StateError;
use crate::state::keys::KeyId;
use crate::state::layout::{self, Mode, RawToken, SplitError};

/// The structural facts of a token: its version, mode, key id and lengths.
///
/// [`parse`](Self::parse) decodes the text strictly and splits the bytes by
/// the layout the version byte names, as [`StateCodec::open_at`](crate::state::StateCodec::open_at)
/// does first, and stops there: it holds no key, verifies nothing and never
/// reads the claims (not even a signed token's clear ones). A token that
/// parses may still be forged; only `open_at` tells.
///
/// ```
/// use mrtr_guard::{Binding, StateContents, MasterKey, Method, Mode, StateCodec, StateError};
/// use mrtr_guard::state::TokenInfo;
///
/// let key = MasterKey::from_bytes(&[7; 32])?;
/// let key_id = key.id();
/// let codec = StateCodec::builder("https://mcp.example.com", key).build()?;
/// let token = codec.start(&Binding::new("ada", Method::ToolsCall, "ShipOrder", None), &StateContents::new(()))?;
///
/// let info = TokenInfo::parse(&token)?;
/// assert_eq!(info.mode(), Mode::Sealed);
/// assert_eq!(info.key_id(), key_id);
/// assert_eq!(TokenInfo::parse("not a token").err(), Some(StateError::Malformed));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenInfo {
    mode: Mode,
    key_id: KeyId,
    byte_len: usize,
    header_len: usize,
    body_len: usize,
    tag_len: usize,
}

impl TokenInfo {
    /// Decodes and splits `token` without a key.
    ///
    /// No length cap is applied: this is a diagnostic, and its cost is one
    /// base64 decode. On a request path, compare the length with your
    /// policy's maximum first (as the codec does).
    ///
    /// # Errors
    ///
    /// [`StateError::Malformed`] when the text is not strict unpadded
    /// base64url or too short for its version; [`StateError::UnsupportedVersion`]
    /// for an unknown version byte. The same reasons `open_at` would give.
    pub fn parse(token: &str) -> Result<Self, StateError> {
        let bytes = layout::decode_token(token).ok_or(StateError::Malformed)?;
        let raw = RawToken::split(&bytes).map_err(|error| match error {
            SplitError::UnknownVersion => StateError::UnsupportedVersion,
            SplitError::Truncated => StateError::Malformed,
        })?;
        Ok(Self {
            mode: raw.mode,
            key_id: raw.key_id,
            byte_len: bytes.len(),
            header_len: raw.header.len(),
            body_len: raw.body.len(),
            tag_len: raw.tag.len(),
        })
    }

    /// The version byte: `0x01` sealed, `0x02` signed.
    pub fn version(&self) -> u8 {
        self.mode.version()
    }

    /// The mode the version byte names.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The id of the key the token claims to be minted with.
    pub fn key_id(&self) -> KeyId {
        self.key_id
    }

    /// The decoded token's length in bytes: header, body and tag.
    pub fn byte_len(&self) -> usize {
        self.byte_len
    }

    /// The header's length: version, key id and (sealed) nonce.
    pub fn header_len(&self) -> usize {
        self.header_len
    }

    /// The body's length: the ciphertext (sealed) or the claims (signed).
    pub fn body_len(&self) -> usize {
        self.body_len
    }

    /// The tag's length: 16 (sealed) or 32 (signed).
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]
mod tests {
    use super::*;
    use crate::state::layout::{
        AEAD_TAG_LEN, MAC_TAG_LEN, SEALED_HEADER_LEN, SIGNED_HEADER_LEN, VERSION_SEALED,
        VERSION_SIGNED, encode_token,
    };

    #[test]
    fn parses_both_layouts() {
        let mut sealed = vec![VERSION_SEALED, 0xde, 0xad, 0xbe, 0xef];
        sealed.extend([0u8; 24]);
        sealed.extend(b"ciphertext");
        sealed.extend([0u8; AEAD_TAG_LEN]);
        let info = TokenInfo::parse(&encode_token(&sealed)).unwrap();
        assert_eq!(info.mode(), Mode::Sealed);
        assert_eq!(info.version(), 0x01);
        assert_eq!(info.key_id().to_string(), "deadbeef");
        assert_eq!(info.byte_len(), sealed.len());
        assert_eq!(
            (info.header_len(), info.body_len(), info.tag_len()),
            (SEALED_HEADER_LEN, 10, AEAD_TAG_LEN)
        );

        let mut signed = vec![VERSION_SIGNED, 1, 2, 3, 4];
        signed.extend(b"{}");
        signed.extend([0u8; MAC_TAG_LEN]);
        let info = TokenInfo::parse(&encode_token(&signed)).unwrap();
        assert_eq!(info.mode(), Mode::Signed);
        assert_eq!(info.version(), 0x02);
        assert_eq!(
            (info.header_len(), info.body_len(), info.tag_len()),
            (SIGNED_HEADER_LEN, 2, MAC_TAG_LEN)
        );
    }

    #[test]
    fn refuses_what_open_refuses_for_the_same_reason() {
        assert_eq!(TokenInfo::parse(""), Err(StateError::Malformed));
        assert_eq!(TokenInfo::parse("AAAA="), Err(StateError::Malformed));
        assert_eq!(
            TokenInfo::parse(&encode_token(&[VERSION_SEALED; 44])),
            Err(StateError::Malformed),
            "one byte short of an empty sealed token"
        );
        assert_eq!(
            TokenInfo::parse(&encode_token(&[0x03; 64])),
            Err(StateError::UnsupportedVersion)
        );
        assert!(TokenInfo::parse(&encode_token(&[VERSION_SEALED; 45])).is_ok());
    }
}
