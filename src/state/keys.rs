//! Master keys, the subkeys derived from them, key ids and the key ring.
//!
//! One master key yields three labelled values through HKDF-SHA256 (RFC 5869):
//! the XChaCha20-Poly1305 key, the HMAC-SHA256 key and the public key id. No
//! key is used for two purposes, and the master bytes are dropped (and zeroed)
//! once the subkeys are derived.

use std::fmt;

use chacha20poly1305::XChaCha20Poly1305;
use hkdf::Hkdf;
use hmac::digest::block_api::EagerHash;
use hmac::{Hmac, KeyInit};
use sha2::Sha256;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

// Key material is wiped when dropped: checked at compile time, so that a
// dependency update that loses a `zeroize` feature fails the build.
const _: () = {
    fn wipes_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    // `Hmac<Sha256>` holds two of these hash states (inner and outer pad)
    // and nothing else that depends on the key.
    let _ = wipes_on_drop::<<Sha256 as EagerHash>::Core>;
    let _ = wipes_on_drop::<Sha256>;
    let _ = wipes_on_drop::<XChaCha20Poly1305>;
};

/// The shortest master key accepted, in bytes.
pub const MIN_MASTER_KEY_LEN: usize = 32;

/// The HKDF salt: fixed, public, names the construction.
const HKDF_SALT: &[u8] = b"mrtr-guard/v1/hkdf-salt";
const LABEL_SEAL: &[u8] = b"mrtr-guard/v1/seal-key";
const LABEL_SIGN: &[u8] = b"mrtr-guard/v1/sign-key";
const LABEL_KEY_ID: &[u8] = b"mrtr-guard/v1/key-id";
const LABEL_RECORD: &[u8] = b"mrtr-guard/v1/record-key";

/// A secret master key and the subkeys derived from it.
///
/// Build one from at least [`MIN_MASTER_KEY_LEN`] random bytes, from base64
/// text (an environment variable or a config file), or generate one from the
/// operating system's random number generator.
///
/// The key bytes are zeroed on drop and never printed: `Debug` shows only the
/// public [`KeyId`].
///
/// ```
/// use mrtr_guard::MasterKey;
///
/// let key = MasterKey::from_base64("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")?;
/// assert_eq!(format!("{key:?}"), format!("MasterKey {{ id: KeyId({}), .. }}", key.id()));
/// # Ok::<(), mrtr_guard::state::KeyError>(())
/// ```
pub struct MasterKey {
    id: KeyId,
    seal: Zeroizing<[u8; 32]>,
    /// The AEAD keyed with `seal`, built once: no per-token copy of the key
    /// lands on the stack. Its key is zeroed on drop (`chacha20poly1305`'s
    /// `zeroize` feature).
    cipher: XChaCha20Poly1305,
    /// The AEAD that seals what a server stores for a client (task records,
    /// remembered answers), under a subkey of its own.
    record: XChaCha20Poly1305,
    sign: Zeroizing<[u8; 32]>,
    /// HMAC keyed with `sign`, cloned per token: saves hashing the key's two
    /// pads every time. Its hash states are zeroed on drop (`sha2`'s
    /// `zeroize` feature).
    sign_mac: Hmac<Sha256>,
    /// Every byte of the key material was zero: a placeholder, never a key
    /// (the `rmcp` server builder refuses it).
    all_zero: bool,
}

impl MasterKey {
    /// Derives the subkeys from `bytes`.
    ///
    /// # Errors
    ///
    /// [`KeyError::TooShort`] when `bytes` is shorter than
    /// [`MIN_MASTER_KEY_LEN`]. Short keys are refused, never padded.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, KeyError> {
        if bytes.len() < MIN_MASTER_KEY_LEN {
            return Err(KeyError::TooShort { len: bytes.len() });
        }
        let hkdf = hkdf_extract(HKDF_SALT, bytes);
        let mut id = [0u8; 4];
        let mut seal = Zeroizing::new([0u8; 32]);
        let mut sign = Zeroizing::new([0u8; 32]);
        hkdf_expand(&hkdf, LABEL_SEAL, seal.as_mut_slice());
        hkdf_expand(&hkdf, LABEL_SIGN, sign.as_mut_slice());
        hkdf_expand(&hkdf, LABEL_KEY_ID, &mut id);
        let cipher = XChaCha20Poly1305::new((&*seal).into());
        let record = {
            let mut key = Zeroizing::new([0u8; 32]);
            hkdf_expand(&hkdf, LABEL_RECORD, key.as_mut_slice());
            XChaCha20Poly1305::new((&*key).into())
        };
        let sign_mac = new_hmac(sign.as_slice());
        let all_zero = bytes.iter().all(|&byte| byte == 0);
        Ok(Self {
            id: KeyId(id),
            seal,
            cipher,
            record,
            sign,
            sign_mac,
            all_zero,
        })
    }

    /// Decodes base64 text and derives the subkeys.
    ///
    /// Accepts the standard or the URL-safe base64 alphabet, with or without
    /// padding (padding, when present, must be exactly right): what
    /// `openssl rand -base64 32` and `mrtr-guard keygen` print. Leading and
    /// trailing white space (a newline from a file) is ignored. Hexadecimal
    /// text (`openssl rand -hex 32`) is refused: 64 hex digits are valid
    /// base64 too, and would silently decode to 48 other bytes.
    ///
    /// # Errors
    ///
    /// [`KeyError::HexText`] when the text is 64 or more hex digits,
    /// [`KeyError::Base64`] when it is not base64, and
    /// [`KeyError::TooShort`] when it decodes to fewer than
    /// [`MIN_MASTER_KEY_LEN`] bytes.
    pub fn from_base64(text: &str) -> Result<Self, KeyError> {
        let text = text.trim();
        if looks_like_hex(text) {
            return Err(KeyError::HexText);
        }
        let bytes = decode_key_text(text).ok_or(KeyError::Base64)?;
        Self::from_bytes(&bytes)
    }

    /// Generates a new random 32-byte master key from the OS random number
    /// generator. The key lives only in this process: tokens it mints cannot
    /// be verified after a restart or by another instance.
    ///
    /// # Errors
    ///
    /// [`KeyError::Rng`] when the operating system's generator fails.
    pub fn generate() -> Result<Self, KeyError> {
        let bytes = random_master_bytes()?;
        Self::from_bytes(bytes.as_slice())
    }

    /// Generates a new random 32-byte master key and returns it as standard
    /// base64 text, for an operator to store (`MRTR_GUARD_KEY=...`).
    ///
    /// # Errors
    ///
    /// [`KeyError::Rng`] when the operating system's generator fails.
    pub fn generate_base64() -> Result<Zeroizing<String>, KeyError> {
        let bytes = random_master_bytes()?;
        Ok(encode_key_text(bytes.as_slice()))
    }

    /// The public key id that tokens minted with this key carry.
    pub fn id(&self) -> KeyId {
        self.id
    }

    /// The AEAD keyed with the sealing subkey.
    /// Whether every byte of the key material was zero (a placeholder).
    #[must_use]
    pub fn is_all_zero(&self) -> bool {
        self.all_zero
    }

    pub(crate) fn seal_cipher(&self) -> &XChaCha20Poly1305 {
        &self.cipher
    }

    pub(crate) fn record_cipher(&self) -> &XChaCha20Poly1305 {
        &self.record
    }

    #[cfg(test)]
    pub(crate) fn seal_key(&self) -> &[u8] {
        self.seal.as_slice()
    }

    #[cfg(test)]
    pub(crate) fn sign_key(&self) -> &[u8; 32] {
        &self.sign
    }

    /// A fresh HMAC-SHA256 instance keyed with the signing subkey.
    pub(crate) fn sign_mac(&self) -> Hmac<Sha256> {
        self.sign_mac.clone()
    }
}

impl TryFrom<&[u8]> for MasterKey {
    type Error = KeyError;

    fn try_from(bytes: &[u8]) -> Result<Self, KeyError> {
        Self::from_bytes(bytes)
    }
}

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MasterKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl PartialEq for MasterKey {
    /// Compares the derived keys in constant time.
    fn eq(&self, other: &Self) -> bool {
        let same_seal = self.seal.as_slice().ct_eq(other.seal.as_slice());
        let same_sign = self.sign.as_slice().ct_eq(other.sign.as_slice());
        (same_seal & same_sign).into()
    }
}

impl Eq for MasterKey {}

/// The public, non-secret 4-byte identifier of a master key.
///
/// It is derived from the key, carried in every token's header, and names the
/// one key in a [`KeyRing`] that may verify the token. It prints as 8 lowercase
/// hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId([u8; 4]);

impl KeyId {
    /// The id's bytes, as they appear in a token's header.
    pub fn to_bytes(self) -> [u8; 4] {
        self.0
    }

    pub(crate) fn from_bytes(bytes: [u8; 4]) -> Self {
        Self(bytes)
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyId({self})")
    }
}

/// One active key that mints, and verify-only keys that still open tokens.
///
/// A token is opened with the key its id names, never by trying each key.
/// Rotation takes three steps, each a new ring:
///
/// 1. `KeyRing::new(old).with_verify_only(new)?`: every instance learns the new key;
/// 2. `KeyRing::new(new).with_verify_only(old)?`: the new key mints, old tokens still open;
/// 3. `KeyRing::new(new)`, once the longest flow deadline has passed.
///
/// ```
/// use mrtr_guard::{KeyRing, MasterKey};
///
/// let old = MasterKey::from_bytes(&[1; 32])?;
/// let new = MasterKey::from_bytes(&[2; 32])?;
/// let (old_id, new_id) = (old.id(), new.id());
/// let ring = KeyRing::new(new).with_verify_only(old)?;
/// assert_eq!(ring.active_id(), new_id);
/// assert!(ring.contains(old_id));
/// # Ok::<(), mrtr_guard::state::KeyError>(())
/// ```
#[derive(Debug)]
pub struct KeyRing {
    active: MasterKey,
    verify_only: Vec<MasterKey>,
}

impl KeyRing {
    /// A ring with one active key.
    pub fn new(active: MasterKey) -> Self {
        Self {
            active,
            verify_only: Vec::new(),
        }
    }

    /// Adds a key that opens tokens but never mints them.
    ///
    /// # Errors
    ///
    /// [`KeyError::DuplicateKeyId`] when the ring already holds a key with the
    /// same id (the same key twice, or a 1 in 2^32 collision of two keys).
    pub fn with_verify_only(mut self, key: MasterKey) -> Result<Self, KeyError> {
        if self.find(key.id()).is_some() {
            return Err(KeyError::DuplicateKeyId(key.id()));
        }
        self.verify_only.push(key);
        Ok(self)
    }

    /// The id of the key that mints.
    pub fn active_id(&self) -> KeyId {
        self.active.id()
    }

    /// Whether the ring holds a key with this id.
    pub fn contains(&self, id: KeyId) -> bool {
        self.find(id).is_some()
    }

    /// Whether any key of the ring is all zero bytes (a placeholder).
    #[must_use]
    pub fn has_all_zero_key(&self) -> bool {
        self.active.is_all_zero() || self.verify_only.iter().any(MasterKey::is_all_zero)
    }

    pub(crate) fn active(&self) -> &MasterKey {
        &self.active
    }

    /// 16 bytes of HMAC-SHA256 under the active key's signing subkey over
    /// `input`, which must open with its own domain label (the connect
    /// flow's link ids, its PKCE verifiers).
    pub(crate) fn mac16(&self, input: &[u8]) -> [u8; 16] {
        self.mac32(input)
            .first_chunk::<16>()
            .copied()
            .unwrap_or([0; 16])
    }

    /// [`mac16`](Self::mac16), all 32 bytes.
    pub(crate) fn mac32(&self, input: &[u8]) -> [u8; 32] {
        use hmac::Mac as _;
        let mut mac = self.active.sign_mac();
        mac.update(input);
        mac.finalize().into_bytes().into()
    }

    pub(crate) fn find(&self, id: KeyId) -> Option<&MasterKey> {
        std::iter::once(&self.active)
            .chain(&self.verify_only)
            .find(|key| key.id() == id)
    }
}

impl From<MasterKey> for KeyRing {
    fn from(active: MasterKey) -> Self {
        Self::new(active)
    }
}

/// Why a key could not be built or added.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// The master key is shorter than [`MIN_MASTER_KEY_LEN`] bytes.
    TooShort {
        /// The length that was given.
        len: usize,
    },
    /// The key text is not base64.
    Base64,
    /// The key text is hexadecimal (what `openssl rand -hex 32` prints),
    /// which would otherwise decode as base64 to other bytes.
    HexText,
    /// The operating system's random number generator failed.
    Rng,
    /// A key ring already holds a key with this id.
    DuplicateKeyId(KeyId),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooShort { len } => write!(
                f,
                "the master key is {len} bytes; give at least {MIN_MASTER_KEY_LEN} random bytes \
                 (base64, as `mrtr-guard keygen` prints)"
            ),
            Self::Base64 => f.write_str(
                "the master key text is not base64; give it as `mrtr-guard keygen` \
                 (or `openssl rand -base64 32`) prints it",
            ),
            Self::HexText => f.write_str(
                "the master key is hexadecimal text; give base64, as `mrtr-guard keygen` \
                 (or `openssl rand -base64 32`) prints, or the key's bytes to \
                 MasterKey::from_bytes",
            ),
            Self::Rng => f.write_str(
                "the operating system's random number generator failed; run where \
                 getrandom works, or load a key with MasterKey::from_base64",
            ),
            Self::DuplicateKeyId(id) => write!(
                f,
                "the key ring already holds key {id}; give each key once (the active key \
                 is not also verify-only)"
            ),
        }
    }
}

impl std::error::Error for KeyError {}

/// Whether `text` is a hex spelling of a long enough key: an even number of
/// at least `2 × MIN_MASTER_KEY_LEN` hex digits. Reads every character (no
/// early exit on the secret text).
fn looks_like_hex(text: &str) -> bool {
    let all_hex = text
        .bytes()
        .fold(true, |all, byte| all & byte.is_ascii_hexdigit());
    all_hex && text.len() >= 2 * MIN_MASTER_KEY_LEN && text.len().is_multiple_of(2)
}

/// Fills `out` from the operating system's random number generator: for
/// new keys, nonces and flow ids.
pub(crate) fn fill_random(out: &mut [u8]) -> Result<(), ()> {
    chacha20poly1305::aead::common::getrandom::fill(out).map_err(|_| ())
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

fn random_master_bytes() -> Result<Zeroizing<[u8; 32]>, KeyError> {
    let mut bytes = Zeroizing::new([0u8; 32]);
    fill_random(bytes.as_mut_slice()).map_err(|()| KeyError::Rng)?;
    Ok(bytes)
}

/// HKDF-Extract (RFC 5869 §2.2) with HMAC-SHA256, through RustCrypto's
/// `hkdf`. The pseudorandom key it returns beside the expander is wiped here.
fn hkdf_extract(salt: &[u8], ikm: &[u8]) -> Hkdf<Sha256> {
    let (mut prk, hkdf) = Hkdf::<Sha256>::extract(Some(salt), ikm);
    prk.as_mut_slice().zeroize();
    hkdf
}

/// HKDF-Expand (RFC 5869 §2.3) into `out`, at most one 32-byte block here.
fn hkdf_expand(hkdf: &Hkdf<Sha256>, info: &[u8], out: &mut [u8]) {
    // Expand refuses only more than 255 blocks of output; every caller asks
    // for one block or less, so the result carries no information.
    debug_assert!(out.len() <= 32, "one HKDF block at most");
    let _: Result<(), hkdf::InvalidLength> = hkdf.expand(info, out);
}

pub(crate) fn new_hmac(key: &[u8]) -> Hmac<Sha256> {
    // HMAC takes keys of any length; this cannot fail.
    <Hmac<Sha256> as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable_hmac())
}

#[cold]
fn unreachable_hmac() -> Hmac<Sha256> {
    <Hmac<Sha256> as KeyInit>::new(&Default::default())
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use hmac::Mac as _;

    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn hmac_sha256_matches_rfc4231_case_2() {
        let mut mac = new_hmac(b"Jefe");
        mac.update(b"what do ya want for nothing?");
        let tag = mac.finalize().into_bytes();
        assert_eq!(
            hex(&tag),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn hkdf_matches_rfc5869_case_1_first_block() {
        let ikm = [0x0b; 22];
        let salt: Vec<u8> = (0x00..=0x0c).collect();
        let info: Vec<u8> = (0xf0..=0xf9).collect();
        let hkdf = hkdf_extract(&salt, &ikm);
        let mut okm = [0u8; 32];
        hkdf_expand(&hkdf, &info, &mut okm);
        assert_eq!(
            hex(&okm),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
        );
        let mut head = [0u8; 4];
        hkdf_expand(&hkdf, &info, &mut head);
        assert_eq!(hex(&head), "3cb25f25", "a short output is the block's head");
    }

    #[test]
    fn short_keys_are_refused_not_padded() {
        assert_eq!(
            MasterKey::from_bytes(&[7; 31]),
            Err(KeyError::TooShort { len: 31 })
        );
        assert!(MasterKey::from_bytes(&[7; 32]).is_ok());
        assert_eq!(
            MasterKey::from_bytes(&[]),
            Err(KeyError::TooShort { len: 0 })
        );
    }

    #[test]
    fn subkeys_differ_per_purpose_and_per_master() {
        let a = MasterKey::from_bytes(&[1; 32]).unwrap();
        let b = MasterKey::from_bytes(&[2; 32]).unwrap();
        assert_ne!(a.seal_key(), a.sign_key());
        assert_ne!(a.seal_key(), b.seal_key());
        assert_ne!(a.id(), b.id());
        assert_ne!(a, b);
        let a_again = MasterKey::from_bytes(&[1; 32]).unwrap();
        assert_eq!(a, a_again);
        assert_eq!(a.id(), a_again.id());
    }

    #[test]
    fn debug_never_prints_key_bytes() {
        let key = MasterKey::from_bytes(&[0xab; 32]).unwrap();
        let ring = KeyRing::new(MasterKey::from_bytes(&[0xab; 32]).unwrap());
        for text in [format!("{key:?}"), format!("{key:#?}"), format!("{ring:?}")] {
            for secret in [key.seal_key(), key.sign_key()] {
                assert!(!text.contains(&hex(secret)), "{text}");
                assert!(!text.contains(&format!("{:?}", secret)), "{text}");
            }
            assert!(!text.contains("171"), "master byte value leaked: {text}");
            assert!(text.contains(&key.id().to_string()), "{text}");
        }
    }

    #[test]
    fn base64_text_in_every_accepted_spelling() {
        let bytes: Vec<u8> = (0u8..32).collect();
        let expected = MasterKey::from_bytes(&bytes).unwrap();
        for text in [
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
            "  AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n",
        ] {
            assert_eq!(
                MasterKey::from_base64(text),
                Ok(MasterKey::from_bytes(&bytes).unwrap())
            );
        }
        let url_safe =
            MasterKey::from_base64("_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-").map(|k| k.id());
        assert!(url_safe.is_ok());
        assert_eq!(MasterKey::from_base64("not base64!"), Err(KeyError::Base64));
        assert_eq!(
            MasterKey::from_base64("AAEC"),
            Err(KeyError::TooShort { len: 3 })
        );
        assert_eq!(
            expected.id(),
            MasterKey::from_bytes(&bytes).map(|k| k.id()).unwrap()
        );
    }

    #[test]
    fn url_safe_text_is_accepted_padded_or_not() {
        // 32 bytes 0xfb 0xff ... spell '+' and '/' in standard base64.
        let bytes = [0xfb_u8; 32];
        let expected = MasterKey::from_bytes(&bytes).unwrap();
        for text in [
            "+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/s=",
            "+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/s",
            "-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_s=",
            "-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_s",
        ] {
            assert_eq!(
                MasterKey::from_base64(text).as_ref(),
                Ok(&expected),
                "{text}"
            );
        }
        for wrong in [
            "+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/s==",
            "+_v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/s=",
            "+/v7+/v7+/v7+/v7 +/v7+/v7+/v7+/v7+/v7+/v7+/s=",
            "+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/v7+/t=",
        ] {
            assert_eq!(
                MasterKey::from_base64(wrong),
                Err(KeyError::Base64),
                "{wrong}"
            );
        }
    }

    #[test]
    fn hex_text_is_refused_with_what_to_do() {
        // What `openssl rand -hex 32` prints: 64 hex digits are valid base64
        // too, and would silently decode to 48 other bytes.
        let hex_text = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert_eq!(MasterKey::from_base64(hex_text), Err(KeyError::HexText));
        assert_eq!(
            MasterKey::from_base64(&format!("{}\n", hex_text.to_uppercase())),
            Err(KeyError::HexText)
        );
        let message = KeyError::HexText.to_string();
        assert!(message.contains("openssl rand -base64 32"), "{message}");
        assert!(message.contains("mrtr-guard keygen"), "{message}");
        // Base64 text that happens to use few letters is still base64.
        assert!(MasterKey::from_base64("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=").is_ok());
    }

    #[test]
    fn generated_keys_are_distinct_and_round_trip_through_base64() {
        let text = MasterKey::generate_base64().unwrap();
        let again = MasterKey::from_base64(&text).unwrap();
        let other = MasterKey::generate().unwrap();
        assert_ne!(again.id(), other.id());
        assert_eq!(text.len(), 44);
    }

    #[test]
    fn generated_key_text_is_written_once_at_its_final_length() {
        // A string that grows moves to a new allocation and frees the old one
        // unwiped, key text and all (the old encoder wrote 43 characters,
        // then pushed the `=`, and left capacity 86).
        let text = MasterKey::generate_base64().unwrap();
        assert_eq!(text.capacity(), text.len());
    }

    #[test]
    fn ring_refuses_duplicate_ids_and_finds_by_id() {
        let ring = KeyRing::new(MasterKey::from_bytes(&[1; 32]).unwrap());
        let dup = MasterKey::from_bytes(&[1; 32]).unwrap();
        let id = dup.id();
        assert_eq!(
            ring.with_verify_only(dup).err(),
            Some(KeyError::DuplicateKeyId(id))
        );

        let old = MasterKey::from_bytes(&[2; 32]).unwrap();
        let old_id = old.id();
        let ring = KeyRing::new(MasterKey::from_bytes(&[1; 32]).unwrap())
            .with_verify_only(old)
            .unwrap();
        assert_eq!(ring.find(old_id).map(MasterKey::id), Some(old_id));
        let absent = KeyId::from_bytes([0xff; 4]);
        assert!(ring.active_id() != absent && old_id != absent);
        assert!(ring.find(absent).is_none());
    }
}
