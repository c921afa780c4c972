//! crate docs are written with the codec (issue 2)
#![forbid(unsafe_code)]

mod error;
mod form;
mod state;
mod validate;

// ---- Public API ------------------------------------------------------------
// state: the requestState codec
// form: forms and their requestedSchema
// validate: the strict answer validator
