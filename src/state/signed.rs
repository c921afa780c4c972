//! The signed construction: HMAC-SHA256 over the header, audience, binding
//! and the claims, which travel in clear (`docs/FORMAT.md`). The client can
//! read the claims but not change them.

use hmac::Mac;

use crate::state::context;
use crate::state::error::StateError;
use crate::state::keys::MasterKey;
use crate::state::layout::RawToken;

/// Signs `body` under `key`, authenticating `context`, and returns the tag
/// to append.
pub(super) fn sign(key: &MasterKey, context: &[u8], body: &[u8]) -> [u8; 32] {
    let mut mac = key.sign_mac();
    mac.update(context);
    mac.update(&context::field_len(body));
    mac.update(body);
    mac.finalize().into_bytes().into()
}

/// Verifies the token `raw` and hands its claims to `parse`, where they lie.
pub(super) fn open<T>(
    key: &MasterKey,
    context: &[u8],
    raw: &RawToken<'_>,
    parse: impl FnOnce(&[u8]) -> Option<T>,
) -> Result<T, StateError> {
    let mut mac = key.sign_mac();
    mac.update(context);
    mac.update(&context::field_len(raw.body));
    mac.update(raw.body);
    mac.verify_slice(raw.tag).map_err(|_| StateError::Forged)?;
    parse(raw.body).ok_or(StateError::BadClaims)
}
