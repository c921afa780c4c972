//! How a negative vector is made: a copy of a positive one, edited, that
//! must fail to open for the reason it names; its token's bytes edited, or
//! minted anew from claim bytes as they are.

use super::file::{Vector, unhex};
use super::inputs::nonce_for;
use crate::state::layout::{self, NONCE_LEN};

/// A negative vector made from a positive one: `change` edits a copy.
pub(super) fn negative(
    base: &Vector,
    name: &str,
    description: &str,
    reason: &str,
    change: impl FnOnce(&mut Vector),
) -> Vector {
    let mut vector = base.clone();
    vector.name = format!("{}-{name}", base.mode);
    vector.description = description.to_owned();
    vector.arguments_canonical = None;
    vector.arguments_digest = None;
    vector.context = None;
    vector.claims_json = None;
    vector.nonce = None;
    vector.mint_key = None;
    vector.expect = "fail".to_owned();
    vector.reason = Some(reason.to_owned());
    change(&mut vector);
    vector
}

pub(super) fn edit_bytes(token: &str, edit: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut bytes = layout::decode_token(token).unwrap();
    edit(&mut bytes);
    layout::encode_token(&bytes)
}

/// Mints a token of arbitrary claim bytes with the vector's minting key and
/// binding.
pub(super) fn mint_raw(base: &Vector, plain: &[u8], nonce_seed: u8) -> String {
    let nonce = (base.mode == "sealed")
        .then(|| <[u8; NONCE_LEN]>::try_from(unhex(&nonce_for(nonce_seed))).unwrap());
    base.codec(true)
        .mint_bytes(&base.binding.binding(), plain, nonce)
        .unwrap()
}
