//! Records a server keeps for a client outside any token (a task, a
//! remembered answer), sealed with the server's key so that the store that
//! holds them learns nothing and cannot move them: XChaCha20-Poly1305 under
//! the master key's record subkey, bound to the record's kind and id.
//!
//! A sealed record is `0x01 | key id (4) | nonce (24) | ciphertext | tag (16)`;
//! the associated data is a label, the kind and the id (each
//! length-prefixed) and the header. It opens under any key of the ring, so
//! records outlive a key rotation as tokens do.

use chacha20poly1305::aead::AeadInOut;
use chacha20poly1305::{Tag, XNonce};
use zeroize::Zeroizing;

use crate::state::context::push_field;
use crate::state::keys::{KeyId, KeyRing, fill_random};

const VERSION: u8 = 0x01;
const HEADER_LEN: usize = 1 + 4;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
const LABEL: &[u8] = b"mrtr-guard/v1/record";

/// Seals `plaintext` as the record `id` of `kind` under the ring's active
/// key; `None` when the OS random generator fails.
pub(crate) fn seal_record(
    keys: &KeyRing,
    kind: &str,
    id: &[u8],
    plaintext: &[u8],
) -> Option<Vec<u8>> {
    let key = keys.active();
    let mut nonce = [0u8; NONCE_LEN];
    fill_random(&mut nonce).ok()?;
    let mut out = Vec::with_capacity(
        plaintext
            .len()
            .saturating_add(HEADER_LEN + NONCE_LEN + TAG_LEN),
    );
    out.push(VERSION);
    out.extend_from_slice(&key.id().to_bytes());
    let aad = associated(kind, id, &out);
    out.extend_from_slice(&nonce);
    let start = out.len();
    out.extend_from_slice(plaintext);
    let body = out.get_mut(start..)?;
    let tag = key
        .record_cipher()
        .encrypt_inout_detached(&XNonce::from(nonce), &aad, body.into())
        .ok()?;
    out.extend_from_slice(&tag);
    Some(out)
}

/// Opens the sealed record `id` of `kind`: its plaintext, or `None` when it
/// was changed, sealed for another kind or id, or under a key the ring does
/// not hold.
pub(crate) fn open_record(
    keys: &KeyRing,
    kind: &str,
    id: &[u8],
    sealed: &[u8],
) -> Option<Zeroizing<Vec<u8>>> {
    let header = sealed.get(..HEADER_LEN)?;
    if header.first() != Some(&VERSION) {
        return None;
    }
    let key_id: [u8; 4] = header.get(1..HEADER_LEN)?.try_into().ok()?;
    let key = keys.find(KeyId::from_bytes(key_id))?;
    let nonce = XNonce::try_from(sealed.get(HEADER_LEN..HEADER_LEN + NONCE_LEN)?).ok()?;
    let tag_at = sealed.len().checked_sub(TAG_LEN)?;
    let tag = Tag::try_from(sealed.get(tag_at..)?).ok()?;
    let mut body = Zeroizing::new(sealed.get(HEADER_LEN + NONCE_LEN..tag_at)?.to_vec());
    let aad = associated(kind, id, header);
    key.record_cipher()
        .decrypt_inout_detached(&nonce, &aad, body.as_mut_slice().into(), &tag)
        .ok()?;
    Some(body)
}

fn associated(kind: &str, id: &[u8], header: &[u8]) -> Vec<u8> {
    let mut aad = Vec::with_capacity(kind.len().saturating_add(id.len()).saturating_add(64));
    push_field(&mut aad, LABEL);
    push_field(&mut aad, kind.as_bytes());
    push_field(&mut aad, id);
    push_field(&mut aad, header);
    aad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::keys::MasterKey;

    fn ring(byte: u8) -> KeyRing {
        KeyRing::new(MasterKey::from_bytes(&[byte; 32]).expect("a 32-byte key"))
    }

    #[test]
    fn a_record_opens_only_as_what_it_was_sealed_for() {
        let keys = ring(7);
        let sealed = seal_record(&keys, "task", b"id-1", b"secret answers").expect("sealed");
        assert!(
            !sealed.windows(6).any(|w| w == b"secret"),
            "the plaintext shows"
        );
        let opened = open_record(&keys, "task", b"id-1", &sealed).expect("opens");
        assert_eq!(opened.as_slice(), b"secret answers");
        assert!(
            open_record(&keys, "task", b"id-2", &sealed).is_none(),
            "another id"
        );
        assert!(
            open_record(&keys, "answer", b"id-1", &sealed).is_none(),
            "another kind"
        );
        assert!(
            open_record(&ring(8), "task", b"id-1", &sealed).is_none(),
            "another key"
        );
        for at in 0..sealed.len() {
            let mut changed = sealed.clone();
            if let Some(byte) = changed.get_mut(at) {
                *byte ^= 0x01;
            }
            assert!(
                open_record(&keys, "task", b"id-1", &changed).is_none(),
                "byte {at}"
            );
        }
        assert!(open_record(&keys, "task", b"id-1", &sealed[..20]).is_none());
        assert!(open_record(&keys, "task", b"id-1", &[]).is_none());
    }

    #[test]
    fn a_record_opens_after_its_key_is_rotated_out_of_minting() {
        let old = MasterKey::from_bytes(&[7; 32]).expect("key");
        let sealed = seal_record(&KeyRing::new(old), "task", b"t", b"x").expect("sealed");
        let rotated = ring(9)
            .with_verify_only(MasterKey::from_bytes(&[7; 32]).expect("key"))
            .expect("distinct ids");
        assert_eq!(
            open_record(&rotated, "task", b"t", &sealed).map(|p| p.to_vec()),
            Some(b"x".to_vec())
        );
    }
}
