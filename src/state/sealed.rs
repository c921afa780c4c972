//! The sealed construction: XChaCha20-Poly1305 over the claims, with the
//! header, audience and binding as associated data (`docs/FORMAT.md`).
//! The client can read nothing of the claims.

use std::ops::Range;

use chacha20poly1305::aead::AeadInOut;
use chacha20poly1305::{Tag, XNonce};
use zeroize::Zeroizing;

use crate::state::error::{MintError, StateError};
use crate::state::keys::MasterKey;
use crate::state::layout::{NONCE_LEN, RawToken};

/// Encrypts `body` in place under `key` and `nonce`, authenticating
/// `context`, and returns the tag to append.
pub(super) fn seal(
    key: &MasterKey,
    nonce: [u8; NONCE_LEN],
    context: &[u8],
    body: &mut [u8],
) -> Result<Tag, MintError> {
    key.seal_cipher()
        .encrypt_inout_detached(&XNonce::from(nonce), context, body.into())
        .map_err(|_| MintError::Encrypt)
}

/// Where a sealed token's nonce, ciphertext and tag lie, read before its
/// bytes are decrypted in place.
pub(super) struct Parts {
    nonce: XNonce,
    tag: Tag,
    body: Range<usize>,
}

impl Parts {
    /// The nonce, the tag and the ciphertext's range of `raw`.
    pub(super) fn of(raw: &RawToken<'_>) -> Result<Self, StateError> {
        let nonce = raw
            .nonce()
            .and_then(|n| XNonce::try_from(n).ok())
            .ok_or(StateError::Malformed)?;
        let tag = Tag::try_from(raw.tag).map_err(|_| StateError::Malformed)?;
        let body = raw.header.len()..raw.header.len().saturating_add(raw.body.len());
        Ok(Self { nonce, tag, body })
    }
}

/// Verifies and decrypts the token `bytes`, whose `parts` lie as read, and
/// hands the claims to `parse`. Decrypted in place: the token's own bytes
/// hold the claims until they are parsed, then are wiped.
pub(super) fn open<T>(
    key: &MasterKey,
    context: &[u8],
    parts: Parts,
    bytes: Vec<u8>,
    parse: impl FnOnce(&[u8]) -> Option<T>,
) -> Result<T, StateError> {
    let mut bytes = Zeroizing::new(bytes);
    let body = bytes.get_mut(parts.body).ok_or(StateError::Malformed)?;
    key.seal_cipher()
        .decrypt_inout_detached(&parts.nonce, context, body.into(), &parts.tag)
        .map_err(|_| StateError::Forged)?;
    parse(body).ok_or(StateError::BadClaims)
}
