//! `mrtr_guard::runtime` and `mrtr_guard::wire`: the Streamable HTTP header
//! checks, an async host's opening, many threads through one `Flow`,
//! `Round::connect` without a route, `Round::step` outside a task, and
//! (feature `tracing`) the event each refused state emits, `Round::task` in
//! each phase, (feature
//! `metrics`) what each counts. One module per
//! concern; shared fixtures are `mrtr-guard-test-support` (tests/support/).

mod connect;
mod forms;
mod headers;
#[cfg(feature = "metrics")]
mod metrics_recorded;
mod open_async;
mod steps;
mod stress;
mod task_phase;
#[cfg(feature = "tracing")]
mod tracing_events;
