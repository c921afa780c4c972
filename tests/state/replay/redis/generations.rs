//! What a loss costs, measured as a client sees it: after a restart without
//! persistence, a restart with AOF, a failover of a master-replica pair, a
//! one-second policy flip and a restarted cluster master, no state consumed
//! before opens again, a flow begun before starts over (refused as
//! `generation_changed`), and a flow begun after the fault completes within
//! 2 s of the fault's end, with the default policy (a skew of 60 s: the
//! rule has no clock in it) and the default watch interval (1 s). A full
//! `noeviction` Redis is no loss: it serves its old states once memory is
//! freed, under the same generation. Each test prints its times.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::print_stderr,
    reason = "test code: a panic is a failing test; the times are its report"
)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mrtr_guard::state::ReplayError;
use mrtr_guard::{MasterKey, RedisReplayGuard, StateCodec, StateContents, StateError};

use crate::replay::redis::scripted::Scripted;
use crate::replay::redis::support::{
    CLUSTER_URL_VAR, URL_VAR, binding, own_redis, own_replica, runtime, setting, unique_prefix,
};

/// How many states each test consumes before the fault.
const STATES: usize = 60;
/// The longest a new flow may take to complete after the fault's end.
const WITHIN: Duration = Duration::from_secs(2);

/// An instance with the default policy (60 s of skew).
fn codec(guard: RedisReplayGuard) -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com",
        MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .replay_guard(Arc::new(guard))
    .build()
    .unwrap()
}

fn connect(url: &str, runtime: &tokio::runtime::Runtime) -> RedisReplayGuard {
    runtime
        .block_on(
            RedisReplayGuard::builder(url)
                .key_prefix(unique_prefix("generations"))
                .connect(),
        )
        .unwrap()
}

/// `STATES` states, each consumed once (half on each face), and the second
/// round of a flow begun before the fault.
fn before_the_fault(
    codec: &StateCodec,
    runtime: &tokio::runtime::Runtime,
) -> (Vec<String>, String) {
    let states = (0..STATES)
        .map(|n| {
            let state = codec.start(&binding(), &StateContents::new(())).unwrap();
            if n % 2 == 0 {
                codec.open::<()>(&state, &binding()).unwrap();
            } else {
                runtime
                    .block_on(codec.open_async::<()>(&state, &binding()))
                    .unwrap();
            }
            state
        })
        .collect();
    let first = codec.start(&binding(), &StateContents::new(())).unwrap();
    let claims = codec.open::<()>(&first, &binding()).unwrap();
    let second = codec
        .next(&binding(), &claims, &StateContents::new(()))
        .unwrap();
    (states, second)
}

/// Whether a new flow's two rounds each open (round 2 on the async face).
fn a_flow_completes(codec: &StateCodec, runtime: &tokio::runtime::Runtime) -> bool {
    let Ok(first) = codec.start(&binding(), &StateContents::new(())) else {
        return false;
    };
    let Ok(claims) = codec.open::<()>(&first, &binding()) else {
        return false;
    };
    let Ok(second) = codec.next(&binding(), &claims, &StateContents::new(())) else {
        return false;
    };
    runtime
        .block_on(codec.open_async::<()>(&second, &binding()))
        .is_ok()
}

/// After the fault ended at `ended`: the time until a new flow first
/// completes (tried every 10 ms), how many states it refused meanwhile;
/// then that no state consumed before opens again and the flow begun
/// before is refused as one of another generation. Prints the report.
fn after_the_fault(
    scenario: &str,
    codec: &StateCodec,
    runtime: &tokio::runtime::Runtime,
    (states, begun): (Vec<String>, String),
    ended: Instant,
) {
    let mut refused = 0;
    let completed = loop {
        if a_flow_completes(codec, runtime) {
            break ended.elapsed();
        }
        refused += 1;
        assert!(
            ended.elapsed() < Duration::from_secs(10),
            "{scenario}: no flow completes"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let reopened = states
        .iter()
        .filter(|state| codec.open::<()>(state, &binding()).is_ok())
        .count();
    let begun = codec.open::<()>(&begun, &binding()).unwrap_err();
    eprintln!(
        "generations: {scenario}: {reopened} of {STATES} consumed states reopened; the first \
         new flow completed {} ms after the fault's end ({refused} tries refused before); the \
         flow begun before: {}",
        completed.as_millis(),
        begun.reason()
    );
    assert_eq!(reopened, 0, "{scenario}: of {STATES}");
    assert!(completed < WITHIN, "{scenario}: {completed:?}");
    assert_eq!(begun, StateError::GenerationChanged, "{scenario}");
    assert_eq!(
        begun.to_string(),
        "the guard lost its memory (generation changed)"
    );
}

/// A `redis-server` on `port` in `dir` with `settings`, once it answers.
fn server_on(port: u16, dir: &Path, settings: &[&str]) -> Child {
    let mut child = Command::new("redis-server")
        .args([
            "--bind",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--save",
            "",
        ])
        .arg("--dir")
        .arg(dir)
        .args(settings)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("redis://127.0.0.1:{port}/");
    for _ in 0..200 {
        let answered = redis::Client::open(url.as_str())
            .and_then(|client| client.get_connection())
            .and_then(|mut conn| redis::cmd("PING").query::<String>(&mut conn));
        if answered.is_ok() {
            return child;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("redis-server on port {port} did not answer");
}

fn admin(url: &str) -> redis::Connection {
    redis::Client::open(url).unwrap().get_connection().unwrap()
}

#[test]
fn a_restart_without_persistence_costs_the_flows_in_flight_only() {
    if setting(URL_VAR).is_none() {
        return;
    }
    let redis = Scripted::up(false);
    let runtime = runtime();
    let codec = codec(connect(redis.url(), &runtime));
    let before = before_the_fault(&codec, &runtime);
    redis.restart(0);
    after_the_fault(
        "restart without persistence",
        &codec,
        &runtime,
        before,
        Instant::now(),
    );
}

/// Killed (a crash) and started again from its AOF (`appendfsync always`):
/// every key is back, under a new `run_id`.
#[test]
fn a_restart_with_aof_costs_the_flows_in_flight_only() {
    let Some(redis) = own_redis(&["--appendonly", "yes", "--appendfsync", "always"]) else {
        return;
    };
    let runtime = runtime();
    let codec = codec(connect(&redis.url(), &runtime));
    let before = before_the_fault(&codec, &runtime);
    let mut redis = redis;
    redis.child.kill().unwrap();
    redis.child.wait().unwrap();
    redis.child = server_on(
        redis.port,
        &redis.dir,
        &["--appendonly", "yes", "--appendfsync", "always"],
    );
    let ended = Instant::now();
    let held: u64 = redis::cmd("DBSIZE")
        .query(&mut admin(&redis.url()))
        .unwrap();
    assert!(held > STATES as u64, "the AOF kept the keys ({held})");
    after_the_fault("restart with AOF", &codec, &runtime, before, ended);
}

/// The master is killed, its replica promoted, and the address served again
/// by the promoted data under a new `run_id` (a replica of the promoted one,
/// promoted in turn: what a failover behind one address looks like).
#[test]
fn a_failover_costs_the_flows_in_flight_only() {
    let Some(primary) = own_redis(&["--repl-diskless-sync-delay", "0"]) else {
        return;
    };
    let Some(replica) = own_replica(&primary) else {
        return;
    };
    let runtime = runtime();
    let codec = codec(connect(&primary.url(), &runtime));
    let before = before_the_fault(&codec, &runtime);
    let mut primary = primary;
    primary.child.kill().unwrap();
    primary.child.wait().unwrap();
    let _: () = redis::cmd("REPLICAOF")
        .arg("NO")
        .arg("ONE")
        .query(&mut replica.admin())
        .unwrap();
    let replica_port = replica.port.to_string();
    primary.child = server_on(
        primary.port,
        &primary.dir,
        &["--replicaof", "127.0.0.1", &replica_port],
    );
    let synced = (0..200).any(|_| {
        let info: String = redis::cmd("INFO")
            .arg("replication")
            .query(&mut primary.admin())
            .unwrap();
        let up = info.contains("master_link_status:up");
        if !up {
            std::thread::sleep(Duration::from_millis(50));
        }
        up
    });
    assert!(synced, "the new server synced from the promoted replica");
    let _: () = redis::cmd("REPLICAOF")
        .arg("NO")
        .arg("ONE")
        .query(&mut primary.admin())
        .unwrap();
    after_the_fault("failover", &codec, &runtime, before, Instant::now());
}

/// `maxmemory-policy allkeys-lru` for one second, then `noeviction` again.
#[test]
fn a_one_second_policy_flip_costs_the_flows_in_flight_only() {
    let Some(redis) = own_redis(&[]) else {
        return;
    };
    let runtime = runtime();
    let codec = codec(connect(&redis.url(), &runtime));
    let before = before_the_fault(&codec, &runtime);
    let policy = |value: &str| {
        let _: () = redis::cmd("CONFIG")
            .arg("SET")
            .arg("maxmemory-policy")
            .arg(value)
            .query(&mut redis.admin())
            .unwrap();
    };
    policy("allkeys-lru");
    std::thread::sleep(Duration::from_secs(1));
    // The watcher looks every second: one look, at least, saw the flip.
    let fresh = codec.start(&binding(), &StateContents::new(())).unwrap();
    assert!(matches!(
        codec.open::<()>(&fresh, &binding()),
        Err(StateError::ReplayGuard(ReplayError::Unavailable(_)))
    ));
    policy("noeviction");
    after_the_fault(
        "one-second policy flip",
        &codec,
        &runtime,
        before,
        Instant::now(),
    );
}

/// One master of three restarted without persistence; the cluster client
/// reconnects on its own.
#[test]
fn a_restarted_cluster_master_costs_the_flows_in_flight_only() {
    if setting(CLUSTER_URL_VAR).is_none() {
        return;
    }
    let cluster = Scripted::up(true);
    let runtime = runtime();
    let codec = codec(connect(cluster.url(), &runtime));
    let before = before_the_fault(&codec, &runtime);
    cluster.restart(1);
    after_the_fault(
        "restarted cluster master",
        &codec,
        &runtime,
        before,
        Instant::now(),
    );
}

/// A full `noeviction` Redis refuses while full, then serves the states
/// minted before, once each, under the same generations.
#[test]
fn a_full_noeviction_redis_is_no_loss() {
    let Some(redis) = own_redis(&[]) else {
        return;
    };
    let runtime = runtime();
    let guard = connect(&redis.url(), &runtime);
    let prefix = guard.key_prefix().to_owned();
    let codec = codec(guard);
    let old: Vec<String> = (0..20)
        .map(|_| codec.start(&binding(), &StateContents::new(())).unwrap())
        .collect();
    let mut admin = redis.admin();
    let generations = |admin: &mut redis::Connection| {
        let mut keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{prefix}:replay:generation:*"))
            .query(admin)
            .unwrap();
        keys.sort();
        let values: Vec<String> = redis::cmd("MGET").arg(&keys).query(admin).unwrap();
        (keys.len(), values)
    };
    let before = generations(&mut admin);
    assert_eq!(before.0, 256, "every group has its generation");

    let used: u64 = {
        let info: String = redis::cmd("INFO").arg("memory").query(&mut admin).unwrap();
        info.lines()
            .find_map(|line| line.strip_prefix("used_memory:"))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let config = |admin: &mut redis::Connection, value: String| {
        let _: () = redis::cmd("CONFIG")
            .arg("SET")
            .arg("maxmemory")
            .arg(value)
            .query(admin)
            .unwrap();
    };
    // Below what it holds: every write is refused (`OOM`) until it is
    // raised, and nothing is evicted.
    config(&mut admin, (used / 2).to_string());
    for state in &old[..10] {
        let StateError::ReplayGuard(ReplayError::Unavailable(why)) =
            codec.open::<()>(state, &binding()).unwrap_err()
        else {
            panic!("expected the out-of-memory refusal");
        };
        assert!(why.starts_with("redis is out of memory"), "{why}");
    }
    config(&mut admin, "0".to_owned());
    let freed = Instant::now();
    let served = old
        .iter()
        .filter(|state| codec.open::<()>(state, &binding()).is_ok())
        .count();
    let again = old
        .iter()
        .filter(|state| codec.open::<()>(state, &binding()).is_ok())
        .count();
    eprintln!(
        "generations: full noeviction redis: {served} of {} states minted before it filled \
         served once memory was freed (the last {} ms after), {again} a second time",
        old.len(),
        freed.elapsed().as_millis()
    );
    assert_eq!((served, again), (old.len(), 0));
    assert_eq!(generations(&mut admin), before, "no generation changed");
}
