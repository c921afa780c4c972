//! Hostile input: every case gets its documented outcome, never a panic.
//!
//! Each case is raw bytes, parsed with `parse_strict` (default limits unless
//! stated) and, when that succeeds, validated against one form (`case`).
//! One file of cases per rule (`strict_json`, `envelope`, `values`,
//! `choices`); the tests are `outcomes`, and `differential` (the screen's
//! pass without a tree refuses them as the parse does).

#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "a test fails by panicking; inputs are fixed"
)]

mod case;
mod choices;
mod differential;
mod envelope;
mod outcomes;
mod strict_json;
mod values;
