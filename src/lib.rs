//! crate docs come next
#![forbid(unsafe_code)]

mod error;
mod form;
mod state;
mod validate;

// ---- Public API ------------------------------------------------------------
// state: the requestState codec
pub use state::{
    Binding, Claims, CodecBuilder, ConfigError, Contents, FlowId, JsonDigest, KeyError, KeyId,
    KeyRing, MIN_MASTER_KEY_LEN, MasterKey, MemoryReplayGuard, Method, MintError, Mode, Policy,
    ReplayError, ReplayGuard, StateCodec, StateError,
};
// errors on the wire
pub use error::RpcError;
// form: forms and their requestedSchema
// validate: the strict answer validator
