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

#[tokio::test]
async fn a_task_request_without_credentials_is_refused_before_any_lookup() {
    let addr = start().await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get",
                      "params": {"taskId": id, "_meta": task_meta()}})
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tasks/get\r\nMcp-Name: {id}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stream, request.as_bytes())
        .await
        .unwrap();
    let mut response = Vec::new();
    tokio::io::AsyncReadExt::read_to_end(&mut stream, &mut response)
        .await
        .unwrap();
    let head = String::from_utf8_lossy(&response);
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
}

#[tokio::test]
async fn tasks_are_capped_per_principal_and_past_their_ttl_are_unknown() {
    let addr = on_loopback(
        Signup::service_with(codec(), |builder| {
            builder
                .task_limits(1, 10)
                .task_ttl(Duration::from_millis(1500))
        })
        .unwrap(),
    )
    .await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // Round 1 of another export, then its round 2, which would create the
    // task: refused as a cap, HTTP 429 with when to retry.
    let first = rpc(
        addr,
        "ada",
        "tools/call",
        "export_orders",
        &export(&task_meta(), None),
    )
    .await;
    let state = first["result"]["requestState"].as_str().unwrap();
    let params = export(&task_meta(), Some((&range(), state)));
    let (head, refused) = rpc_with_head(addr, "ada", "tools/call", "export_orders", &params).await;
    assert!(head.starts_with("http/1.1 429"), "{head}");
    assert!(head.contains("\r\nretry-after: 1\r\n"), "{head}");
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    assert_eq!(
        refused["error"]["data"]["limit"], "tasks for this principal",
        "{refused}"
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("tasks/cancel"), "{message}");
    assert!(!message.contains("session"), "{message}");
    // Another principal is served.
    let (other, _) = create(addr, "bob").await;
    assert_eq!(other["result"]["resultType"], "task", "{other}");
    // Past its TTL the task is gone: unknown, as an id never issued.
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let gone = get(addr, "ada", &id).await;
    assert_eq!(
        gone,
        get(addr, "ada", "0123456789abcdef0123456789abcdef").await
    );
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    // Its place is free again.
    let (again, _) = create(addr, "ada").await;
    assert_eq!(again["result"]["resultType"], "task", "{again}");
}

#[tokio::test]
async fn a_task_keeps_a_call_within_its_budget_only() {
    let addr = on_loopback(
        Signup::service_with(codec(), |builder| builder.task_call_bytes(4096)).unwrap(),
    )
    .await;
    // Arguments padded past the budget: round 1 asks as ever, and the round
    // that would make them a task is refused; nothing is kept.
    let mut first = export(&task_meta(), None);
    first["arguments"]["padding"] = json!("x".repeat(8 * 1024));
    let asked = rpc(addr, "ada", "tools/call", "export_orders", &first).await;
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let mut second = export(&task_meta(), Some((&range(), &state)));
    second["arguments"] = first["arguments"].clone();
    let refused = rpc(addr, "ada", "tools/call", "export_orders", &second).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("too large"), "{message}");
    // A `_meta` padded past it is not kept: only what the runs read is.
    let mut meta = task_meta();
    meta["padding"] = json!("x".repeat(8 * 1024));
    let (created, _) = create_with(addr, "ada", &meta).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
}

#[tokio::test]
async fn an_ended_task_frees_its_place_at_once() {
    let addr =
        on_loopback(Signup::service_with(codec(), |builder| builder.task_limits(1, 10)).unwrap())
            .await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let (refused, _) = create(addr, "ada").await;
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    // Cancelled: its place is free now, not at its TTL an hour on.
    let params = json!({"taskId": id, "_meta": task_meta()});
    let ack = rpc(addr, "ada", "tasks/cancel", &id, &params).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let (second, _) = create(addr, "ada").await;
    let second = second["result"]["taskId"].as_str().unwrap().to_owned();
    // Completed: likewise; the ended task still answers `tasks/get`.
    let key = outstanding(&settled(addr, "ada", &second).await);
    update(addr, "ada", &second, json!({key: refunds(&json!(true))})).await;
    assert_eq!(settled(addr, "ada", &second).await["status"], "completed");
    let (third, _) = create(addr, "ada").await;
    assert_eq!(third["result"]["resultType"], "task", "{third}");
    assert_eq!(settled(addr, "ada", &id).await["status"], "cancelled");
}
