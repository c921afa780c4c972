//! The name a replay guard knows a principal by.

use std::fmt;

use hmac::Mac as _;

use crate::state::binding::Binding;
use crate::state::context::push_field;
use crate::state::keys::MasterKey;

/// Who consumed a token, as a replay guard sees it: 16 bytes of
/// HMAC-SHA256 under the token's own key over the audience and the
/// binding's principal (domain-separated from token tags by its label).
/// It names the principal to the guard without revealing it: a guard's
/// store (Redis) holds this, never the principal, and without the master
/// key nobody can test a guess against it.
///
/// The same principal under the same key and audience always has the same
/// key, on every instance; after a key rotation its tokens under the new
/// key count apart from those under the old one until the old ones expire.
/// Anonymous calls share one key.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PrincipalKey([u8; 16]);

/// The label that separates principal keys from every token tag.
const PRINCIPAL_LABEL: &[u8] = b"mrtr-guard/v1/replay-principal";

impl PrincipalKey {
    /// A key from its 16 bytes (for a guard's own tests, or a store that
    /// reads them back).
    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }

    /// The key's bytes.
    pub fn to_bytes(self) -> [u8; 16] {
        self.0
    }

    /// The principal key of `binding` under `key` for `audience`.
    pub(crate) fn of(key: &MasterKey, audience: &str, binding: &Binding<'_>) -> Self {
        Self::of_principal(key, audience, binding.principal())
    }

    /// The key of `principal` (`None`: anonymous) under `key`, for
    /// `audience`: what a task store counts a principal's tasks by.
    pub(crate) fn of_principal(key: &MasterKey, audience: &str, principal: Option<&str>) -> Self {
        let mut input = Vec::with_capacity(
            64usize
                .saturating_add(audience.len())
                .saturating_add(principal.map_or(0, str::len)),
        );
        push_field(&mut input, PRINCIPAL_LABEL);
        push_field(&mut input, audience.as_bytes());
        match principal {
            None => input.push(0x00),
            Some(principal) => {
                input.push(0x01);
                push_field(&mut input, principal.as_bytes());
            }
        }
        let mut mac = key.sign_mac();
        mac.update(&input);
        let tag = mac.finalize().into_bytes();
        let mut out = [0u8; 16];
        for (slot, byte) in out.iter_mut().zip(tag.iter()) {
            *slot = *byte;
        }
        Self(out)
    }
}

impl fmt::Display for PrincipalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in &self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for PrincipalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PrincipalKey({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principal_keys_differ_per_principal_key_and_audience() {
        use crate::wire::Method;
        let key = MasterKey::from_bytes(&[3; 32]).unwrap();
        let other = MasterKey::from_bytes(&[4; 32]).unwrap();
        let ada = Binding::new("ada", Method::ToolsCall, "t", None);
        let ada_elsewhere = Binding::new("ada", Method::PromptsGet, "u", None);
        let bob = Binding::new("bob", Method::ToolsCall, "t", None);
        let anonymous = Binding::anonymous(Method::ToolsCall, "t", None);
        let of = |key: &MasterKey, binding: &Binding<'_>| PrincipalKey::of(key, "aud", binding);
        assert_eq!(
            of(&key, &ada),
            of(&key, &ada_elsewhere),
            "the principal only"
        );
        assert_ne!(of(&key, &ada), of(&key, &bob));
        assert_ne!(of(&key, &ada), of(&other, &ada));
        assert_ne!(of(&key, &ada), PrincipalKey::of(&key, "other", &ada));
        assert_ne!(
            of(&key, &anonymous),
            of(&key, &Binding::new("", Method::ToolsCall, "t", None))
        );
        let shown = format!("{:?} {}", of(&key, &ada), of(&key, &ada));
        assert!(!shown.contains("ada"), "{shown}");
        assert_eq!(of(&key, &ada).to_string().len(), 32);
    }
}
