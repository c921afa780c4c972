//! Two instances, each with its own connections to one Redis (and to a
//! Redis Cluster of three masters): the task store and the replay guard they
//! share. A task created on one is polled and answered on the other; an
//! answer for one key sent to both at once resumes it once; a step recorded
//! by one is not run again by the other; a task whose instance dies while
//! it works is resumed by one of the others, polled or not (the sweep).
//! One instance on each: the creation hook, declared order, a task's own
//! clock. Skipped
//! outside CI when the Redis URLs are unset, as the guard's tests are.

#![cfg(feature = "redis")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::time::{SystemTime, UNIX_EPOCH};

use mrtr_guard::redis::{RedisReplayGuard, RedisTaskStore};

use super::*;

pub(super) fn setting(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os("CI").is_some() => {
            panic!("{var} is not set: CI must start the redis-servers (scripts/redis-up)")
        }
        _ => {
            eprintln!("notice: {var} is not set; skipping a two-instance task test");
            None
        }
    }
}

/// One instance on `url`, under `prefix`: its own store and guard, which
/// share the prefix as one server's do.
async fn instance(url: &str, prefix: &str) -> SocketAddr {
    let guard = RedisReplayGuard::builder(url)
        .key_prefix(prefix)
        .connect()
        .await
        .unwrap();
    let store = RedisTaskStore::builder(url)
        .key_prefix(prefix)
        .connect()
        .await
        .unwrap();
    let codec = StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[0x42; 32]).unwrap())
        .replay_guard(Arc::new(guard))
        .build()
        .unwrap();
    let service = Signup::service_with(codec, |builder| {
        builder
            .task_store(Arc::new(store))
            .task_lease(Duration::from_secs(1))
    })
    .unwrap();
    on_loopback(service).await
}

pub(super) fn prefix() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("mrtr-guard-test-{}-{nanos}", std::process::id())
}

/// A task created on one instance, polled and answered on the other, an
/// answer for its one key sent to both at once; then an instance that
/// dies mid-work, and another whose task nobody polls after.
fn across_instances(url: &str) {
    let prefix = prefix();
    let rest = tokio::runtime::Runtime::new().unwrap();
    let (a, b) =
        rest.block_on(async { (instance(url, &prefix).await, instance(url, &prefix).await) });
    rest.block_on(async {
        let (created, _) = create(a, "ada").await;
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        let key = outstanding(&settled(b, "ada", &id).await);
        let (on_a, on_b) = tokio::join!(
            update(a, "ada", &id, json!({key.clone(): refunds(&json!(true))})),
            update(b, "ada", &id, json!({key.clone(): refunds(&json!(false))})),
        );
        for ack in [on_a, on_b] {
            assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
        }
        let done = settled(a, "ada", &id).await;
        // Resumed twice, the second run would find its state used (the
        // shared guard refuses it) and fail the task: completed means once.
        assert_eq!(done["status"], "completed", "{done}");
        assert_eq!(settled(b, "ada", &id).await, done);
        // Another principal, on either instance, finds no such task.
        assert_eq!(get(b, "eve", &id).await["error"]["code"], -32602);
        // A step recorded on one instance is not run again on the other.
        super::steps::one_export_across_three_runs(a, b).await;
    });

    // An instance on a runtime of its own, dropped while its task works.
    let doomed = own_runtime();
    let c = doomed.block_on(instance(url, &prefix));
    resumes_after_its_instance_dies(&rest, doomed, c, [a, b]);

    // Another, dropped while its task works, which nobody polls after.
    let doomed = own_runtime();
    let d = doomed.block_on(instance(url, &prefix));
    super::resumed_by_the_sweep(&rest, doomed, d, a);
}

/// On one instance over `url`: a worker the hook attached answered though
/// the handler finishes first, a parked form read in declared order, a
/// question answered past the flow's deadline.
fn one_instance(url: &str) {
    let rest = tokio::runtime::Runtime::new().unwrap();
    rest.block_on(async {
        let store = || async {
            let store = RedisTaskStore::builder(url)
                .key_prefix(prefix())
                .connect()
                .await
                .unwrap();
            Arc::new(store) as Arc<dyn mrtr_guard::task::TaskStore>
        };
        super::inbox::hook_then_handler(store().await).await;
        super::inbox::declared_order(store().await).await;
        super::clock::past_the_flow_deadline(store().await).await;
    });
}

#[test]
fn the_hook_the_order_and_the_clock_on_one_redis() {
    if let Some(url) = setting("MRTR_GUARD_REDIS_URL") {
        one_instance(&url);
    }
}

#[test]
fn the_hook_the_order_and_the_clock_on_a_redis_cluster() {
    if let Some(url) = setting("MRTR_GUARD_REDIS_CLUSTER_URL") {
        one_instance(&url);
    }
}

#[test]
fn two_instances_on_one_redis_share_every_task() {
    if let Some(url) = setting("MRTR_GUARD_REDIS_URL") {
        across_instances(&url);
    }
}

#[test]
fn two_instances_on_a_redis_cluster_share_every_task() {
    if let Some(url) = setting("MRTR_GUARD_REDIS_CLUSTER_URL") {
        across_instances(&url);
    }
}

/// Runs `script` on the Redis at `url` over `keys`, as a writer of the
/// store would (`redis-cli`, which `scripts/redis-up`'s package brings).
fn eval(url: &str, script: &str, keys: &[&str]) {
    let out = std::process::Command::new("redis-cli")
        .args(["-u", url, "EVAL", script, &keys.len().to_string()])
        .args(keys)
        .output()
        .expect("redis-cli runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && !said.contains("ERR"), "{said}");
}

/// A writer of the Redis the instances share keeps a task's parked record
/// (its head and body) and, once the task has completed, writes it back into the task's hash
/// under the version there: the task opens for nobody.
#[test]
fn a_record_written_back_in_redis_under_a_later_version_opens_for_nobody() {
    let Some(url) = setting("MRTR_GUARD_REDIS_URL") else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let prefix = prefix();
        let addr = instance(&url, &prefix).await;
        let (created, _) = create(addr, "ada").await;
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        let parked = settled(addr, "ada", &id).await;
        let key = outstanding(&parked);
        let task = format!("{prefix}:task:{id}");
        let kept = format!("{prefix}:kept-by-the-writer");
        eval(
            &url,
            "return redis.call('HSET', KEYS[2], 'h', redis.call('HGET', KEYS[1], 'h'), \
             'b', redis.call('HGET', KEYS[1], 'b'))",
            &[&task, &kept],
        );
        let ack = update(addr, "ada", &id, json!({key: refunds(&json!(true))})).await;
        assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
        assert_eq!(settled(addr, "ada", &id).await["status"], "completed");
        eval(
            &url,
            "return redis.call('HSET', KEYS[1], 'h', redis.call('HGET', KEYS[2], 'h'), \
             'b', redis.call('HGET', KEYS[2], 'b'))",
            &[&task, &kept],
        );
        let unknown = get(addr, "ada", "0123456789abcdef0123456789abcdef").await;
        assert_eq!(get(addr, "ada", &id).await, unknown, "rolled back: unknown");
    });
}

/// The fleet record on Redis (and a Redis Cluster): an instance with
/// another audience over the same prefix is refused at start-up.
fn a_fleet_that_disagrees_is_refused(url: &str) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let prefix = prefix();
        let check = |audience: &'static str| {
            let prefix = prefix.clone();
            async move {
                let store = RedisTaskStore::builder(url)
                    .key_prefix(prefix.as_str())
                    .connect()
                    .await
                    .unwrap();
                let codec =
                    StateCodec::builder(audience, MasterKey::from_bytes(&[0x42; 32]).unwrap())
                        .build()
                        .unwrap();
                mrtr_guard::rmcp::McpServer::builder(mrtr_guard::Flow::new(codec))
                    .anonymous()
                    .task_store(Arc::new(store))
                    .check_fleet()
                    .await
            }
        };
        assert_eq!(check(AUDIENCE).await, Ok(()));
        assert_eq!(check(AUDIENCE).await, Ok(()));
        assert_eq!(
            check("http://other.test/mcp").await,
            Err(mrtr_guard::rmcp::ServerConfigError::FleetAudience)
        );
    });
}

#[test]
fn an_instance_with_another_audience_on_one_redis_is_refused() {
    if let Some(url) = setting("MRTR_GUARD_REDIS_URL") {
        a_fleet_that_disagrees_is_refused(&url);
    }
}

#[test]
fn an_instance_with_another_audience_on_a_redis_cluster_is_refused() {
    if let Some(url) = setting("MRTR_GUARD_REDIS_CLUSTER_URL") {
        a_fleet_that_disagrees_is_refused(&url);
    }
}
