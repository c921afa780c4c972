//! Group commit: the `SET`s of concurrent calls reach Redis together.
//!
//! A call queues its key and waits for its reply. When no batch is on its
//! way, the call that queues first spawns a committer, which sends
//! everything queued as one pipeline, hands every call its reply, and sends
//! what queued meanwhile, until the queue is empty. So a connection has one
//! batch at Redis at a time, and a batch is what arrived during the
//! previous one's round trip: a call alone waits for nobody, and under load
//! Redis is written to (and woken) once per batch, not once per call.
//!
//! The committer is a task of its own, so that a call dropped half-way
//! (its client hung up) strands nobody else's reply; the `SET` of a call
//! already dropped is not sent, which leaves its token as it was. A call
//! waits at most for the batch before its own and then its own, each
//! bounded by the guard's timeouts; when Redis does not answer a batch in
//! time (or cannot be reached), the calls queued meanwhile get that answer
//! with it, instead of a timeout of their own after it.

use std::mem;
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;

use crate::state::{Generation, ReplayError};

/// What a committer sends through: one connection's queue, and the `SET`s
/// of a batch on that connection.
pub(super) trait Committer: Send + Sync + 'static {
    /// The queue of the connection.
    fn queue(&self) -> &Queue;

    /// Sends `batch`.
    fn set_all(&self, batch: &[Entry]) -> impl Future<Output = Outcomes> + Send;
}

/// Each entry's outcome, in order; or, when Redis was not reached or did
/// not answer in time, that error for the whole batch.
pub(super) type Outcomes = Result<Vec<Result<(), ReplayError>>, ReplayError>;

/// One call's `SET`: its key, its time to live, the generation its token
/// was minted under (checked against its group's record in the same
/// script), where its outcome goes.
pub(super) struct Entry {
    pub(super) write: Write,
    outcome: oneshot::Sender<Result<(), ReplayError>>,
}

/// What one call writes: the round's key for its time to live, if the
/// record of the key's group holds the token's generation.
pub(super) struct Write {
    pub(super) key: String,
    pub(super) ttl_ms: u64,
    /// The group's generation record (same slot as `key`).
    pub(super) record: String,
    pub(super) group: u8,
    /// `None` for a token that carries none: the script refuses it, once
    /// Redis answered (so a Redis that does not is reported as such).
    pub(super) generation: Option<Generation>,
}

/// The calls waiting for the next batch of one connection.
#[derive(Default)]
pub(super) struct Queue {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    waiting: Vec<Entry>,
    /// A committer runs (and will see what is queued).
    committing: bool,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Every change is a push, a take or a flag: a panic elsewhere
        // cannot leave the state half-changed.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Makes `write` on the committer's connection, in the next batch: `Ok`
/// when this call set its key, [`ReplayError::Replayed`] when it was set
/// before, [`ReplayError::GenerationChanged`] when its group's record holds
/// another generation.
pub(super) async fn set<C: Committer>(committer: C, write: Write) -> Result<(), ReplayError> {
    let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
        ReplayError::Unavailable("the redis guard must be called on a tokio runtime".to_owned())
    })?;
    let (outcome, receiver) = oneshot::channel();
    let start = {
        let mut state = committer.queue().lock();
        state.waiting.push(Entry { write, outcome });
        !mem::replace(&mut state.committing, true)
    };
    if start {
        runtime.spawn(commit(Running {
            committer,
            armed: true,
        }));
    }
    receiver.await.unwrap_or_else(|_| Err(stopped()))
}

/// Sends batches until the queue is empty.
async fn commit<C: Committer>(mut running: Running<C>) {
    loop {
        // Let the runtime poll its sockets once more first: the calls they
        // bring join this batch.
        tokio::task::yield_now().await;
        let Some(batch) = running.take() else { return };
        match running.committer.set_all(&batch).await {
            Ok(outcomes) => {
                for (entry, outcome) in batch.into_iter().zip(outcomes) {
                    let _ = entry.outcome.send(outcome);
                }
            }
            // The calls queued meanwhile would wait for the same Redis
            // through a timeout of their own after this one: they are
            // answered now, so that no call waits longer than about one.
            Err(error) => {
                let waiting = mem::take(&mut running.committer.queue().lock().waiting);
                for entry in batch.into_iter().chain(waiting) {
                    let _ = entry.outcome.send(Err(error.clone()));
                }
            }
        }
    }
}

/// A committer's hold on its queue. Dropped while armed (its runtime shut
/// down, perhaps before the committer ever ran), it answers the calls
/// waiting [`stopped`] and lets the next call start a committer again.
struct Running<C: Committer> {
    committer: C,
    armed: bool,
}

impl<C: Committer> Running<C> {
    /// The next batch (the calls still waiting for their outcome), or
    /// `None`, the committer done, when there is none.
    fn take(&mut self) -> Option<Vec<Entry>> {
        let batch = {
            let mut state = self.committer.queue().lock();
            state.waiting.retain(|entry| !entry.outcome.is_closed());
            if state.waiting.is_empty() {
                state.committing = false;
                None
            } else {
                Some(mem::take(&mut state.waiting))
            }
        };
        self.armed = batch.is_some();
        batch
    }
}

impl<C: Committer> Drop for Running<C> {
    fn drop(&mut self) {
        if self.armed {
            let mut state = self.committer.queue().lock();
            state.waiting.clear();
            state.committing = false;
        }
    }
}

fn stopped() -> ReplayError {
    ReplayError::Unavailable("the redis guard's runtime stopped before redis answered".to_owned())
}
