//! `export_orders` over real HTTP through `McpServer`: a round before the
//! task and an ask inside it (`lifecycle`); every task request bound to the
//! principal that created it, and a final round's answer remembered
//! (`principals`); instances sharing one store (`instances`, and with
//! feature `redis` one Redis or a Redis Cluster: `redis`); the session
//! revisions (`sessions`); a question parked from outside the handler
//! (`inbox`); a task's lease and TTL measured by the flow's clock
//! (`clock`); a record written back at an older version opening for
//! nobody (`rollback`); what tasks cost held to byte budgets, and a
//! process's task memory measured (`budgets`); a step's work done once
//! (`steps`); a task on the wire as `docs/TASKS.md` shows it (`wire`); a
//! plain poll answered in front of `rmcp` as `rmcp` answers it (`polls`).

#![allow(unreachable_pub, reason = "helpers of the test modules below")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mrtr_guard::rmcp::{McpServerBuilder, McpService, TaskInbox, TaskSupport};
use mrtr_guard::task::MemoryTaskStore;
use mrtr_guard::{Field, Form, MasterKey, MemoryReplayGuard, StateCodec};
use mrtr_guard_examples::signup_service::Signup;
use serde_json::{Value, json};

use super::client::{meta, rpc, rpc_with_head, task_meta};
use super::server::on_loopback;
use super::sessions::{open_session, send};

pub(super) const AUDIENCE: &str = "http://mcp.test/mcp";

pub(super) fn codec() -> StateCodec {
    StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[0x42; 32]).unwrap())
        .replay_guard(Arc::new(MemoryReplayGuard::new(10_000)))
        .build()
        .unwrap()
}

pub(super) async fn start() -> SocketAddr {
    on_loopback(Signup::service(codec()).unwrap()).await
}

pub(super) fn export(meta: &Value, retry: Option<(&Value, &str)>) -> Value {
    let mut params =
        json!({"name": "export_orders", "arguments": {"format": "csv"}, "_meta": meta});
    if let Some((responses, state)) = retry {
        params["inputResponses"] = responses.clone();
        params["requestState"] = json!(state);
    }
    params
}

pub(super) fn range() -> Value {
    json!({"range": {"action": "accept", "content": {"from": "2026-01-01", "to": "2026-01-31"}}})
}

/// Round 1 asks the range; round 2, with it, creates the task: the
/// `CreateTaskResult`, and the state round 2 consumed (for replays).
pub(super) async fn create(addr: SocketAddr, user: &str) -> (Value, String) {
    create_with(addr, user, &task_meta()).await
}

/// [`create`], each round with `meta` as its `_meta`.
pub(super) async fn create_with(addr: SocketAddr, user: &str, meta: &Value) -> (Value, String) {
    let first = rpc(
        addr,
        user,
        "tools/call",
        "export_orders",
        &export(meta, None),
    )
    .await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert!(result["inputRequests"]["range"].is_object(), "{first}");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let params = export(meta, Some((&range(), &state)));
    let created = rpc(addr, user, "tools/call", "export_orders", &params).await;
    (created, state)
}

pub(super) async fn get(addr: SocketAddr, user: &str, id: &str) -> Value {
    rpc(
        addr,
        user,
        "tasks/get",
        id,
        &json!({"taskId": id, "_meta": task_meta()}),
    )
    .await
}

pub(super) async fn update(addr: SocketAddr, user: &str, id: &str, responses: Value) -> Value {
    let params = json!({"taskId": id, "inputResponses": responses, "_meta": task_meta()});
    rpc(addr, user, "tasks/update", id, &params).await
}

/// Polls until the task leaves `working`: its `tasks/get` result.
pub(super) async fn settled(addr: SocketAddr, user: &str, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let got = get(addr, user, id).await;
        let status = got["result"]["status"].clone();
        if status != "working" {
            return got["result"].clone();
        }
        assert!(Instant::now() < deadline, "still working: {got}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The one key the task has outstanding.
pub(super) fn outstanding(task: &Value) -> String {
    assert_eq!(task["status"], "input_required", "{task}");
    let keys: Vec<&String> = task["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 1, "{task}");
    keys[0].clone()
}

pub(super) fn refunds(include: &Value) -> Value {
    json!({"action": "accept", "content": {"includeRefunds": include}})
}

/// Instances over one task store and one replay guard, as several
/// instances of a server behind one name share them.
pub(super) struct Shared {
    pub(super) store: Arc<MemoryTaskStore>,
    guard: Arc<MemoryReplayGuard>,
}

impl Shared {
    pub(super) fn new() -> Self {
        Self {
            store: Arc::new(MemoryTaskStore::new()),
            guard: Arc::new(MemoryReplayGuard::new(10_000)),
        }
    }

    pub(super) fn service(&self) -> McpService<Signup> {
        let codec = StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[0x42; 32]).unwrap())
            .replay_guard(self.guard.clone())
            .build()
            .unwrap();
        let store = self.store.clone();
        Signup::service_with(codec, |builder| {
            builder.task_store(store).task_lease(Duration::from_secs(1))
        })
        .unwrap()
    }
}

/// A runtime of its own for an instance the test then drops (with
/// `shutdown_background`): its tasks' runs die with it, mid-step.
pub(super) fn own_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

/// Creates a task on `on_doomed`, the instance `doomed` runs, then drops
/// `doomed` while the task's export step is in flight (its run dies with
/// it), and polls `survivors`, both at once: the task is resumed (by one
/// of them: the export runs once more, not twice), parks its question
/// within 5 s (the instances' lease is 1 s, the export 1 s), and the
/// answer completes it. The step in flight ran at most twice: here once,
/// since the dead run never finished it.
pub(super) fn resumes_after_its_instance_dies(
    rest: &tokio::runtime::Runtime,
    doomed: tokio::runtime::Runtime,
    on_doomed: SocketAddr,
    survivors: [SocketAddr; 2],
) {
    let id = rest.block_on(async {
        let (created, _) = create(on_doomed, "ada").await;
        created["result"]["taskId"].as_str().unwrap().to_owned()
    });
    // Mid-step: the export takes a second.
    std::thread::sleep(Duration::from_millis(300));
    doomed.shutdown_background();
    let started = Instant::now();
    rest.block_on(async {
        let parked = loop {
            let (one, two) =
                tokio::join!(get(survivors[0], "ada", &id), get(survivors[1], "ada", &id));
            let task = one["result"].clone();
            assert_ne!(task["status"], "failed", "{task}");
            assert_ne!(two["result"]["status"], "failed", "{two}");
            if task["status"] == "input_required" {
                break task;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "{task}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        let key = outstanding(&parked);
        update(
            survivors[1],
            "ada",
            &id,
            json!({key: refunds(&json!(true))}),
        )
        .await;
        let done = settled(survivors[0], "ada", &id).await;
        assert_eq!(done["status"], "completed", "{done}");
        assert_eq!(
            mrtr_guard_examples::export_tool::exports_of(&id),
            1,
            "one resumed run exported; the dead one never finished"
        );
    });
}

/// Creates a task on `on_doomed`, polls it once on `survivor` (which then
/// sweeps: it has served a task route), drops `doomed` while the task's
/// export step is in flight, and polls nobody: the survivor's sweep finds
/// the lapsed lease and resumes the task, whose export runs (once: the
/// dead run never finished it) within 10 s, no request made. The task then
/// parks its question, and the answer completes it.
pub(super) fn resumed_by_the_sweep(
    rest: &tokio::runtime::Runtime,
    doomed: tokio::runtime::Runtime,
    on_doomed: SocketAddr,
    survivor: SocketAddr,
) {
    let id = rest.block_on(async {
        let (created, _) = create(on_doomed, "ada").await;
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        let polled = get(survivor, "ada", &id).await;
        assert_eq!(polled["result"]["status"], "working", "{polled}");
        id
    });
    std::thread::sleep(Duration::from_millis(300));
    doomed.shutdown_background();
    let started = Instant::now();
    while mrtr_guard_examples::export_tool::exports_of(&id) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no sweep resumed the task"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    rest.block_on(async {
        let parked = loop {
            let task = get(survivor, "ada", &id).await["result"].clone();
            assert_ne!(task["status"], "failed", "{task}");
            if task["status"] == "input_required" {
                break task;
            }
            assert!(started.elapsed() < Duration::from_secs(15), "{task}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let key = outstanding(&parked);
        update(survivor, "ada", &id, json!({key: refunds(&json!(true))})).await;
        let done = settled(survivor, "ada", &id).await;
        assert_eq!(done["status"], "completed", "{done}");
        assert_eq!(mrtr_guard_examples::export_tool::exports_of(&id), 1);
    });
}

mod budgets;
mod clock;
mod inbox;
mod instances;
mod lifecycle;
mod polls;
mod principals;
mod redis;
mod rollback;
mod sessions;
mod steps;
mod wire;
