//! crate docs are written with the codec (issue 2)
#![forbid(unsafe_code)]

mod error;
mod form;
mod state;
mod validate;

// ---- Public API ------------------------------------------------------------
// state: the requestState codec
// form: forms and their requestedSchema
pub use form::{Field, FieldKind, FieldType, Form, FormBuilder, FormError, FormFields, Format};
// validate: the strict answer validator
pub use validate::{
    AnswerError, AnswerRef, Answers, BindError, BindErrorKind, Issue, JsonError, Limits, Outcome,
    Problem, Reason, Report, parse_strict,
};
