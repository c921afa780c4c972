//! A task's steps, done once: the export's long work runs in the first run
//! of the handler and never again, however often an answer runs the
//! handler again.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use mrtr_guard_examples::export_tool::exports_of;

use super::*;

/// A task that asks inside it, answered once invalid (asked again under a
/// new key), then valid: three runs of the handler, one export.
pub(super) async fn one_export_across_three_runs(addr: SocketAddr, answering: SocketAddr) {
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let first = outstanding(&settled(addr, "ada", &id).await);
    assert_eq!(exports_of(&id), 1);
    update(
        answering,
        "ada",
        &id,
        json!({first.clone(): refunds(&json!("yes"))}),
    )
    .await;
    let again = outstanding(&settled(answering, "ada", &id).await);
    assert_ne!(
        again, first,
        "an invalid answer is asked again under a new key"
    );
    update(
        answering,
        "ada",
        &id,
        json!({again: refunds(&json!(false))}),
    )
    .await;
    let done = settled(addr, "ada", &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(exports_of(&id), 1, "the export ran again");
}

#[tokio::test]
async fn a_step_runs_once_however_often_the_handler_runs() {
    let addr = start().await;
    one_export_across_three_runs(addr, addr).await;
}

#[tokio::test]
async fn a_step_recorded_on_one_instance_is_not_run_on_another() {
    let shared = Shared::new();
    let one = on_loopback(shared.service()).await;
    let two = on_loopback(shared.service()).await;
    one_export_across_three_runs(one, two).await;
}
