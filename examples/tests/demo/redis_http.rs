//! The demo server (`examples/src/bin/signup_server.rs`'s handler and router) over
//! real HTTP on loopback, with the Redis replay guard (package `mrtr-guard-examples`, feature
//! `redis`):
//!
//! - a stalled Redis (a listener that accepts and never answers) delays only
//!   the calls that carry a state, and those only up to the guard's timeout;
//! - two instances sharing one Redis (`MRTR_GUARD_REDIS_URL`, skipped outside
//!   CI when unset, as in `tests/state/redis_guard.rs`): every state, presented to
//!   both at once, opens exactly once.
//!
//! The client is `http_client.rs`: a few lines of HTTP/1.1, one
//! connection per request, so the two presentations of a state never share
//! a connection.

#![cfg(feature = "redis")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::http_client::{call, first, is_state_refusal, retry, state_of, text_of};
use mrtr_guard::{MasterKey, RedisReplayGuard, StateCodec};
use mrtr_guard_examples::serve as support;
use mrtr_guard_examples::signup_service::Signup;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// What every instance's states are bound to: the name clients reach them
/// at, not an instance's own port.
const AUDIENCE: &str = "http://mcp.test/mcp";

fn codec(guard: RedisReplayGuard) -> StateCodec {
    StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[0x42; 32]).unwrap())
        .replay_guard(Arc::new(guard))
        .build()
        .unwrap()
}

/// Serves the demo over `codec` on a free loopback port of the current
/// runtime.
async fn start_instance(codec: StateCodec) -> SocketAddr {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = support::router(Signup::service(codec).unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// Runs the two tests one after the other: the two-instance test keeps both
/// cores busy, which would blur the stalled-Redis test's timings.
fn alone() -> MutexGuard<'static, ()> {
    static ALONE: Mutex<()> = Mutex::new(());
    ALONE.lock().unwrap_or_else(PoisonError::into_inner)
}

// ---- a stalled Redis -----------------------------------------------------------

/// A TCP listener that accepts every connection and never answers; it holds
/// them until the process ends.
fn stalled_redis() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    addr
}

#[test]
fn a_stalled_redis_delays_only_the_calls_that_need_it_and_only_up_to_its_timeout() {
    const TIMEOUT: Duration = Duration::from_millis(600);
    const GUARDED: usize = 8;
    const PLAIN: usize = 8;
    let _alone = alone();
    let redis = stalled_redis();
    let guard = RedisReplayGuard::builder(format!("redis://{redis}/"))
        .connect_timeout(TIMEOUT)
        .command_timeout(TIMEOUT)
        .build()
        .unwrap();
    // The server on its own runtime with two workers, fewer than the calls
    // that wait on Redis: a call that held a worker would stall the rest.
    let server = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let addr = server.block_on(start_instance(codec(guard)));
    let client = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    let (guarded, plain) = client.block_on(async move {
        // Round 1 needs no guard: it answers with a state at once.
        let mut states = Vec::new();
        for n in 0..GUARDED {
            let answer = call(addr, &format!("u{n}"), "ShipOrder", &first("ShipOrder")).await;
            states.push(state_of(&answer).expect("round 1 asks"));
        }
        let timed = |user: String, params: Value| async move {
            let started = Instant::now();
            let answer = call(addr, &user, "ShipOrder", &params).await;
            (answer, started.elapsed())
        };
        // The retries wait on the stalled Redis...
        let answers = json!({"ship": {"action": "accept", "content": {"trackingNumber": "1Z"}}});
        let guarded: Vec<_> = states
            .iter()
            .enumerate()
            .map(|(n, state)| {
                let params = retry("ShipOrder", answers.clone(), state);
                tokio::spawn(timed(format!("u{n}"), params))
            })
            .collect();
        // ...while new calls, which carry no state, come in.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let plain: Vec<_> = (0..PLAIN)
            .map(|n| tokio::spawn(timed(format!("p{n}"), first("ShipOrder"))))
            .collect();
        let mut done = (Vec::new(), Vec::new());
        for task in guarded {
            done.0.push(task.await.unwrap());
        }
        for task in plain {
            done.1.push(task.await.unwrap());
        }
        done
    });
    server.shutdown_background();
    client.shutdown_background();

    for (answer, elapsed) in &plain {
        assert!(state_of(answer).is_some(), "{answer}");
        assert!(
            *elapsed < TIMEOUT / 2,
            "a call without state waited {elapsed:?} behind the stalled Redis"
        );
    }
    for (answer, elapsed) in &guarded {
        assert!(is_state_refusal(answer), "fails closed: {answer}");
        assert!(
            *elapsed >= TIMEOUT - Duration::from_millis(50)
                && *elapsed < TIMEOUT + Duration::from_millis(600),
            "a call with state answered after {elapsed:?}, timeout {TIMEOUT:?}"
        );
    }
    let slowest = guarded.iter().map(|(_, elapsed)| *elapsed).max();
    let _ = writeln!(
        std::io::stderr(),
        "stalled redis: slowest guarded call {slowest:?}, slowest plain call {:?}",
        plain.iter().map(|(_, elapsed)| *elapsed).max()
    );
}

// ---- two instances, one Redis ------------------------------------------------

/// The plain test server's URL, or `None` (after a notice) when it is not set
/// outside CI.
fn redis_url() -> Option<String> {
    const VAR: &str = "MRTR_GUARD_REDIS_URL";
    match std::env::var(VAR) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os("CI").is_some() => {
            panic!("{VAR} is not set: CI must start a redis-server (scripts/redis-up)")
        }
        _ => {
            static NOTICE: Once = Once::new();
            NOTICE.call_once(|| {
                let _ = writeln!(
                    std::io::stderr(),
                    "notice: {VAR} is not set; skipping the two-instance HTTP test"
                );
            });
            None
        }
    }
}

const FLOWS: usize = 2_000;
/// Flows driven at once.
const LANES: usize = 16;
/// The whole test's budget; it normally takes a fraction of it.
const BUDGET: Duration = Duration::from_secs(120);

/// What happened to the presentations of one state.
#[derive(Debug, Default)]
struct Tally {
    states: usize,
    accepted: usize,
    refused: usize,
}

/// Presents `params` to both instances at once (`first` gets it first in the
/// join, alternating between flows) and returns the one answer that was not
/// refused; panics unless exactly one of the two was.
async fn present_twice(
    instances: [SocketAddr; 2],
    first: usize,
    user: &str,
    tool: &str,
    params: &Value,
    tally: &mut Tally,
) -> Value {
    let (a, b) = tokio::join!(
        call(instances[first], user, tool, params),
        call(instances[1 - first], user, tool, params),
    );
    tally.states += 1;
    let (accepted, refused): (Vec<Value>, Vec<Value>) = [a, b]
        .into_iter()
        .partition(|answer| !is_state_refusal(answer));
    assert_eq!(
        (accepted.len(), refused.len()),
        (1, 1),
        "{user}: each state opens exactly once: {accepted:?} / {refused:?}"
    );
    tally.accepted += 1;
    tally.refused += 1;
    accepted.into_iter().next().unwrap()
}

/// Flow `n`: `ShipOrder` (one state) for even `n`, `signup` on the pro plan
/// (two states) for odd `n`. Round 1 goes to instance `n % 2`; every state to
/// both.
async fn drive(instances: [SocketAddr; 2], n: usize, tally: &mut Tally) {
    let user = format!("user{n}");
    let side = n % 2;
    let tool = if side == 0 { "ShipOrder" } else { "signup" };
    let answer = call(instances[side], &user, tool, &first(tool)).await;
    let state = state_of(&answer).unwrap_or_else(|| panic!("{user}: round 1 asks: {answer}"));
    if tool == "ShipOrder" {
        let answers =
            json!({"ship": {"action": "accept", "content": {"trackingNumber": format!("T{n}")}}});
        let done = present_twice(
            instances,
            side,
            &user,
            tool,
            &retry(tool, answers, &state),
            tally,
        )
        .await;
        assert_eq!(
            text_of(&done),
            Some(format!("Shipped as T{n}.").as_str()),
            "{done}"
        );
        return;
    }
    let email = format!("{user}@example.com");
    let account =
        json!({"account": {"action": "accept", "content": {"email": email, "plan": "pro"}}});
    let asked = present_twice(
        instances,
        1 - side,
        &user,
        tool,
        &retry(tool, account, &state),
        tally,
    )
    .await;
    let state = state_of(&asked).unwrap_or_else(|| panic!("{user}: round 2 asks: {asked}"));
    let confirm = json!({"confirm": {"action": "accept"}});
    let done = present_twice(
        instances,
        side,
        &user,
        tool,
        &retry(tool, confirm, &state),
        tally,
    )
    .await;
    let expected = format!("Account created for {email}: Pro plan.");
    assert_eq!(text_of(&done), Some(expected.as_str()), "{done}");
}

#[test]
fn two_instances_on_one_redis_open_each_state_exactly_once() {
    let Some(url) = redis_url() else { return };
    let _alone = alone();
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(two_instances(url));
}

async fn two_instances(url: String) {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let prefix = format!("mrtr-guard-test:{}-{nanos}:http:", std::process::id());
    // Each instance has its own guard (its own connections) on the one Redis.
    let instance = || {
        let guard = RedisReplayGuard::builder(url.as_str())
            .key_prefix(prefix.as_str())
            .command_timeout(Duration::from_secs(2))
            .connect_timeout(Duration::from_secs(2))
            .max_idle(LANES)
            .build()
            .unwrap();
        start_instance(codec(guard))
    };
    let instances = [instance().await, instance().await];

    let started = Instant::now();
    let lanes: Vec<_> = (0..LANES)
        .map(|lane| {
            tokio::spawn(async move {
                let mut tally = Tally::default();
                for n in (lane..FLOWS).step_by(LANES) {
                    drive(instances, n, &mut tally).await;
                }
                tally
            })
        })
        .collect();
    let mut total = Tally::default();
    for lane in lanes {
        let tally = tokio::time::timeout(BUDGET.saturating_sub(started.elapsed()), lane)
            .await
            .expect("the flows finish within the budget")
            .unwrap();
        total.states += tally.states;
        total.accepted += tally.accepted;
        total.refused += tally.refused;
    }
    let elapsed = started.elapsed();

    // Half the flows have one state, half two.
    let states = FLOWS / 2 + FLOWS / 2 * 2;
    assert_eq!(total.states, states, "{total:?}");
    assert_eq!(total.accepted, states, "{total:?}");
    assert_eq!(total.refused, states, "{total:?}");
    let _ = writeln!(
        std::io::stderr(),
        "two instances: {FLOWS} flows, {states} states each presented twice, \
         {} HTTP requests in {elapsed:?}",
        FLOWS + 2 * states
    );
}
