//! Instances sharing one task store and one replay guard: any of them
//! serves any task, and one that dies leaves its task failed within the lease.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use super::*;

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
    // Resumed twice, the second run would find its state used (the
    // shared guard refuses it) and fail the task: completed means once.
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
    dies_mid_work(&rest, doomed, a, b);
}
