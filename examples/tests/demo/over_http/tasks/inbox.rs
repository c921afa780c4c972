//! A question parked on a task from outside its handler: by a job holding
//! the store, and by a worker the creation hook attached.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use mrtr_guard::task::TaskStore;

use super::*;

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

/// A worker attached through the creation hook, with the server's own
/// inbox: it finds its task without the client's wire, and the handler
/// finishing first does not drop its question: the task holds the result
/// until the worker's question is answered and taken.
#[tokio::test]
async fn a_worker_attached_by_the_hook_is_answered_though_the_handler_finishes_first() {
    hook_then_handler(Arc::new(MemoryTaskStore::new())).await;
}

/// The worker the hook attaches, answered though the handler finishes
/// first, with the tasks in `store`.
pub(super) async fn hook_then_handler(store: Arc<dyn TaskStore>) {
    let (told, mut heard) = tokio::sync::mpsc::unbounded_channel();
    let approval = Arc::new(
        Form::builder("Approve the export?")
            .field(Field::integer("approver").minimum(1).required())
            .build()
            .unwrap(),
    );
    let service = Signup::service_with(codec(), move |builder| {
        builder.task_store(store).on_task_created(move |task| {
            let (told, approval) = (told.clone(), approval.clone());
            assert_eq!(task.tool(), "export_orders");
            assert_eq!(task.principal(), Some("ada"));
            tokio::spawn(async move {
                let reply = task
                    .inbox()
                    .ask(task.task_id(), Some("approve"), &approval)
                    .await;
                told.send((task.task_id().to_owned(), reply)).unwrap();
            });
        })
    })
    .unwrap();
    let addr = on_loopback(service).await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let both = loop {
        let task = settled(addr, "ada", &id).await;
        if task["inputRequests"].as_object().unwrap().len() == 2 {
            break task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let handler_key = both["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .find(|key| key.starts_with("refunds"))
        .unwrap()
        .clone();
    // The handler's question first: it finishes, and the task waits.
    update(
        addr,
        "ada",
        &id,
        json!({handler_key: refunds(&json!(true))}),
    )
    .await;
    let waiting = loop {
        let task = settled(addr, "ada", &id).await;
        if task["inputRequests"].as_object().unwrap().len() == 1 {
            break task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    assert!(
        waiting["inputRequests"].get("approve").is_some(),
        "{waiting}"
    );
    update(
        addr,
        "ada",
        &id,
        json!({"approve": {"action": "accept", "content": {"approver": 7}}}),
    )
    .await;
    let (told_id, reply) = heard.recv().await.unwrap();
    assert_eq!(told_id, id, "the hook named the task the client got");
    match reply.unwrap() {
        mrtr_guard::Reply::Accepted(answers) => assert_eq!(answers.i64("approver").unwrap(), 7),
        other => panic!("{other:?}"),
    }
    let done = loop {
        let task = settled(addr, "ada", &id).await;
        if task["status"] != "input_required" {
            break task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Exported the orders from 2026-01-01 to 2026-01-31 as CSV, refunds included.",
        "{done}"
    );
}

/// `tasks/get` writes a parked form's fields in their declared order (as
/// every `input_required` result does), not sorted, and leaves no hint.
#[tokio::test]
async fn tasks_get_writes_a_parked_forms_fields_in_declared_order() {
    declared_order(Arc::new(MemoryTaskStore::new())).await;
}

/// A form parked from outside the handler, read back by `tasks/get` in
/// declared order, with the tasks in `store`.
pub(super) async fn declared_order(store: Arc<dyn TaskStore>) {
    let resolution = Arc::new(
        Form::builder("12 rows conflict: what should happen to them?")
            .field(Field::string("resolution").required())
            .field(Field::string("note"))
            .build()
            .unwrap(),
    );
    let service = Signup::service_with(codec(), move |builder| {
        builder.task_store(store).on_task_created(move |task| {
            let resolution = resolution.clone();
            tokio::spawn(async move {
                let _ = task
                    .inbox()
                    .ask(task.task_id(), Some("conflicts"), &resolution)
                    .await;
            });
        })
    })
    .unwrap();
    let addr = on_loopback(service).await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let raw = loop {
        let params = json!({"taskId": id, "_meta": task_meta()});
        let bytes = super::super::client::exchange(addr, "ada", "tasks/get", &id, &params).await;
        let raw = String::from_utf8(bytes).unwrap();
        if raw.contains("\"conflicts\"") {
            break raw;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let schema = &raw[raw.find("\"conflicts\"").unwrap()..];
    let (resolution, note) = (
        schema.find("\"resolution\"").unwrap(),
        schema.find("\"note\"").unwrap(),
    );
    assert!(resolution < note, "declared order lost: {raw}");
    assert!(!raw.contains("dev.mrtr-guard/propertyOrder"), "{raw}");
}
