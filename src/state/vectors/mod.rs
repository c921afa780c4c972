//! Known-answer vectors: `tests/vectors/*.json`, checked by `check`, made by
//! `generate` (every file, the vectors in file order) from the families in
//! the files beside it.
//!
//! Test-only code kept in `src/` (`tests/layers.rs` lists it): it mints with
//! fixed nonces through the codec's crate-private internals, which must never
//! become API.
//!
//! - `file`: the files' shape, and how a vector becomes a codec, a binding
//!   and a clock.
//! - `arguments`: the cases of `arguments.json`.
//! - `inputs`: what the vectors share (keys, audience, clock, policy, nonces,
//!   a positive vector's draft).
//! - `positive`, `positive_edges`: the positive vectors of both modes.
//! - `negative`: how a negative vector is edited from a positive one; the
//!   negative vectors by family: `tampered`, `clock`, `text`, `edge`,
//!   `claims_rules`.

mod arguments;
mod check;
mod claims_rules;
mod clock;
mod edge;
mod file;
mod generate;
mod inputs;
mod negative;
mod positive;
mod positive_edges;
mod tampered;
mod text;
