//! Instances sharing one task store and one replay guard: any of them
//! serves any task, one that dies has its task resumed by another (polled
//! or not), and one that disagrees with the others (audience, key) is
//! refused at start-up.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use mrtr_guard::rmcp::{McpServer, ServerConfigError};
use mrtr_guard::task::TaskStore;
use mrtr_guard::{Flow, KeyRing};

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
fn a_task_whose_instance_dies_while_it_works_is_resumed_on_another() {
    let shared = Shared::new();
    // Instance A on a runtime of its own, which the test then drops: its
    // task's run dies with it, mid-step.
    let doomed = own_runtime();
    let a = doomed.block_on(on_loopback(shared.service()));
    let rest = tokio::runtime::Runtime::new().unwrap();
    let b = rest.block_on(on_loopback(shared.service()));
    let c = rest.block_on(on_loopback(shared.service()));
    resumes_after_its_instance_dies(&rest, doomed, a, [b, c]);
}

#[test]
fn a_task_nobody_polls_is_resumed_by_the_sweep() {
    let shared = Shared::new();
    let doomed = own_runtime();
    let a = doomed.block_on(on_loopback(shared.service()));
    let rest = tokio::runtime::Runtime::new().unwrap();
    let b = rest.block_on(on_loopback(shared.service()));
    resumed_by_the_sweep(&rest, doomed, a, b);
}

/// A codec for `audience` whose ring is `keys` (the first one active).
fn codec_of(audience: &str, keys: &[u8]) -> StateCodec {
    let mut ring = KeyRing::new(MasterKey::from_bytes(&[keys[0]; 32]).unwrap());
    for key in &keys[1..] {
        ring = ring
            .with_verify_only(MasterKey::from_bytes(&[*key; 32]).unwrap())
            .unwrap();
    }
    StateCodec::builder(audience, ring).build().unwrap()
}

/// Instances sharing a store record what they must agree on there: a
/// second instance with another audience, or without the key the fleet
/// seals with, is refused at start-up, naming the setting; one that
/// rotated the key in (the old one kept to verify) joins. Built without the
/// check, the disagreeing instance serves no task, while the others do.
#[tokio::test]
async fn an_instance_that_disagrees_with_the_fleet_is_refused_at_start_up() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
    let check = |codec: StateCodec| {
        let store = store.clone();
        async move {
            McpServer::builder(Flow::new(codec))
                .anonymous()
                .task_store(store)
                .check_fleet()
                .await
        }
    };
    assert_eq!(check(codec_of(AUDIENCE, &[0x42])).await, Ok(()));
    assert_eq!(check(codec_of(AUDIENCE, &[0x42])).await, Ok(()));
    let other = check(codec_of("http://other.test/mcp", &[0x42])).await;
    assert_eq!(other, Err(ServerConfigError::FleetAudience));
    assert!(other.unwrap_err().to_string().contains("same audience"));
    assert_eq!(
        check(codec_of(AUDIENCE, &[0x43])).await,
        Err(ServerConfigError::FleetKey)
    );
    // Rotation: the new key active, the fleet's kept to verify: joins, and
    // the fleet now seals with the new key.
    assert_eq!(check(codec_of(AUDIENCE, &[0x43, 0x42])).await, Ok(()));
    assert_eq!(
        check(codec_of(AUDIENCE, &[0x42])).await,
        Err(ServerConfigError::FleetKey)
    );
    assert_eq!(check(codec_of(AUDIENCE, &[0x43])).await, Ok(()));

    // Without the start-up check: the instance with another audience is
    // refused its first task; one of the fleet's creates tasks.
    let serving = |codec: StateCodec| {
        let store = store.clone();
        Signup::service_with(codec, move |builder| builder.task_store(store)).unwrap()
    };
    let astray = on_loopback(serving(codec_of("http://other.test/mcp", &[0x43]))).await;
    let (refused, _) = create(astray, "ada").await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    let fleet = on_loopback(serving(codec_of(AUDIENCE, &[0x43]))).await;
    let (created, _) = create(fleet, "ada").await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
}
