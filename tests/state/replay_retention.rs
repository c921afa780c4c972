//! How long the in-memory replay guard remembers a consumed token, under
//! clocks that differ between requests: a later clock sweeping while another
//! request sits between its time check and its insert, and a clock that
//! steps backwards.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use mrtr_guard::state::{FlowId, ReplayError};
use mrtr_guard::{
    Binding, MasterKey, MemoryReplayGuard, Method, Policy, ReplayGuard, StateCodec, StateContents,
    StateError,
};
use time::OffsetDateTime;

use mrtr_guard_test_support::T0;
/// The default TTL and skew: a token minted at `at(0)` opens until `at(600)`,
/// and its use is remembered until `at(660)`.
const TTL: i64 = 600;
const SKEW: i64 = 60;

fn at(seconds: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(T0 + seconds).unwrap()
}

fn codec(guard: Arc<dyn ReplayGuard>) -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[5; 32]).unwrap(),
    )
    .replay_guard(guard)
    .build()
    .unwrap()
}

fn binding() -> Binding<'static> {
    Binding::new("ada", Method::ToolsCall, "redeem_voucher", None)
}

fn mint(codec: &StateCodec, now: OffsetDateTime) -> String {
    codec
        .start_at(&binding(), &StateContents::new(()), now)
        .unwrap()
}

fn open(codec: &StateCodec, token: &str, now: OffsetDateTime) -> Result<(), StateError> {
    codec.open_at::<()>(token, &binding(), now).map(|_| ())
}

#[test]
fn the_policy_is_the_one_these_tests_assume() {
    assert_eq!(Policy::default().ttl().whole_seconds(), TTL);
    assert_eq!(Policy::default().skew().whole_seconds(), SKEW);
}

#[test]
fn a_backward_clock_step_does_not_reopen_a_consumed_token() {
    // Each sweeping request's clock: at the token's expiry, and past its
    // expiry plus the skew.
    for sweep_at in [TTL, TTL + SKEW + 40] {
        let guard = Arc::new(MemoryReplayGuard::new(100));
        let codec = codec(guard.clone());
        let token = mint(&codec, at(0));
        assert_eq!(open(&codec, &token, at(10)), Ok(()));

        // A request whose clock reads later consumes another token.
        let other = mint(&codec, at(sweep_at - 50));
        assert_eq!(open(&codec, &other, at(sweep_at)), Ok(()));

        // The clock steps back: the first token still opens by time, and
        // must still be refused.
        assert_eq!(
            open(&codec, &token, at(20)),
            Err(StateError::Replayed),
            "swept at +{sweep_at}s"
        );
    }
}

/// A memory guard that stops inside `consume` for the call whose clock reads
/// `pause_at` (after the codec's time check, before the guard's own work)
/// until the test lets it go.
#[derive(Debug)]
struct PausingGuard {
    inner: MemoryReplayGuard,
    pause_at: OffsetDateTime,
    reached: Mutex<Sender<()>>,
    resume: Mutex<Receiver<()>>,
}

impl ReplayGuard for PausingGuard {
    fn consume(
        &self,
        flow_id: FlowId,
        round: u32,
        retain_until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> Result<(), ReplayError> {
        if now == self.pause_at {
            self.reached.lock().unwrap().send(()).unwrap();
            self.resume.lock().unwrap().recv().unwrap();
        }
        self.inner.consume(flow_id, round, retain_until, now)
    }
}

#[test]
fn a_later_clock_cannot_sweep_between_a_time_check_and_the_insert() {
    for sweep_at in [TTL, TTL + SKEW + 40] {
        let (reached_tx, reached_rx) = channel();
        let (resume_tx, resume_rx) = channel();
        let guard = Arc::new(PausingGuard {
            inner: MemoryReplayGuard::new(100),
            pause_at: at(TTL - 1),
            reached: Mutex::new(reached_tx),
            resume: Mutex::new(resume_rx),
        });
        let codec = Arc::new(codec(guard));
        let token = mint(&codec, at(0));
        assert_eq!(open(&codec, &token, at(10)), Ok(()));

        // The replay: its clock reads one second before expiry, so it passes
        // the codec's time check, and stops inside the guard.
        let replay = {
            let codec = Arc::clone(&codec);
            let token = token.clone();
            std::thread::spawn(move || open(&codec, &token, at(TTL - 1)))
        };
        reached_rx.recv().unwrap();

        // Meanwhile a request with a later clock consumes another token.
        let other = mint(&codec, at(sweep_at - 50));
        assert_eq!(open(&codec, &other, at(sweep_at)), Ok(()));

        resume_tx.send(()).unwrap();
        assert_eq!(
            replay.join().unwrap(),
            Err(StateError::Replayed),
            "swept at +{sweep_at}s"
        );
    }
}
