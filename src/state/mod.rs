//! The `requestState` codec: mints and opens user-bound, expiring tokens.
//!
//! The crate root re-exports what a server sets up and calls
//! ([`StateCodec`], [`KeyRing`], [`MasterKey`], [`Policy`], [`Mode`],
//! [`Binding`], [`Method`](crate::wire::Method), [`StateContents`], [`StateError`], the replay guards).
//! Here besides: what an opened token holds ([`Claims`], [`FlowId`],
//! [`ProvenAnswer`], [`Reask`]), the digest it binds arguments with
//! ([`JsonDigest`](crate::json::JsonDigest)), a token's structure read without a key ([`TokenInfo`]),
//! the builder ([`CodecBuilder`]) and the errors of keys, configuration,
//! minting and replay guards.
//!
//! The files, bottom-up: `layout` (the token's bytes), `buffer` (the buffer
//! a token is minted in, wiped), `keys`, `binding`, `audience` (what an
//! audience may be) and `context` (what a tag covers), `claims` (what a
//! token carries) and `claims_json` (how it is written), `sealed` and
//! `signed` (the two constructions, side by side), `policy`, `error` (what
//! opening, minting and configuring report), `events` (what the operator is
//! told of a refusal), `generation` (which memory of a replay guard a token
//! was minted under), `codec` (minting and opening), `info` (reading a
//! token without a key), `record` (records kept outside a token, sealed:
//! tasks, connections, connect links), `replay/` (the replay-guard contract and the
//! in-process guard; the Redis one is in `crate::redis`), and `vectors/`
//! (the known-answer vectors' generator and checks, test-only).

mod audience;
mod binding;
mod buffer;
mod claims;
mod claims_json;
mod codec;
mod context;
mod error;
mod events;
mod generation;
mod info;
mod keys;
mod layout;
mod policy;
mod record;
mod replay;
mod sealed;
mod signed;
#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: overflow or truncation panics or fails the test"
)]
mod vectors;

pub(crate) use audience::is_endpoint_url;
pub use binding::Binding;
pub use claims::{Claims, FlowId, ProvenAnswer, Reask, StateContents};
pub(crate) use claims_json::{
    ANSWER_FRAME_LEN, GEN_MEMBER_LEN, INV_MEMBER_LEN, ONCE_MEMBER_LEN, SKELETON_LEN,
    STEP_MEMBER_LEN,
};
pub use codec::{CodecBuilder, StateCodec};
pub(crate) use context::push_field;
pub use error::{ConfigError, MintError, StateError};
pub use generation::Generation;
pub use info::TokenInfo;
pub(crate) use keys::fill_random;
pub use keys::{KeyError, KeyId, KeyRing, MIN_MASTER_KEY_LEN, MasterKey};
pub use layout::Mode;
pub(crate) use layout::{decode_token as decode_text, encode_token as encode_text};
pub use policy::Policy;
pub(crate) use record::{open_record, seal_record};
pub use replay::{
    AsyncReplayGuard, ConsumeFuture, MemoryReplayGuard, PrincipalKey, ReplayError, ReplayGuard,
    TokenUse,
};
