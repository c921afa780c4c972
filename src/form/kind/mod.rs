//! The field kinds of the MCP form profile, one file each: every file owns
//! its kind's schema emit, schema parse, definition check and answer check.
//! Each file is named after the type it holds (`text.rs`: `Text`, `single.rs`:
//! `Single`, a single choice; `choice.rs`: `Choice`, one offered option). This
//! `dispatch.rs` holds the dispatch; the kind files never refer back to it.

pub(crate) mod boolean;
pub(crate) mod choice;
mod dispatch;
pub(crate) mod integer;
pub(crate) mod keywords;
pub(crate) mod multi;
pub(crate) mod number;
pub(crate) mod single;
pub(crate) mod text;

pub(crate) use dispatch::Kind;
