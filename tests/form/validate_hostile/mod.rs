//! Hostile input: every case gets its documented outcome, never a panic.
//!
//! Each case is raw bytes, parsed with `parse_strict` (default limits unless
//! stated) and, when that succeeds, validated against one form (`case`).
//! One file of cases per rule; the tests are `outcomes`.

#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "a test fails by panicking; inputs are fixed"
)]

mod case;
mod choices;
mod envelope;
mod outcomes;
mod strict_json;
mod values;
