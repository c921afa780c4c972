//! Whole multi-round flows, in process: the demo's tools driven round by
//! round, and every way a retry can be refused. One file per rule: the
//! demo's tools down each path (`ship_and_signup`), several asks in a round
//! (`asks`), which answers count (`answers`), invalid answers asked again
//! (`reasks`), the bytes a state has for answers (`answer_budget`), what the
//! client declared (`capabilities`), side effects once (`effects`), every
//! refused retry (`refusals`); the tools they drive are `tools.rs`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

mod answer_budget;
mod answers;
mod asks;
mod capabilities;
mod effects;
mod reasks;
mod refusals;
mod ship_and_signup;
mod tools;
