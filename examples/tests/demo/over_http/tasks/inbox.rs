//! A question parked on a task from outside its handler.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

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
