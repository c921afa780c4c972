//! The input floor: strict JSON for untrusted bytes, the canonical form of a
//! JSON value, and the digest a token binds JSON with. Every other module
//! builds on these; nothing here imports the rest of the crate.
//!
//! The files:
//!
//! - `strict`: [`parse_strict`] and its [`Limits`] refuse what two parsers
//!   could read differently (duplicate keys, lone surrogates, numbers beyond
//!   a double, trailing data) and bound size and depth ([`JsonError`] says
//!   which);
//! - `scan`: [`check_strict`] refuses the same bytes without building a value;
//! - `canonical/` writes RFC 8785 (JCS) with exact integers, for digests (the
//!   state's test vectors print it, so the module is visible to the crate);
//! - `digest`: [`JsonDigest`] is SHA-256 over that canonical form.

pub(crate) mod canonical;
mod digest;
mod scan;
mod strict;

pub use digest::JsonDigest;
pub use scan::check_strict;
#[cfg(feature = "tower")]
pub(crate) use scan::scan_strict;
pub use strict::{JsonError, Limits, RESERVED_KEY_PREFIX, parse_strict};
