//! `export_orders` over real HTTP through `McpServer`: a round before the
//! task, the task asking inside it, and every task request bound to the
//! principal that created the task.

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

use super::client::{meta, rpc, task_meta};
use super::server::on_loopback;
use super::sessions::{open_session, send};

const AUDIENCE: &str = "http://mcp.test/mcp";

fn codec() -> StateCodec {
    StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[0x42; 32]).unwrap())
        .replay_guard(Arc::new(MemoryReplayGuard::new(10_000)))
        .build()
        .unwrap()
}

async fn start() -> SocketAddr {
    on_loopback(Signup::service(codec()).unwrap()).await
}

fn export(meta: &Value, retry: Option<(&Value, &str)>) -> Value {
    let mut params =
        json!({"name": "export_orders", "arguments": {"format": "csv"}, "_meta": meta});
    if let Some((responses, state)) = retry {
        params["inputResponses"] = responses.clone();
        params["requestState"] = json!(state);
    }
    params
}

fn range() -> Value {
    json!({"range": {"action": "accept", "content": {"from": "2026-01-01", "to": "2026-01-31"}}})
}

/// Round 1 asks the range; round 2, with it, creates the task: the
/// `CreateTaskResult`, and the state round 2 consumed (for replays).
async fn create(addr: SocketAddr, user: &str) -> (Value, String) {
    let first = rpc(
        addr,
        user,
        "tools/call",
        "export_orders",
        &export(&task_meta(), None),
    )
    .await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert!(result["inputRequests"]["range"].is_object(), "{first}");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let params = export(&task_meta(), Some((&range(), &state)));
    let created = rpc(addr, user, "tools/call", "export_orders", &params).await;
    (created, state)
}

async fn get(addr: SocketAddr, user: &str, id: &str) -> Value {
    rpc(
        addr,
        user,
        "tasks/get",
        id,
        &json!({"taskId": id, "_meta": task_meta()}),
    )
    .await
}

async fn update(addr: SocketAddr, user: &str, id: &str, responses: Value) -> Value {
    let params = json!({"taskId": id, "inputResponses": responses, "_meta": task_meta()});
    rpc(addr, user, "tasks/update", id, &params).await
}

/// Polls until the task leaves `working`: its `tasks/get` result.
async fn settled(addr: SocketAddr, user: &str, id: &str) -> Value {
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
fn outstanding(task: &Value) -> String {
    assert_eq!(task["status"], "input_required", "{task}");
    let keys: Vec<&String> = task["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 1, "{task}");
    keys[0].clone()
}

fn refunds(include: &Value) -> Value {
    json!({"action": "accept", "content": {"includeRefunds": include}})
}

#[tokio::test]
async fn with_the_extension_the_export_runs_as_a_task_that_asks_inside_it() {
    let addr = start().await;
    let (created, _) = create(addr, "ada").await;
    let result = &created["result"];
    assert_eq!(result["resultType"], "task", "{created}");
    assert_eq!(result["status"], "working", "{created}");
    for absent in ["requestState", "inputRequests", "result", "error", "task"] {
        assert!(result.get(absent).is_none(), "{absent} in {created}");
    }
    let id = result["taskId"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32);

    let parked = settled(addr, "ada", &id).await;
    let key = outstanding(&parked);
    assert!(key.starts_with("refunds"), "{parked}");
    let asked = &parked["inputRequests"][&key];
    assert_eq!(asked["method"], "elicitation/create", "{parked}");
    assert!(parked.get("requestState").is_none(), "{parked}");

    let ack = update(
        addr,
        "ada",
        &id,
        json!({key.clone(): refunds(&json!(true))}),
    )
    .await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let done = settled(addr, "ada", &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Exported the orders from 2026-01-01 to 2026-01-31 as CSV, refunds included.",
        "{done}"
    );
    // The answered key is gone for good: answering it again changes nothing.
    let again = update(addr, "ada", &id, json!({key: refunds(&json!(false))})).await;
    assert_eq!(
        again["result"],
        json!({"resultType": "complete"}),
        "{again}"
    );
    assert_eq!(settled(addr, "ada", &id).await, done);
}

#[tokio::test]
async fn without_the_extension_the_same_handler_asks_twice_and_answers_in_the_call() {
    let addr = start().await;
    let first = rpc(
        addr,
        "ada",
        "tools/call",
        "export_orders",
        &export(&meta(), None),
    )
    .await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let second = rpc(
        addr,
        "ada",
        "tools/call",
        "export_orders",
        &export(&meta(), Some((&range(), &state))),
    )
    .await;
    let result = &second["result"];
    assert_eq!(result["resultType"], "input_required", "{second}");
    assert!(result["inputRequests"]["refunds"].is_object(), "{second}");
    assert!(result.get("taskId").is_none(), "{second}");
    let state = result["requestState"].as_str().unwrap();
    let answers = json!({"refunds": refunds(&json!(false))});
    let third = rpc(
        addr,
        "ada",
        "tools/call",
        "export_orders",
        &export(&meta(), Some((&answers, state))),
    )
    .await;
    assert_eq!(third["result"]["resultType"], "complete", "{third}");
    assert_eq!(
        third["result"]["content"][0]["text"],
        "Exported the orders from 2026-01-01 to 2026-01-31 as CSV.",
        "{third}"
    );
}

#[tokio::test]
async fn an_invalid_answer_is_asked_again_under_a_new_key_and_the_third_ends_the_task() {
    let addr = start().await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let mut keys = Vec::new();
    let mut task = settled(addr, "ada", &id).await;
    for strike in 1..=3 {
        let key = outstanding(&task);
        assert!(!keys.contains(&key), "key {key} reused");
        keys.push(key.clone());
        if strike > 1 {
            let message = task["inputRequests"][&key]["params"]["message"]
                .as_str()
                .unwrap();
            assert!(
                message.contains("Please correct: Include Refunds"),
                "{message}"
            );
            assert!(
                !message.contains("yes please"),
                "the value is echoed: {message}"
            );
        }
        let ack = update(
            addr,
            "ada",
            &id,
            json!({key: refunds(&json!("yes please"))}),
        )
        .await;
        assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
        task = settled(addr, "ada", &id).await;
    }
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["result"]["isError"], true, "{task}");
    assert_eq!(keys.len(), 3);
}

#[tokio::test]
async fn a_decline_inside_the_task_reaches_the_handler_as_an_answer() {
    let addr = start().await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let key = outstanding(&settled(addr, "ada", &id).await);
    update(addr, "ada", &id, json!({key: {"action": "decline"}})).await;
    let done = settled(addr, "ada", &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "Export cancelled.",
        "{done}"
    );
}

#[tokio::test]
async fn another_principal_gets_exactly_what_an_unknown_task_id_gets() {
    let addr = start().await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let key = outstanding(&settled(addr, "ada", &id).await);
    let unknown = "0123456789abcdef0123456789abcdef";
    let cancel = |user: &'static str, id: String| async move {
        rpc(
            addr,
            user,
            "tasks/cancel",
            &id,
            &json!({"taskId": id, "_meta": task_meta()}),
        )
        .await
    };
    let answers = json!({key.clone(): refunds(&json!(true))});
    let pairs = [
        (get(addr, "eve", &id).await, get(addr, "eve", unknown).await),
        (
            update(addr, "eve", &id, answers.clone()).await,
            update(addr, "eve", unknown, answers.clone()).await,
        ),
        (
            cancel("eve", id.clone()).await,
            cancel("eve", unknown.to_owned()).await,
        ),
    ];
    for (theirs, unknown) in pairs {
        assert_eq!(theirs["error"]["code"], -32602, "{theirs}");
        assert_eq!(theirs, unknown);
    }
    // Eve's attempts changed nothing: the question is still Ada's to answer.
    assert_eq!(outstanding(&settled(addr, "ada", &id).await), key);
}

#[tokio::test]
async fn the_final_round_replayed_gets_the_same_task_and_creates_no_other() {
    let addr = start().await;
    let (created, state) = create(addr, "ada").await;
    let again = rpc(
        addr,
        "ada",
        "tools/call",
        "export_orders",
        &export(&task_meta(), Some((&range(), &state))),
    )
    .await;
    assert_eq!(again, created);
    // Another principal presenting the same state learns nothing of it.
    let eve = rpc(
        addr,
        "eve",
        "tools/call",
        "export_orders",
        &export(&task_meta(), Some((&range(), &state))),
    )
    .await;
    assert_eq!(eve["error"]["code"], -32602, "{eve}");
}

#[tokio::test]
async fn a_completed_final_round_replayed_gets_the_same_result() {
    let addr = start().await;
    let first = json!({"name": "ShipOrder", "arguments": {}, "_meta": meta()});
    let asked = rpc(addr, "ada", "tools/call", "ShipOrder", &first).await;
    let state = asked["result"]["requestState"].as_str().unwrap();
    let answers = json!({"ship": {"action": "accept", "content": {"trackingNumber": "1Z9"}}});
    let retry = json!({"name": "ShipOrder", "arguments": {}, "inputResponses": answers,
                       "requestState": state, "_meta": meta()});
    let done = rpc(addr, "ada", "tools/call", "ShipOrder", &retry).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Shipped as 1Z9.",
        "{done}"
    );
    assert_eq!(
        rpc(addr, "ada", "tools/call", "ShipOrder", &retry).await,
        done
    );
}

/// Instances over one task store and one replay guard, as several
/// instances of a server behind one name share them.
struct Shared {
    store: Arc<MemoryTaskStore>,
    guard: Arc<MemoryReplayGuard>,
}

impl Shared {
    fn new() -> Self {
        Self {
            store: Arc::new(MemoryTaskStore::new()),
            guard: Arc::new(MemoryReplayGuard::new(10_000)),
        }
    }

    fn service(&self) -> McpService<Signup> {
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

#[tokio::test]
async fn a_task_created_on_one_instance_is_polled_and_answered_on_another() {
    let shared = Shared::new();
    let a = on_loopback(shared.service()).await;
    let b = on_loopback(shared.service()).await;
    let (created, _) = create(a, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let key = outstanding(&settled(b, "ada", &id).await);
    // Both instances take an answer for the one key at once: one of them
    // takes it and resumes the task; the other's is ignored.
    let (on_a, on_b) = tokio::join!(
        update(a, "ada", &id, json!({key.clone(): refunds(&json!(true))})),
        update(b, "ada", &id, json!({key.clone(): refunds(&json!(false))})),
    );
    for ack in [on_a, on_b] {
        assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    }
    let done = settled(b, "ada", &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.starts_with("Exported the orders from 2026-01-01 to 2026-01-31 as CSV"),
        "{text}"
    );
    // Read from either instance, the task is the same.
    assert_eq!(settled(a, "ada", &id).await, done);
}

#[test]
fn a_task_whose_instance_dies_while_it_works_fails_within_the_lease() {
    let shared = Shared::new();
    // Instance A on a runtime of its own, which the test then drops: its
    // task's run dies with it, mid-work.
    let doomed = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let a = doomed.block_on(on_loopback(shared.service()));
    let rest = tokio::runtime::Runtime::new().unwrap();
    let b = rest.block_on(on_loopback(shared.service()));
    let id = rest.block_on(async {
        let (created, _) = create(a, "ada").await;
        created["result"]["taskId"].as_str().unwrap().to_owned()
    });
    doomed.shutdown_background();
    let started = Instant::now();
    let failed = rest.block_on(async {
        loop {
            let task = get(b, "ada", &id).await["result"].clone();
            if task["status"] != "working" {
                return task;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "{task}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(failed["error"]["code"].is_number(), "{failed}");
    // The lease is 1 s: the task is failed within it, after the instance died.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_2025_11_25_session_runs_the_task_tool_in_the_call() {
    let addr = super::sessions::start(|b| b).await;
    let session = open_session(addr, "ada").await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "export_orders", "arguments": {"format": "json"}}});
    let mut stream = send(addr, "POST", Some("ada"), Some(&session), &[], Some(&call)).await;
    let answers = [
        json!({"action": "accept", "content": {"from": "2026-02-01", "to": "2026-02-28"}}),
        json!({"action": "accept", "content": {"includeRefunds": false}}),
    ];
    for answer in answers {
        let ask = stream.next_message().await;
        assert_eq!(ask["method"], "elicitation/create", "{ask}");
        let reply = json!({"jsonrpc": "2.0", "id": ask["id"], "result": answer});
        let posted = send(addr, "POST", Some("ada"), Some(&session), &[], Some(&reply)).await;
        assert_eq!(posted.status, 202);
    }
    let done = stream.next_message().await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Exported the orders from 2026-02-01 to 2026-02-28 as JSON.",
        "{done}"
    );
    assert!(done["result"].get("taskId").is_none(), "{done}");
}

#[tokio::test]
async fn a_tool_that_runs_only_as_a_task_is_refused_as_each_revision_says() {
    let required = |b: McpServerBuilder| b.task_tool("ShipOrder", TaskSupport::Required);
    let addr = super::sessions::start(required).await;
    // 2026-07-28 without the extension: -32021, naming it, before anything runs.
    let first = json!({"name": "ShipOrder", "arguments": {}, "_meta": meta()});
    let refused = rpc(addr, "ada", "tools/call", "ShipOrder", &first).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"]
            ["io.modelcontextprotocol/tasks"]
            .is_object(),
        "{refused}"
    );
    // A 2025-11-25 session, which cannot call a task: -32601.
    let session = open_session(addr, "ada").await;
    let call = super::sessions::ship_order(1);
    let reply = send(addr, "POST", Some("ada"), Some(&session), &[], Some(&call))
        .await
        .finish()
        .await;
    assert_eq!(reply.json()["error"]["code"], -32601, "{}", reply.json());
}

#[tokio::test]
async fn code_outside_the_handler_asks_on_the_task_and_gets_the_checked_answer() {
    let shared = Shared::new();
    let addr = on_loopback(shared.service()).await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let handler_key = outstanding(&settled(addr, "ada", &id).await);

    // A background job holding the store and the key asks for approval.
    let codec = StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[0x42; 32]).unwrap())
        .build()
        .unwrap();
    let inbox = TaskInbox::new(shared.store.clone(), codec);
    let approval = Form::builder("Approve the export?")
        .field(Field::integer("approver").minimum(1).required())
        .build()
        .unwrap();
    let asked = {
        let id = id.clone();
        tokio::spawn(async move { inbox.ask(&id, Some("approve"), &approval).await })
    };
    let task = loop {
        let task = settled(addr, "ada", &id).await;
        if task["inputRequests"].get("approve").is_some() {
            break task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(task["inputRequests"].get(&handler_key).is_some(), "{task}");
    // Eve cannot answer it; Ada's invalid answer is asked again under a new key.
    let eve = update(
        addr,
        "eve",
        &id,
        json!({"approve": {"action": "accept", "content": {"approver": 7}}}),
    )
    .await;
    assert_eq!(eve["error"]["code"], -32602, "{eve}");
    update(
        addr,
        "ada",
        &id,
        json!({"approve": {"action": "accept", "content": {"approver": 0}}}),
    )
    .await;
    let again = loop {
        let task = settled(addr, "ada", &id).await;
        let keys: Vec<String> = task["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        if let Some(key) = keys.iter().find(|k| k.starts_with("approve-")) {
            let message = task["inputRequests"][key]["params"]["message"]
                .as_str()
                .unwrap();
            assert!(message.contains("Please correct"), "{message}");
            break key.clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    update(
        addr,
        "ada",
        &id,
        json!({again: {"action": "accept", "content": {"approver": 7}}}),
    )
    .await;
    let answers = match asked.await.unwrap().unwrap() {
        mrtr_guard::Reply::Accepted(answers) => answers,
        other => panic!("{other:?}"),
    };
    assert_eq!(answers.i64("approver").unwrap(), 7);
    // The handler's own question is still there, and its answer completes the task.
    update(
        addr,
        "ada",
        &id,
        json!({handler_key: refunds(&json!(true))}),
    )
    .await;
    assert_eq!(settled(addr, "ada", &id).await["status"], "completed");
}
