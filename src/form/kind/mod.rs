//! The field kinds of the MCP form profile, one file each: every file owns
//! its kind's schema emit, schema parse, definition check and answer check.
//! File, type and public name agree: `string.rs` holds `StringKind`
//! ([`FieldKind::String`](crate::form::FieldKind::String) and its formats),
//! `choice.rs` `ChoiceKind` (`FieldKind::Choice`), `multi_choice.rs`
//! `MultiChoiceKind` (`FieldKind::MultiChoice`), and so on for `boolean.rs`,
//! `integer.rs` and `number.rs`. The keywords every kind allows, and the
//! readers of keyword values more than one kind uses, are `keywords.rs`'s;
//! the offered options they share are `crate::form::option`'s. `dispatch.rs`
//! holds the dispatch; the kind files never refer back to it.

pub(crate) mod boolean;
pub(crate) mod choice;
mod dispatch;
pub(crate) mod integer;
pub(crate) mod keywords;
pub(crate) mod multi_choice;
pub(crate) mod number;
pub(crate) mod string;

pub(crate) use dispatch::Kind;
