//! The authenticated context: what a token is bound to without carrying
//! it. `docs/FORMAT.md` (§3) describes the same bytes.

use crate::state::binding::Binding;
use crate::state::layout::Mode;

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
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_length_prefixed() {
        let mut out = Vec::new();
        push_field(&mut out, b"ab");
        assert_eq!(out, [2, 0, 0, 0, 0, 0, 0, 0, b'a', b'b']);
    }
}
