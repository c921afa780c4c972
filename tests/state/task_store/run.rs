//! Running a store's futures: on a tokio runtime for Redis, polled in place
//! for the memory store (its futures are ready at once, and a build
//! without feature `redis` has no tokio); and joining many at once.

use std::future::Future;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

/// Runs a future to its end on this thread.
pub(super) trait Run {
    /// `work`'s output.
    fn block_on<F: Future>(&self, work: F) -> F::Output;
}

/// Polls in place, yielding the thread between polls.
pub(super) struct InPlace;

impl Run for InPlace {
    fn block_on<F: Future>(&self, work: F) -> F::Output {
        let mut work = pin!(work);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(output) = work.as_mut().poll(&mut cx) {
                return output;
            }
            std::thread::yield_now();
        }
    }
}

#[cfg(feature = "redis")]
impl Run for tokio::runtime::Runtime {
    fn block_on<F: Future>(&self, work: F) -> F::Output {
        tokio::runtime::Runtime::block_on(self, work)
    }
}

/// A boxed future, as [`join_all`] takes them.
pub(super) type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Every future's output, in order, all of them polled together (so that
/// their requests are in flight at once).
pub(super) async fn join_all<T>(futures: Vec<Boxed<'_, T>>) -> Vec<T> {
    let mut pending: Vec<Option<Boxed<'_, T>>> = futures.into_iter().map(Some).collect();
    let mut done: Vec<Option<T>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        for (slot, output) in pending.iter_mut().zip(done.iter_mut()) {
            if let Some(future) = slot
                && let Poll::Ready(value) = future.as_mut().poll(cx)
            {
                *output = Some(value);
                *slot = None;
            }
        }
        if pending.iter().all(Option::is_none) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    done.into_iter().flatten().collect()
}
