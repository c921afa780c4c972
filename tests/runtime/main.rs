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

/// What `future` gives when polled once, in tests whose futures never
/// wait (`open_async` without a guard that blocks, a step that is ready);
/// `what` names the future in the panic when it does wait.
#[allow(clippy::panic, reason = "test code: a panic is a failing test")]
fn ready<F: std::future::Future>(future: F, what: &str) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = std::task::Waker::noop();
    match future
        .as_mut()
        .poll(&mut std::task::Context::from_waker(waker))
    {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => panic!("{what} waited"),
    }
}
