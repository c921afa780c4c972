//! The contract on [`RedisTaskStore`]: one node, TLS, Redis Cluster (the
//! servers `replay::redis::support` names; skipped when unset outside CI);
//! then what only Redis has: its keys, `WAIT`, the eviction check, failing
//! closed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mrtr_guard::redis::{RedisConfigError, RedisTaskStore, RedisTaskStoreBuilder};
use mrtr_guard::state::PrincipalKey;
use mrtr_guard::task::{
    Answer, ENTRY_BYTES, NewTask, Replacement, TaskId, TaskLimits, TaskStore, TaskStoreError,
};
use time::OffsetDateTime;

use crate::replay::redis::scripts::{calls, flush_scripts};
use crate::replay::redis::support::{
    CLUSTER_URL_VAR, cluster_alone, own_redis, own_replica, redis_url, runtime, setting,
};
use crate::task_store::contract::{Subject, all};

/// A key prefix no other test (or earlier run) uses.
fn unique_prefix(test: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("mrtr-guard-test:{}-{nanos}:{test}", std::process::id())
}

/// Two stores (two connections) on the Redis at `url`, one prefix.
fn pair(builder: &dyn Fn() -> RedisTaskStoreBuilder, rule: &str) -> Subject {
    let prefix = unique_prefix(rule);
    let store = || -> Arc<dyn TaskStore> {
        Arc::new(builder().key_prefix(prefix.as_str()).build().unwrap())
    };
    Subject {
        one: store(),
        two: store(),
    }
}

fn limits() -> TaskLimits {
    TaskLimits {
        per_principal: 8,
        total: 8,
        bytes_per_principal: 1 << 20,
        bytes_total: 1 << 20,
    }
}

/// Now, by the clock every call of the store is given.
fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

fn new_task<'a>(id: &'a TaskId, head: &'a [u8], limits: TaskLimits) -> NewTask<'a> {
    NewTask {
        id,
        owner: PrincipalKey::from_bytes([9; 16]),
        head,
        body: b"body",
        expires_at: OffsetDateTime::now_utc() + Duration::from_secs(60),
        due: None,
        limits,
    }
}

#[test]
fn a_redis_store_keeps_the_contract() {
    let Some(url) = redis_url() else { return };
    all(&runtime(), &|rule| {
        pair(&|| RedisTaskStore::builder(url.as_str()), rule)
    });
}

#[cfg(feature = "redis-tls")]
#[test]
fn a_redis_store_over_tls_keeps_the_contract() {
    let Some((url, ca)) = crate::replay::redis::support::redis_tls() else {
        return;
    };
    let builder = || RedisTaskStore::builder(url.as_str()).ca_certificate_pem(ca.clone());
    all(&runtime(), &|rule| pair(&builder, rule));
}

#[test]
fn a_redis_store_on_a_cluster_keeps_the_contract() {
    let Some(url) = setting(CLUSTER_URL_VAR) else {
        return;
    };
    let _alone = cluster_alone();
    all(&runtime(), &|rule| {
        pair(&|| RedisTaskStore::builder(url.as_str()), rule)
    });
    // The caps' two sets are in one slot; tasks spread.
    let store = RedisTaskStore::builder(url.as_str()).build().unwrap();
    let mut admin = redis::cluster::ClusterClient::new(vec![url.as_str()])
        .unwrap()
        .get_connection()
        .unwrap();
    let mut slot = |key: String| -> i64 {
        redis::cmd("CLUSTER")
            .arg("KEYSLOT")
            .arg(key)
            .query(&mut admin)
            .unwrap()
    };
    let all_slot = slot(store.count_key());
    for n in 0..8u8 {
        let owner = PrincipalKey::from_bytes([n; 16]);
        assert_eq!(slot(store.owner_count_key(owner)), all_slot);
    }
    let tasks: std::collections::BTreeSet<i64> = (0..8)
        .map(|_| slot(store.task_key(&TaskId::random().unwrap())))
        .collect();
    assert!(tasks.len() > 1, "tasks spread over slots: {tasks:?}");
}

#[cfg(feature = "redis-tls")]
#[test]
fn a_redis_store_on_a_cluster_over_tls_keeps_the_contract() {
    use crate::replay::redis::support::{CLUSTER_TLS_CA_VAR, CLUSTER_TLS_URL_VAR};
    let Some(url) = setting(CLUSTER_TLS_URL_VAR) else {
        return;
    };
    let ca = std::fs::read(setting(CLUSTER_TLS_CA_VAR).unwrap()).unwrap();
    let _alone = cluster_alone();
    let builder = || RedisTaskStore::builder(url.as_str()).ca_certificate_pem(ca.clone());
    all(&runtime(), &|rule| pair(&builder, rule));
}

/// What Redis holds is what the docs say: the hash, its expiry, the caps'
/// sets, the answer; and a key of the wrong type fails closed.
#[test]
fn the_keys_on_redis_are_the_documented_ones() {
    let Some(url) = redis_url() else { return };
    let runtime = runtime();
    let store = RedisTaskStore::builder(url.as_str())
        .key_prefix(unique_prefix("keys"))
        .build()
        .unwrap();
    let mut admin = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let id = TaskId::random().unwrap();
    runtime
        .block_on(store.create(new_task(&id, b"\x00sealed", limits()), now()))
        .unwrap();
    runtime
        .block_on(store.create(new_task(&id, b"\x00sealed", limits()), now()))
        .expect("the same create sent again is done once");
    let taken = runtime.block_on(store.create(new_task(&id, b"other", limits()), now()));
    assert!(
        matches!(taken, Err(TaskStoreError::Unavailable(_))),
        "{taken:?}"
    );
    let (version, head, body): (String, Vec<u8>, Vec<u8>) = redis::cmd("HMGET")
        .arg(store.task_key(&id))
        .arg("v")
        .arg("h")
        .arg("b")
        .query(&mut admin)
        .unwrap();
    assert_eq!(
        (version.as_str(), head.as_slice(), body.as_slice()),
        ("1", &b"\x00sealed"[..], &b"body"[..])
    );
    let ttl: i64 = redis::cmd("PTTL")
        .arg(store.task_key(&id))
        .query(&mut admin)
        .unwrap();
    assert!((59_000..=60_000).contains(&ttl), "{ttl}");
    let owner = PrincipalKey::from_bytes([9; 16]);
    for set in [store.count_key(), store.owner_count_key(owner)] {
        let members: Vec<String> = redis::cmd("ZRANGE")
            .arg(&set)
            .arg(0)
            .arg(-1)
            .query(&mut admin)
            .unwrap();
        assert_eq!(members, vec![id.to_string()], "{set}");
    }
    let charged: Vec<(String, String)> = redis::cmd("HGETALL")
        .arg(format!("{}:tasks:{{{0}}}:charges", store.key_prefix()))
        .query(&mut admin)
        .unwrap();
    let charge = b"\x00sealed".len() + b"body".len() + ENTRY_BYTES;
    assert_eq!(
        charged,
        vec![(id.to_string(), format!("{charge} 1 {owner}"))],
        "the task's charge: its bytes, its version, its owner"
    );
    let held: Vec<(String, i64)> = redis::cmd("HGETALL")
        .arg(format!("{}:tasks:{{{0}}}:bytes", store.key_prefix()))
        .query(&mut admin)
        .unwrap();
    let charge = i64::try_from(charge).unwrap();
    assert_eq!(
        held.into_iter()
            .collect::<std::collections::BTreeMap<_, _>>(),
        [("all".to_owned(), charge), (owner.to_string(), charge)].into(),
        "charged once, though created twice"
    );
    let key = [0xab; 32];
    let expires_at = OffsetDateTime::now_utc() + Duration::from_secs(60);
    let kept = Answer {
        key: &key,
        owner,
        answer: b"answer",
        expires_at,
        limits: limits(),
    };
    runtime.block_on(store.remember(kept, now())).unwrap();
    let answer: Vec<u8> = redis::cmd("GET")
        .arg(store.answer_key(&key))
        .query(&mut admin)
        .unwrap();
    assert_eq!(answer, b"answer");

    let _: () = redis::cmd("SET")
        .arg(store.task_key(&id))
        .arg("not a hash")
        .query(&mut admin)
        .unwrap();
    let error = runtime.block_on(store.load(&id, now())).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the task store failed: redis answered with error WRONGTYPE"
    );
    let replacing = Replacement {
        id: &id,
        owner,
        version: 1,
        head: b"x",
        body: b"y",
        expires_at,
        counted_until: None,
        due: None,
        limits: limits(),
    };
    let lost = runtime.block_on(store.replace(replacing, now()));
    assert!(
        matches!(lost, Err(TaskStoreError::Unavailable(_))),
        "{lost:?}"
    );
}

/// `WAIT`: with no replica, a store that wants one fails the create (and
/// gives its place back); with a replica attached, the replica holds the
/// task when `create` resolves.
#[test]
fn wait_for_replicas_resolves_only_what_a_replica_holds() {
    let Some(primary) = own_redis(&["--repl-diskless-sync-delay", "0"]) else {
        return;
    };
    let runtime = runtime();
    let prefix = unique_prefix("wait");
    let wanting = || {
        RedisTaskStore::builder(primary.url())
            .key_prefix(prefix.as_str())
            .command_timeout(Duration::from_secs(3))
            .wait_for_replicas(1, Duration::from_millis(1500))
            .build()
            .unwrap()
    };
    let alone = wanting();
    let id = TaskId::random().unwrap();
    let one_place = TaskLimits {
        per_principal: 1,
        total: 1,
        ..limits()
    };
    let refused = runtime
        .block_on(alone.create(new_task(&id, b"r", one_place), now()))
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the task store failed: fewer than 1 redis replicas acknowledged the write in time"
    );
    let counted: i64 = redis::cmd("ZCARD")
        .arg(alone.count_key())
        .query(&mut primary.admin())
        .unwrap();
    assert_eq!(counted, 0, "the failed create gave its place back");

    let Some(replica) = own_replica(&primary) else {
        return;
    };
    let store = wanting();
    let id = TaskId::random().unwrap();
    runtime
        .block_on(store.create(new_task(&id, b"r", one_place), now()))
        .unwrap();
    let (version, head): (String, Vec<u8>) = redis::cmd("HMGET")
        .arg(store.task_key(&id))
        .arg("v")
        .arg("h")
        .query(&mut replica.admin())
        .unwrap();
    assert_eq!((version.as_str(), head.as_slice()), ("1", &b"r"[..]));
}

/// A Redis that may evict would drop tasks before their TTL: refused at
/// start-up, unless the builder opts out.
#[test]
fn an_evicting_redis_is_refused_at_start_up() {
    let Some(evicting) = own_redis(&["--maxmemory-policy", "allkeys-lru"]) else {
        return;
    };
    let runtime = runtime();
    let refused = runtime
        .block_on(RedisTaskStore::builder(evicting.url()).connect())
        .unwrap_err();
    assert_eq!(refused, RedisConfigError::Evicts("allkeys-lru".to_owned()));
    let store = runtime
        .block_on(
            RedisTaskStore::builder(evicting.url())
                .allow_task_loss_if_redis_evicts()
                .connect(),
        )
        .unwrap();
    let id = TaskId::random().unwrap();
    runtime
        .block_on(store.create(new_task(&id, b"r", limits()), now()))
        .unwrap();
    runtime.block_on(store.health_check()).unwrap();
    let checking = RedisTaskStore::builder(evicting.url()).build().unwrap();
    let probed = runtime.block_on(checking.health_check()).unwrap_err();
    assert!(
        probed
            .to_string()
            .contains("maxmemory-policy is allkeys-lru"),
        "{probed}"
    );
}

/// No Redis: every call fails, nothing is assumed.
#[test]
fn an_unreachable_redis_fails_every_call() {
    let runtime = runtime();
    let store = RedisTaskStore::builder("redis://127.0.0.1:1/")
        .build()
        .unwrap();
    let id = TaskId::random().unwrap();
    let created = runtime.block_on(store.create(new_task(&id, b"r", limits()), now()));
    assert!(
        matches!(created, Err(TaskStoreError::Unavailable(_))),
        "{created:?}"
    );
    assert_eq!(
        runtime.block_on(store.load(&id, now())).unwrap_err().code(),
        "unavailable"
    );
    let recalled = runtime.block_on(store.recall(&[0; 32], now()));
    assert!(
        matches!(recalled, Err(TaskStoreError::Unavailable(_))),
        "{recalled:?}"
    );
    let probed = runtime.block_on(store.health_check());
    assert!(
        matches!(probed, Err(TaskStoreError::Unavailable(_))),
        "{probed:?}"
    );
    let started = runtime.block_on(RedisTaskStore::builder("redis://127.0.0.1:1/").connect());
    assert!(
        matches!(started, Err(RedisConfigError::Unavailable(_))),
        "{started:?}"
    );
}

/// The task store's byte budget keeps the replay guard serving: tasks
/// filling their budget on a `noeviction` Redis of little memory leave the
/// guard's keys room, and every round still consumes its state.
#[test]
fn tasks_at_their_budget_leave_the_replay_guard_room() {
    let Some(small) = own_redis(&["--maxmemory", "24mb", "--maxmemory-policy", "noeviction"])
    else {
        return;
    };
    let runtime = runtime();
    let prefix = unique_prefix("room");
    let store = RedisTaskStore::builder(small.url())
        .key_prefix(prefix.as_str())
        .build()
        .unwrap();
    let budget = TaskLimits {
        per_principal: 10_000,
        total: 10_000,
        bytes_per_principal: 8 << 20,
        bytes_total: 8 << 20,
    };
    let record = vec![0x5a_u8; 64 * 1024];
    let mut created = 0;
    let refused = loop {
        let id = TaskId::random().unwrap();
        let mut task = new_task(&id, &record, budget);
        task.owner = PrincipalKey::from_bytes([u8::try_from(created % 64).unwrap(); 16]);
        match runtime.block_on(store.create(task, now())) {
            Ok(()) => created += 1,
            Err(error) => break error,
        }
        assert!(created < 1_000, "the budget never refused");
    };
    assert!(matches!(refused, TaskStoreError::OverBudget), "{refused:?}");
    assert_eq!(created, (8 << 20) / (record.len() + 4 + ENTRY_BYTES));

    let guard = mrtr_guard::redis::RedisReplayGuard::builder(small.url())
        .key_prefix(prefix.as_str())
        .build()
        .unwrap();
    let codec = mrtr_guard::StateCodec::builder(
        "https://mcp.example.com",
        mrtr_guard::MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .replay_guard(Arc::new(guard))
    .build()
    .unwrap();
    let binding = mrtr_guard::Binding::new("ada", mrtr_guard::Method::ToolsCall, "ship", None);
    for _ in 0..200 {
        let state = codec
            .start(&binding, &mrtr_guard::StateContents::new(()))
            .unwrap();
        runtime
            .block_on(codec.open_async::<()>(&state, &binding))
            .expect("the guard consumes beside tasks at their budget");
    }
}

/// The store's scripts go by their SHA1: on a node whose script cache was
/// emptied, each create and replacement still runs once (every version
/// follows the one before), and the scripts' text went once per script.
#[test]
fn a_node_without_the_scripts_gets_their_text_once() {
    let Some(redis) = own_redis(&[]) else { return };
    let runtime = runtime();
    let store = RedisTaskStore::builder(redis.url())
        .key_prefix(unique_prefix("scripts").as_str())
        .build()
        .unwrap();
    let first = TaskId::random().unwrap();
    runtime
        .block_on(store.create(new_task(&first, b"h", limits()), now()))
        .unwrap();
    flush_scripts(&redis);
    let id = TaskId::random().unwrap();
    runtime
        .block_on(store.create(new_task(&id, b"h", limits()), now()))
        .unwrap();
    let mut texts = 0;
    for version in 1..=6 {
        let replacing = Replacement {
            id: &id,
            owner: PrincipalKey::from_bytes([9; 16]),
            version,
            head: b"next",
            body: b"body",
            expires_at: OffsetDateTime::now_utc() + Duration::from_secs(60),
            counted_until: None,
            due: None,
            limits: limits(),
        };
        assert!(runtime.block_on(store.replace(replacing, now())).unwrap());
        if version == 1 {
            texts = calls(&redis, "eval");
        }
    }
    let stored = runtime.block_on(store.load(&id, now())).unwrap().unwrap();
    assert_eq!(stored.version, 7);
    assert_eq!(
        calls(&redis, "eval"),
        texts,
        "a script's text went again after the node had it"
    );
    assert!(calls(&redis, "evalsha") >= 12);
}
