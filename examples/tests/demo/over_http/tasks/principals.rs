//! Every task request is its principal's; a final round replayed gets the
//! answer the first one got.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use super::*;

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
