//! Forms and their strict validator, in one module: [`Form`] (compiled,
//! immutable, `Send + Sync`) and its builder, the `requestedSchema` emitted and
//! parsed, and the check of an untrusted `ElicitResult` into [`Answers`].
//!
//! The crate root re-exports what a runtime user names ([`Form`], [`Field`],
//! [`FormError`], [`FormFields`], [`FormChoice`], [`Answers`], [`Report`]).
//! Here besides: the builder and field kinds, the standalone validator's
//! verdict ([`Verdict`]) and its reasons, and [`Answers::bind`]'s errors. The
//! strict JSON parser it reads schemas with is [`crate::json::parse_strict`].
//!
//! Each field kind has one file under `kind/` that owns its schema emit, its
//! schema parse and its answer check. Files here import each other by file
//! path, never through this file, and the imports form no cycle
//! (`tests/layers.rs` checks both). The files, from the bottom up:
//!
//! - `report` (reasons, problems), `title`, `numbers`,
//!   `format/` (email, uri, date): nothing of the form below them;
//! - `error`; `option` (a choice's offered options); `value` (checked
//!   answers); `kind/` (one file per kind, named after it);
//! - `field`, `fields`, `choice` (`FormChoice`, a choice from an enum),
//!   `schema`; `compiled` (`Form`, `FormBuilder`);
//! - `bind`, `answers`, `validate` (`Form::validate`), `message` (a refused
//!   answer explained to its user).

mod answers;
mod bind;
mod choice;
mod compiled;
mod error;
mod field;
mod fields;
mod format;
mod kind;
mod message;
mod numbers;
mod option;
mod report;
mod schema;
mod title;
mod validate;
mod value;

pub use answers::{AnswerError, Answers};
pub use bind::{BindError, BindErrorKind};
pub use choice::FormChoice;
pub use compiled::{Form, FormBuilder};
pub use error::FormError;
pub use field::{Field, FieldKind};
pub use fields::{FieldType, FormFields};
pub use format::Format;
pub use numbers::Bound;
pub use report::{Issue, Problem, Reason, Report};
pub use schema::RequestedSchema;
pub use validate::Verdict;
pub use value::AnswerRef;
