//! The metrics the crate records with feature `metrics`, through the
//! [`metrics`](https://docs.rs/metrics) facade: every name in one place, and
//! the small functions the rest of the crate records with.
//!
//! The application installs the exporter it wants (Prometheus, StatsD,
//! OpenTelemetry...); until it does, recording costs a check and does
//! nothing. Without feature `metrics` the names are still here (for
//! dashboards and tests), and nothing is recorded. No label holds a token,
//! a principal, a flow id or a submitted value: every label value is one of
//! a fixed set of codes, listed with each name.
//!
//! | name | kind | labels | counts |
//! | --- | --- | --- | --- |
//! | [`STATE_REFUSED`] | counter | `reason` | refused `requestState`s, by [`StateError::reason`](crate::StateError::reason) (a replay is `replayed`) |
//! | [`REPLAY_GUARD_CALLS`] | counter | `outcome` | replay guard calls: `recorded`, `replayed`, `share_exceeded`, `generation` (another guard generation, or none), `failed` |
//! | [`REPLAY_GUARD_SECONDS`] | histogram | | how long each replay guard call took, in seconds |
//! | [`REASKS`] | counter | | invalid answers asked again |
//! | [`FLOWS_ENDED`] | counter | `end` | calls whose round ended the flow: `completed`, `declined`, `cancelled`, `invalid_answers`, `too_many_rounds`, `deadline_passed`, `error` |
//! | [`LEGACY_SESSIONS_OPENED`] | counter | | sessions opened by `2025-11-25` and older clients |
//! | [`LEGACY_SESSIONS_OPEN`] | gauge | | those sessions open now |
//! | [`TASKS`] | counter | `status` | tasks entering each status |
//!
//! `docs/GUIDE.md` ("Metrics") says the same for operators.

/// Refused `requestState`s, label `reason`: the
/// [`StateError::reason`](crate::StateError::reason) code.
pub const STATE_REFUSED: &str = "mrtr_guard_state_refused_total";

/// Replay guard calls, label `outcome`: `recorded` (first use), `replayed`,
/// `share_exceeded` (the principal's share is full), `failed` (the guard's
/// store failed; the state was refused).
pub const REPLAY_GUARD_CALLS: &str = "mrtr_guard_replay_guard_calls_total";

/// How long each replay guard call took, in seconds (a histogram).
pub const REPLAY_GUARD_SECONDS: &str = "mrtr_guard_replay_guard_seconds";

/// Invalid answers asked again (the form's message followed by what to
/// correct). The invalid answer that ends a flow is not one: it counts in
/// [`FLOWS_ENDED`] as `invalid_answers`.
pub const REASKS: &str = "mrtr_guard_reasks_total";

/// Calls whose round ended the flow, label `end`: `completed` (the handler's
/// result), `declined` and `cancelled` (by the user), `invalid_answers`,
/// `too_many_rounds` and `deadline_passed` (aborted), `error` (the handler's
/// error, or its misuse). A round that asks does not end the flow.
pub const FLOWS_ENDED: &str = "mrtr_guard_flows_ended_total";

/// Sessions opened by clients of the session revisions (`2025-11-25`,
/// `2025-06-18`) through `rmcp::McpHandler`.
pub const LEGACY_SESSIONS_OPENED: &str = "mrtr_guard_legacy_sessions_opened_total";

/// Sessions of the session revisions open now in this process (a gauge).
pub const LEGACY_SESSIONS_OPEN: &str = "mrtr_guard_legacy_sessions_open";

/// Tasks entering a status, label `status`: the task's status as the
/// protocol names it.
pub const TASKS: &str = "mrtr_guard_tasks_total";

/// Registers each name's unit and description with the installed recorder,
/// for exporters that show them (Prometheus' `# HELP`). Call it once, after
/// installing the recorder; recording works without it.
#[cfg(feature = "metrics")]
pub fn describe() {
    use ::metrics::{Unit, describe_counter, describe_gauge, describe_histogram};

    describe_counter!(STATE_REFUSED, "refused requestStates, by reason");
    describe_counter!(REPLAY_GUARD_CALLS, "replay guard calls, by outcome");
    describe_histogram!(
        REPLAY_GUARD_SECONDS,
        Unit::Seconds,
        "how long each replay guard call took"
    );
    describe_counter!(REASKS, "invalid answers asked again");
    describe_counter!(FLOWS_ENDED, "calls whose round ended the flow, by end");
    describe_counter!(
        LEGACY_SESSIONS_OPENED,
        "sessions opened by session-revision clients"
    );
    describe_gauge!(LEGACY_SESSIONS_OPEN, "session-revision sessions open now");
    describe_counter!(TASKS, "tasks entering each status");
}

/// Counts a refused state.
pub(crate) fn state_refused(reason: &'static str) {
    #[cfg(feature = "metrics")]
    ::metrics::counter!(STATE_REFUSED, "reason" => reason).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = reason;
}

/// Counts an invalid answer asked again.
pub(crate) fn reasked() {
    #[cfg(feature = "metrics")]
    ::metrics::counter!(REASKS).increment(1);
}

/// Counts a flow that ended as `end` (one of [`FLOWS_ENDED`]'s codes).
pub(crate) fn flow_ended(end: &'static str) {
    #[cfg(feature = "metrics")]
    ::metrics::counter!(FLOWS_ENDED, "end" => end).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = end;
}

/// Counts a legacy session opened, and sets the gauge to the `open` ones.
#[cfg(feature = "server")]
pub(crate) fn legacy_session_opened(open: usize) {
    #[cfg(feature = "metrics")]
    ::metrics::counter!(LEGACY_SESSIONS_OPENED).increment(1);
    legacy_sessions_open(open);
}

/// Sets the gauge of legacy sessions open now.
#[cfg(feature = "server")]
pub(crate) fn legacy_sessions_open(open: usize) {
    #[cfg(feature = "metrics")]
    ::metrics::gauge!(LEGACY_SESSIONS_OPEN).set(f64::from(u32::try_from(open).unwrap_or(u32::MAX)));
    #[cfg(not(feature = "metrics"))]
    let _ = open;
}

/// Counts a task entering `status` (the protocol's name for it).
#[cfg_attr(
    not(feature = "server"),
    expect(dead_code, reason = "the task host records through it")
)]
pub(crate) fn task_status(status: &'static str) {
    #[cfg(feature = "metrics")]
    ::metrics::counter!(TASKS, "status" => status).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = status;
}

/// One replay guard call, timed from [`start`](Self::start) to
/// [`stop`](Self::stop) (with feature `metrics`; nothing without).
#[derive(Debug)]
pub(crate) struct GuardTimer {
    #[cfg(feature = "metrics")]
    started: std::time::Instant,
}

impl GuardTimer {
    /// Starts timing a guard call.
    pub(crate) fn start() -> Self {
        Self {
            #[cfg(feature = "metrics")]
            started: std::time::Instant::now(),
        }
    }

    /// Records the call's latency and its `outcome` (one of
    /// [`REPLAY_GUARD_CALLS`]'s codes).
    pub(crate) fn stop(self, outcome: &'static str) {
        #[cfg(feature = "metrics")]
        {
            ::metrics::histogram!(REPLAY_GUARD_SECONDS).record(self.started.elapsed());
            ::metrics::counter!(REPLAY_GUARD_CALLS, "outcome" => outcome).increment(1);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = (self, outcome);
    }
}
