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

use mrtr_guard::state::{FlowId, Generation, PrincipalKey, ReplayError, TokenUse};
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
    fn consume(&self, token: TokenUse, now: OffsetDateTime) -> Result<(), ReplayError> {
        if now == self.pause_at {
            self.reached.lock().unwrap().send(()).unwrap();
            self.resume.lock().unwrap().recv().unwrap();
        }
        self.inner.consume(token, now)
    }

    fn generation(&self, flow_id: FlowId) -> Option<Generation> {
        ReplayGuard::generation(&self.inner, flow_id)
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

/// One principal looping "round 1, then round 2 with no answer" against a
/// small shared guard: it is refused once it holds its share, and another
/// principal's flow still runs to the end. (Before fair shares, the flood
/// filled the guard and every other principal was refused as `Full`.)
#[test]
fn one_principal_flooding_a_small_guard_is_refused_while_another_completes_a_flow() {
    let guard = Arc::new(MemoryReplayGuard::new(200));
    assert_eq!(guard.principal_share(), 64, "a tenth, at least 64");
    let codec = codec(guard.clone());
    let mallory = Binding::new("mallory", Method::ToolsCall, "redeem_voucher", None);
    let mut refused = 0;
    for n in 0..500 {
        let token = codec
            .start_at(&mallory, &StateContents::new(()), at(n / 10))
            .unwrap();
        match codec.open_at::<()>(&token, &mallory, at(n / 10)) {
            Ok(_) => assert!(n < 64, "opened past the share at {n}"),
            Err(error) => {
                assert_eq!(error, StateError::ReplayShareExceeded);
                assert_eq!(error.reason(), "replay_share_exceeded");
                // The client is told nothing more than for any other refusal.
                assert_eq!(
                    mrtr_guard::RpcError::from(error).to_json(),
                    mrtr_guard::RpcError::invalid_request_state().to_json()
                );
                refused += 1;
            }
        }
    }
    assert_eq!(refused, 500 - 64);
    assert_eq!((guard.len(), guard.principals()), (64, 1));

    // Ada's whole flow: round 1 opens, its next round opens, each once.
    let first = mint(&codec, at(50));
    let claims = codec.open_at::<()>(&first, &binding(), at(51)).unwrap();
    let second = codec
        .next_at(&binding(), &claims, &StateContents::new(()), at(52))
        .unwrap();
    assert_eq!(open(&codec, &second, at(53)), Ok(()));
    assert_eq!(open(&codec, &second, at(54)), Err(StateError::Replayed));
    assert_eq!(guard.principals(), 2);

    // Once mallory's entries pass their retention, its share is free again.
    let later = at(TTL + SKEW + 60);
    let token = codec
        .start_at(&mallory, &StateContents::new(()), later)
        .unwrap();
    assert!(codec.open_at::<()>(&token, &mallory, later).is_ok());
}

/// The share is the guard's to set, and the async face counts the same
/// entries as the sync one.
#[test]
fn the_share_is_configurable_and_counted_on_both_faces() {
    let guard = Arc::new(MemoryReplayGuard::new(1000).with_principal_share(2));
    let codec = codec(guard.clone());
    let tokens: Vec<String> = (0..3).map(|_| mint(&codec, at(0))).collect();
    assert_eq!(open(&codec, &tokens[0], at(1)), Ok(()));
    let opened = block_on(codec.open_at_async::<()>(&tokens[1], &binding(), at(1)));
    assert!(opened.is_ok(), "{opened:?}");
    assert_eq!(
        block_on(codec.open_at_async::<()>(&tokens[2], &binding(), at(1))).err(),
        Some(StateError::ReplayShareExceeded)
    );
    assert_eq!(
        block_on(codec.open_at_async::<()>(&tokens[0], &binding(), at(1))).err(),
        Some(StateError::Replayed),
        "a replay is a replay, share or not"
    );
    // Called directly, `consume` counts against the principal it is given.
    let unguarded = StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[5; 32]).unwrap(),
    )
    .build()
    .unwrap();
    let flow = unguarded
        .open_at::<()>(&tokens[2], &binding(), at(1))
        .unwrap()
        .flow_id();
    let other = PrincipalKey::from_bytes([7; 16]);
    let token = TokenUse::new(other, flow, 1, at(0), time::Duration::ZERO, at(600))
        .with_generation(guard.generation(flow));
    assert_eq!(guard.consume(token, at(1)), Ok(()));
    assert_eq!(guard.len(), 3);
}

/// The guard of a process that restarted: a new guard (a new process
/// draws a new generation, and nothing else of its predecessor's memory),
/// the same key ring. Every state the old process consumed, and every one
/// it minted, is refused with the reason that says why; flows begun on the
/// new process are served at once.
#[test]
fn a_restarted_process_reopens_nothing_its_previous_run_consumed() {
    let before = codec(Arc::new(MemoryReplayGuard::new(100)));
    let consumed: Vec<String> = (0..60).map(|_| mint(&before, at(0))).collect();
    for token in &consumed {
        assert_eq!(open(&before, token, at(1)), Ok(()));
    }
    let in_flight = mint(&before, at(2));
    drop(before);

    let after = codec(Arc::new(MemoryReplayGuard::new(100)));
    let reopened = consumed
        .iter()
        .filter(|token| open(&after, token, at(3)).is_ok())
        .count();
    assert_eq!(
        reopened, 0,
        "states consumed before the restart opened again"
    );
    for token in &consumed {
        assert_eq!(
            open(&after, token, at(3)),
            Err(StateError::GenerationChanged)
        );
    }
    assert_eq!(
        open(&after, &in_flight, at(3)),
        Err(StateError::GenerationChanged),
        "a flow begun before the restart starts over"
    );
    let fresh = mint(&after, at(3));
    assert_eq!(
        open(&after, &fresh, at(3)),
        Ok(()),
        "a new flow is served at once"
    );
    // A token without a generation (an older version's, or one minted by a
    // codec without the guard) is refused too, and says why.
    let unguarded = StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[5; 32]).unwrap(),
    )
    .build()
    .unwrap();
    let old = mint(&unguarded, at(3));
    assert_eq!(open(&after, &old, at(3)), Err(StateError::NoGeneration));
    assert_eq!(
        StateError::GenerationChanged.to_string(),
        "the guard lost its memory (generation changed)"
    );
}

/// Polls a future that never waits (the memory guard's) to its end.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the memory guard's future waited"),
    }
}
