//! The crate's one base64 engine (RFC 4648): strict, and constant time in
//! the bytes it encodes and the characters it decodes.
//!
//! Token text, flow ids, digests, master keys and MCP header values all go
//! through here. Decoding is strict: one spelling per value (no stray
//! characters, no stray low bits, padding only where the caller's
//! [`Padding`] says). Nothing branches or indexes memory on the value of a
//! byte or a character: each character is mapped to its 6-bit value with
//! masks, errors are collected in an accumulator and looked at once, at the
//! end. Only the length of the text, which is public, shapes the work. So
//! decoding a token's text, or a master key's, takes the same time whatever
//! characters it holds (a table-driven decoder takes longer for some
//! characters than others, which `benches/peers/benches/ct.rs` measured).
//!
//! The per-character maps are written as loops over plain byte slices, in
//! a separate pass from the 6-bit packing, so that the compiler can run
//! them on vector registers.

use zeroize::{Zeroize as _, Zeroizing};

/// Which 64-character alphabet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Alphabet {
    /// `A–Z a–z 0–9 + /` (RFC 4648 §4).
    Standard,
    /// `A–Z a–z 0–9 - _` (RFC 4648 §5).
    UrlSafe,
}

impl Alphabet {
    /// The characters for values 62 and 63.
    const fn specials(self) -> (u8, u8) {
        match self {
            Self::Standard => (b'+', b'/'),
            Self::UrlSafe => (b'-', b'_'),
        }
    }
}

/// What the decoder accepts at the end of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Padding {
    /// No `=` at all.
    Forbidden,
    /// Exactly the canonical `=` (the text's length is a multiple of 4).
    Required,
    /// Canonical `=`, fewer, or none (what the `base64` crate calls
    /// indifferent).
    Optional,
}

/// Encodes `bytes`, with canonical `=` padding when `pad` is set.
pub(crate) fn encode(bytes: &[u8], alphabet: Alphabet, pad: bool) -> String {
    let mut out = vec![0u8; unpadded_len(bytes.len())];
    // Pass 1: 6-bit values, one per output character; eight at a time
    // while six input bytes remain.
    let mut wide_slots = out.chunks_exact_mut(8);
    let mut wide_groups = bytes.chunks_exact(6);
    for (slot, group) in (&mut wide_slots).zip(&mut wide_groups) {
        if let &[a, b, c, d, e, f] = group {
            slot.copy_from_slice(&spread([0, 0, a, b, c, d, e, f]).to_le_bytes());
        }
    }
    let mut slots = wide_slots.into_remainder().chunks_exact_mut(4);
    let mut groups = wide_groups.remainder().chunks_exact(3);
    for (slot, group) in (&mut slots).zip(&mut groups) {
        if let ([w, x, y, z], &[a, b, c]) = (slot, group) {
            (*w, *x, *y, *z) = (
                a >> 2,
                (a << 4 | b >> 4) & 63,
                (b << 2 | c >> 6) & 63,
                c & 63,
            );
        }
    }
    match (slots.into_remainder(), groups.remainder()) {
        ([w, x], &[a]) => (*w, *x) = (a >> 2, (a << 4) & 63),
        ([w, x, y], &[a, b]) => (*w, *x, *y) = (a >> 2, (a << 4 | b >> 4) & 63, (b << 2) & 63),
        _ => {}
    }
    // Pass 2: values to characters.
    let (plus, slash) = alphabet.specials();
    for value in &mut out {
        *value = char_of(*value, plus, slash);
    }
    if pad {
        while !out.len().is_multiple_of(4) {
            out.push(b'=');
        }
    }
    // Every byte is an ASCII character of the alphabet or `=`.
    String::from_utf8(out).unwrap_or_default()
}

/// Decodes `text` strictly; `None` when it is not the one canonical spelling
/// of some bytes under `alphabet` and `padding`.
pub(crate) fn decode(text: &str, alphabet: Alphabet, padding: Padding) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    decode_into(text, alphabet, padding, &mut out).then_some(out)
}

/// As [`decode`], for secret text (a master key): nothing decoded is left
/// in memory unwiped, whether the text decodes or not.
pub(crate) fn decode_secret(
    text: &str,
    alphabet: Alphabet,
    padding: Padding,
) -> Option<Zeroizing<Vec<u8>>> {
    let mut out = Zeroizing::new(Vec::new());
    decode_into(text, alphabet, padding, &mut out).then_some(out)
}

/// Decodes `text` into `out` (empty on entry); `false` when the text is not
/// canonical. `out` is allocated once and never grown, so no copy of its
/// contents is left behind.
fn decode_into(text: &str, alphabet: Alphabet, padding: Padding, out: &mut Vec<u8>) -> bool {
    let Some(text) = strip_padding(text.as_bytes(), padding) else {
        return false;
    };
    let Some(len) = decoded_len(text.len()) else {
        return false;
    };
    // Pass 1: characters to 6-bit values, in `out` itself; an invalid
    // character sets bit 7 of `invalid`.
    let (plus, slash) = alphabet.specials();
    out.resize(text.len(), 0);
    let mut invalid = 0;
    for (slot, &c) in out.iter_mut().zip(text) {
        let value = value_of(c, plus, slash);
        invalid |= value;
        *slot = value & 63;
    }
    // Pass 2: values to bytes, in place, front to back. Eight values at a
    // time become six bytes, written with one eight-byte store (its last two
    // bytes, always zero, are overwritten or truncated): group `k` is read
    // from `8k..8k + 8` before `6k..6k + 8` is written, and `6k + 8` never
    // passes `8k + 8`, so no value is overwritten before it is read.
    let wide = text.len() / 8;
    for k in 0..wide {
        let (read, write) = (k.saturating_mul(8), k.saturating_mul(6));
        let group = out
            .get(read..read.saturating_add(8))
            .and_then(|group| <[u8; 8]>::try_from(group).ok())
            .unwrap_or_default();
        if let Some(slot) = out.get_mut(write..write.saturating_add(8)) {
            slot.copy_from_slice(&(gather(u64::from_le_bytes(group)) << 16).to_be_bytes());
        }
    }
    // The last 0 to 7 values (never 1 or 5), copied out first.
    let mut rest = [0u8; 8];
    let tail_at = wide.saturating_mul(8);
    let rest_len = text.len().saturating_sub(tail_at);
    if let (Some(to), Some(from)) = (rest.get_mut(..rest_len), out.get(tail_at..)) {
        to.copy_from_slice(from);
    }
    out.truncate(len);
    let mut slots = out
        .get_mut(wide.saturating_mul(6)..)
        .unwrap_or_default()
        .chunks_exact_mut(3);
    let mut groups = rest.get(..rest_len).unwrap_or_default().chunks_exact(4);
    for (slot, group) in (&mut slots).zip(&mut groups) {
        if let ([x, y, z], &[a, b, c, d]) = (slot, group) {
            (*x, *y, *z) = (a << 2 | b >> 4, b << 4 | c >> 2, c << 6 | d);
        }
    }
    // The unused low bits of the last character must be zero.
    let stray = match (slots.into_remainder(), groups.remainder()) {
        ([x], &[a, b]) => {
            *x = a << 2 | b >> 4;
            b & 0x0f
        }
        ([x, y], &[a, b, c]) => {
            (*x, *y) = (a << 2 | b >> 4, b << 4 | c >> 2);
            c & 0x03
        }
        _ => 0,
    };
    rest.zeroize();
    invalid & 0x80 == 0 && stray == 0
}

/// Six bytes (the low 48 bits of `bytes`, big-endian) to their eight 6-bit
/// values, one per byte of the result, first value in the lowest byte.
const fn spread(bytes: [u8; 8]) -> u64 {
    let n = u64::from_be_bytes(bytes);
    // Two 24-bit halves in two 32-bit lanes, the first half low.
    let halves = (n >> 24) & 0xff_ffff | (n & 0xff_ffff) << 32;
    // Four 12-bit quarters in four 16-bit lanes.
    let quarters = (halves >> 12) & 0x0000_0fff_0000_0fff | (halves & 0x0000_0fff_0000_0fff) << 16;
    // Eight 6-bit values in eight bytes.
    (quarters >> 6) & 0x003f_003f_003f_003f | (quarters & 0x003f_003f_003f_003f) << 8
}

/// The inverse of [`spread`]: eight 6-bit values (first in the lowest byte)
/// to the six bytes they encode, in the low 48 bits, big-endian.
const fn gather(values: u64) -> u64 {
    // Pairs of values to 12-bit quarters in 16-bit lanes.
    let quarters = (values & 0x003f_003f_003f_003f) << 6 | (values >> 8) & 0x003f_003f_003f_003f;
    // Pairs of quarters to 24-bit halves in 32-bit lanes.
    let halves =
        (quarters & 0x0000_0fff_0000_0fff) << 12 | (quarters >> 16) & 0x0000_0fff_0000_0fff;
    (halves & 0xff_ffff) << 24 | halves >> 32
}

/// The length of the unpadded encoding of `len` bytes.
const fn unpadded_len(len: usize) -> usize {
    let tail = match len % 3 {
        0 => 0,
        1 => 2,
        _ => 3,
    };
    // `len / 3 * 4` is below `len * 2`, which fits: a slice is at most
    // `isize::MAX` bytes.
    (len / 3).saturating_mul(4).saturating_add(tail)
}

/// How many bytes `len` characters (unpadded) decode to; `None` for a
/// length that no encoding has (1 more than a multiple of 4).
const fn decoded_len(len: usize) -> Option<usize> {
    let tail = match len % 4 {
        0 => 0,
        2 => 1,
        3 => 2,
        _ => return None,
    };
    Some((len / 4).saturating_mul(3).saturating_add(tail))
}

/// The text without its `=` padding, or `None` when the padding is not
/// what `padding` allows. The padding's position depends only on the
/// length, so this may branch.
fn strip_padding(text: &[u8], padding: Padding) -> Option<&[u8]> {
    let pads = text
        .iter()
        .rev()
        .take(2)
        .take_while(|&&c| c == b'=')
        .count();
    let data = text.get(..text.len().saturating_sub(pads))?;
    // How many `=` the canonical spelling has.
    let canonical = data.len().wrapping_neg() % 4;
    let ok = match padding {
        Padding::Forbidden => pads == 0,
        Padding::Required => pads == canonical,
        Padding::Optional => pads <= canonical,
    };
    ok.then_some(data)
}

/// `0xff` when `yes`, else `0`; a mask, not a branch.
const fn mask(yes: bool) -> u8 {
    0u8.wrapping_sub(yes as u8)
}

/// The 6-bit value of character `c`, or a value with bit 7 set when `c` is
/// not in the alphabet; branch-free.
///
/// Each range contributes its offset under a mask that is all ones exactly
/// when `c` is in that range (`c - lo < n` is one unsigned comparison).
const fn value_of(c: u8, plus: u8, slash: u8) -> u8 {
    let upper = mask(c.wrapping_sub(b'A') < 26);
    let lower = mask(c.wrapping_sub(b'a') < 26);
    let digit = mask(c.wrapping_sub(b'0') < 10);
    let v62 = mask(c == plus);
    let v63 = mask(c == slash);
    (upper & c.wrapping_sub(b'A'))
        | (lower & c.wrapping_sub(b'a' - 26))
        | (digit & c.wrapping_add(52 - b'0'))
        | (v62 & 62)
        | (v63 & 63)
        | (!(upper | lower | digit | v62 | v63) & 0x80)
}

/// The character of 6-bit value `v` (0..=63); branch-free.
///
/// Starts at `'A' + v` and corrects once per range boundary passed.
const fn char_of(v: u8, plus: u8, slash: u8) -> u8 {
    v.wrapping_add(b'A')
        .wrapping_add(mask(v >= 26) & (b'a' - b'A' - 26))
        .wrapping_sub(mask(v >= 52) & (b'a' - 26 + 52 - b'0'))
        .wrapping_add(mask(v >= 62) & plus.wrapping_sub(b'0' + 10))
        .wrapping_add(mask(v >= 63) & slash.wrapping_sub(plus).wrapping_sub(1))
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use super::*;

    const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    #[test]
    fn every_value_maps_to_its_character_and_back() {
        for (alphabet, table) in [
            (Alphabet::Standard, STANDARD),
            (Alphabet::UrlSafe, URL_SAFE),
        ] {
            let (plus, slash) = alphabet.specials();
            for (v, &c) in table.iter().enumerate() {
                assert_eq!(char_of(v as u8, plus, slash), c, "{v}");
                assert_eq!(value_of(c, plus, slash), v as u8, "{}", c as char);
            }
            for c in 0..=255u8 {
                if !table.contains(&c) {
                    assert_eq!(value_of(c, plus, slash), 0x80, "{c}");
                }
            }
        }
    }

    #[test]
    fn rfc_4648_section_10_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, padded) in cases {
            assert_eq!(encode(plain.as_bytes(), Alphabet::Standard, true), padded);
            let bare = padded.trim_end_matches('=');
            assert_eq!(encode(plain.as_bytes(), Alphabet::UrlSafe, false), bare);
            for (text, padding) in [
                (padded, Padding::Required),
                (padded, Padding::Optional),
                (bare, Padding::Optional),
                (bare, Padding::Forbidden),
            ] {
                assert_eq!(
                    decode(text, Alphabet::Standard, padding).as_deref(),
                    Some(plain.as_bytes()),
                    "{text:?} {padding:?}"
                );
            }
        }
    }

    #[test]
    fn one_spelling_only() {
        let url = |text| decode(text, Alphabet::UrlSafe, Padding::Forbidden);
        assert_eq!(url("_-4"), Some(vec![0xff, 0xee]));
        for other in [
            "_-4=", "/+4", " _-4", "_-4\n", "_-5", "_-", "AAAAA", "A", "é",
        ] {
            assert_eq!(url(other), None, "{other:?}");
        }
        let std = |text, padding| decode(text, Alphabet::Standard, padding);
        // Padding: too much, inside the text, or where it is not allowed.
        for text in ["Zg===", "Zm8==", "Z===", "Zg==Zg==", "=", "==", "Zm9v="] {
            assert_eq!(std(text, Padding::Required), None, "{text:?}");
            assert_eq!(std(text, Padding::Optional), None, "{text:?}");
        }
        // Too little: only `Optional` allows it.
        assert_eq!(std("Zg=", Padding::Required), None);
        assert_eq!(std("Zg", Padding::Required), None);
        assert_eq!(std("Zg=", Padding::Optional), Some(vec![b'f']));
        assert_eq!(std("Zg==", Padding::Forbidden), None);
        // Stray bits under padding too.
        assert_eq!(std("Zh==", Padding::Required), None);
        assert_eq!(std("Zm9=", Padding::Required), None);
        // Mixed alphabets never decode.
        assert_eq!(std("-_-_", Padding::Forbidden), None);
        assert_eq!(url("+/+/"), None);
    }

    #[test]
    fn round_trips_every_length_and_byte() {
        for len in 0..=300usize {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 151 + len * 7) as u8).collect();
            for alphabet in [Alphabet::Standard, Alphabet::UrlSafe] {
                let bare = encode(&bytes, alphabet, false);
                assert_eq!(bare.len(), (len * 4).div_ceil(3));
                let padded = encode(&bytes, alphabet, true);
                assert_eq!(padded.len() % 4, 0);
                assert_eq!(
                    decode(&bare, alphabet, Padding::Forbidden),
                    Some(bytes.clone())
                );
                assert_eq!(
                    decode(&padded, alphabet, Padding::Required),
                    Some(bytes.clone())
                );
            }
        }
    }

    /// The `base64` crate, configured for the same rule, as the oracle.
    mod against_the_base64_crate {
        use base64::Engine as _;
        use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
        use base64::engine::{DecodePaddingMode, general_purpose};
        use proptest::prelude::*;

        use super::*;

        fn engine(alphabet: Alphabet, padding: Padding) -> GeneralPurpose {
            let mode = match padding {
                Padding::Forbidden => DecodePaddingMode::RequireNone,
                Padding::Required => DecodePaddingMode::RequireCanonical,
                Padding::Optional => DecodePaddingMode::Indifferent,
            };
            let alphabet = match alphabet {
                Alphabet::Standard => &base64::alphabet::STANDARD,
                Alphabet::UrlSafe => &base64::alphabet::URL_SAFE,
            };
            GeneralPurpose::new(
                alphabet,
                GeneralPurposeConfig::new()
                    .with_encode_padding(padding == Padding::Required)
                    .with_decode_padding_mode(mode),
            )
        }

        const RULES: [(Alphabet, Padding); 6] = [
            (Alphabet::Standard, Padding::Forbidden),
            (Alphabet::Standard, Padding::Required),
            (Alphabet::Standard, Padding::Optional),
            (Alphabet::UrlSafe, Padding::Forbidden),
            (Alphabet::UrlSafe, Padding::Required),
            (Alphabet::UrlSafe, Padding::Optional),
        ];

        /// Text that is mostly base64 of either alphabet, with now and then
        /// a `=`, a space or another byte.
        fn near_base64() -> impl Strategy<Value = String> {
            proptest::collection::vec(
                prop_oneof![
                    8 => proptest::sample::select(URL_SAFE.to_vec()),
                    2 => proptest::sample::select(b"+/=".to_vec()),
                    1 => any::<char>().prop_map(|c| c as u32 as u8),
                ],
                0..40,
            )
            .prop_map(|bytes| bytes.into_iter().map(char::from).collect())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4096))]

            #[test]
            fn encodes_as_the_crate_does(bytes in proptest::collection::vec(any::<u8>(), 0..100)) {
                assert_eq!(
                    encode(&bytes, Alphabet::UrlSafe, false),
                    general_purpose::URL_SAFE_NO_PAD.encode(&bytes)
                );
                assert_eq!(
                    encode(&bytes, Alphabet::Standard, true),
                    general_purpose::STANDARD.encode(&bytes)
                );
            }

            #[test]
            fn decodes_what_the_crate_decodes_and_nothing_else(text in near_base64()) {
                for (alphabet, padding) in RULES {
                    assert_eq!(
                        decode(&text, alphabet, padding),
                        engine(alphabet, padding).decode(&text).ok(),
                        "{text:?} {alphabet:?} {padding:?}"
                    );
                }
            }

            #[test]
            fn every_encoding_decodes_back(bytes in proptest::collection::vec(any::<u8>(), 0..100)) {
                for (alphabet, padding) in RULES {
                    let text = encode(&bytes, alphabet, padding == Padding::Required);
                    assert_eq!(decode(&text, alphabet, padding), Some(bytes.clone()));
                }
            }
        }
    }
}
