//! The demo server (`examples/src/bin/signup_server.rs`'s handler and router) over
//! real HTTP on loopback, with the Redis replay guard (package `mrtr-guard-examples`, feature
//! `redis`):
//!
//! - a stalled Redis (a listener that accepts and never answers) delays only
//!   the calls that carry a state, and those only up to the guard's timeout;
//! - two instances sharing one Redis (`MRTR_GUARD_REDIS_URL`), and sharing a
//!   Redis Cluster of three masters (`MRTR_GUARD_REDIS_CLUSTER_URL`; each
//!   skipped outside CI when unset, as in `tests/state/replay/redis/`): every
//!   state, presented to both at once, opens exactly once.
//!
//! The client is `client.rs`: a few lines of HTTP/1.1, one
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
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mrtr_guard::{MasterKey, RedisReplayGuard, StateCodec};
use mrtr_guard_examples::signup_service::Signup;
use serde_json::{Value, json};

use super::client::{call, first, is_state_refusal, retry, state_of, text_of};
use super::server::on_loopback;

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
    on_loopback(Signup::service(codec).unwrap()).await
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
    // Each waits one timeout at most: a call queued behind the first batch
    // is refused with it, so only the slowest waits the whole timeout.
    for (answer, elapsed) in &guarded {
        assert!(is_state_refusal(answer), "fails closed: {answer}");
        assert!(
            *elapsed < TIMEOUT + Duration::from_millis(600),
            "a call with state answered after {elapsed:?}, timeout {TIMEOUT:?}"
        );
    }
    let slowest = guarded.iter().map(|(_, elapsed)| *elapsed).max();
    assert!(
        slowest >= Some(TIMEOUT - Duration::from_millis(50)),
        "refused before the timeout: {slowest:?}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "stalled redis: slowest guarded call {slowest:?}, slowest plain call {:?}",
        plain.iter().map(|(_, elapsed)| *elapsed).max()
    );
}

/// The Redis guard's round trip holds no blocking-pool thread: with the
/// server runtime's only blocking thread taken, rounds with a state still
/// complete at once. (When the adapter called the guard through
/// `spawn_blocking`, each waited for that thread.)
#[test]
fn rounds_under_the_redis_guard_need_no_blocking_thread() {
    let Some(url) = redis_url() else { return };
    let _alone = alone();
    let server = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let guard = server
        .block_on(RedisReplayGuard::builder(url.as_str()).connect())
        .unwrap();
    let addr = server.block_on(start_instance(codec(guard)));
    // The one blocking thread is busy for longer than the test may take.
    let occupied = server.spawn_blocking(|| std::thread::sleep(Duration::from_secs(4)));
    let client = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let answers = json!({"ship": {"action": "accept", "content": {"trackingNumber": "1Z"}}});
    let started = Instant::now();
    client.block_on(async {
        for n in 0..5 {
            let user = format!("nb{n}");
            let asked = call(addr, &user, "ShipOrder", &first("ShipOrder")).await;
            let state = state_of(&asked).expect("round 1 asks");
            let params = retry("ShipOrder", answers.clone(), &state);
            let done = call(addr, &user, "ShipOrder", &params).await;
            assert_eq!(text_of(&done), Some("Shipped as 1Z."), "{done}");
            // Refused by the guard; the answer the first retry got, again.
            let again = call(addr, &user, "ShipOrder", &params).await;
            assert_eq!(again, done);
        }
    });
    let elapsed = started.elapsed();
    assert!(
        elapsed < Duration::from_secs(2),
        "five guarded rounds took {elapsed:?} with the blocking pool taken"
    );
    server.block_on(occupied).unwrap();
    server.shutdown_background();
    client.shutdown_background();
}

// ---- two instances, one Redis ------------------------------------------------

/// The plain test server's URL, or `None` (after a notice) when it is not set
/// outside CI.
fn redis_url() -> Option<String> {
    setting("MRTR_GUARD_REDIS_URL")
}

/// A node of the local Redis Cluster (`scripts/redis-up --cluster`).
fn redis_cluster_url() -> Option<String> {
    setting("MRTR_GUARD_REDIS_CLUSTER_URL")
}

fn setting(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os("CI").is_some() => {
            panic!("{var} is not set: CI must start the redis-servers (scripts/redis-up)")
        }
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "notice: {var} is not set; skipping a two-instance HTTP test"
            );
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

/// The same against a Redis Cluster of three masters: the guard finds it
/// is one from the URL of any node, and each key lives in one slot.
#[test]
fn two_instances_on_a_redis_cluster_open_each_state_exactly_once() {
    let Some(url) = redis_cluster_url() else {
        return;
    };
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
    let prefix = format!("mrtr-guard-test:{}-{nanos}:http", std::process::id());
    // Each instance has its own guard (its own connections) on the one Redis.
    let instance = || async {
        let guard = RedisReplayGuard::builder(url.as_str())
            .key_prefix(prefix.as_str())
            .command_timeout(Duration::from_secs(2))
            .connect_timeout(Duration::from_secs(2))
            .connect()
            .await
            .unwrap();
        start_instance(codec(guard)).await
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

// ---- the demo refuses a Redis that may evict --------------------------------------

/// The demo binary: cargo builds a package's binaries before its
/// integration tests and names their paths.
fn demo_binary() -> Option<std::path::PathBuf> {
    Some(std::path::PathBuf::from(env!(
        "CARGO_BIN_EXE_signup_server"
    )))
}

/// Given `MRTR_GUARD_REDIS_URL` of a `redis-server` started with
/// `--maxmemory-policy allkeys-lru`, the demo does not start: it exits in
/// error with the message saying what to set, before it listens.
#[test]
fn the_demo_refuses_to_start_on_a_redis_that_may_evict() {
    let Some(binary) = demo_binary() else { return };
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let spawned = std::process::Command::new("redis-server")
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .args(["--save", "", "--appendonly", "no", "--dir"])
        .arg(std::env::temp_dir())
        .args(["--maxmemory-policy", "allkeys-lru"])
        .stdout(std::process::Stdio::null())
        .spawn();
    let mut redis = match spawned {
        Ok(child) => child,
        Err(error) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "redis-server could not be started under CI: {error}"
            );
            let _ = writeln!(
                std::io::stderr(),
                "notice: redis-server is not installed; skipping the demo start-up test"
            );
            return;
        }
    };
    let url = format!("redis://127.0.0.1:{port}/");
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let demo_port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut demo = std::process::Command::new(binary)
        .env("MRTR_GUARD_REDIS_URL", &url)
        .env("PORT", demo_port.to_string())
        .env_remove("MRTR_GUARD_REDIS_CA")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = demo.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(20) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let Some(status) = status else {
        let _ = demo.kill();
        let _ = redis.kill();
        panic!("the demo started on a redis that may evict");
    };
    let output = demo.wait_with_output().unwrap();
    let _ = redis.kill();
    let _ = redis.wait();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!status.success(), "{stderr}");
    assert!(
        stderr.contains("redis maxmemory-policy is allkeys-lru")
            && stderr.contains("set maxmemory-policy noeviction"),
        "{stderr}"
    );
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", demo_port)).is_err(),
        "nothing listens"
    );
}
