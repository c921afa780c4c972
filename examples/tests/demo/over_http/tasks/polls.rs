//! A plain poll is answered in front of `rmcp` (`TaskPolls`): what it
//! answers is, byte for byte, what `rmcp` and the task host's route answer
//! the same poll with, at every status and for a form whose fields are not
//! in alphabetical order; and every request `rmcp` refuses (a Host it does
//! not allow, headers that contradict the body, another principal's task)
//! is refused as before.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use super::super::client::{exchange_raw, status_and_json};
use super::*;

/// A `tasks/get` of `id` by `user`, with `extra` headers (in place of the
/// MCP headers of the same names), as sent on the wire: its status line,
/// `Content-Type` and body bytes.
async fn poll_raw(
    addr: SocketAddr,
    user: &str,
    id: &str,
    extra: &[(&str, &str)],
) -> (String, Option<String>, Vec<u8>) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get",
                      "params": {"taskId": id, "_meta": task_meta()}});
    let bearer = format!("Bearer {user}");
    let mut headers = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tasks/get"),
        ("Mcp-Name", id),
        ("Authorization", bearer.as_str()),
    ];
    headers.retain(|(name, _)| !extra.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)));
    headers.extend_from_slice(extra);
    let response = exchange_raw(addr, &headers, body.to_string().as_bytes()).await;
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
    let status = head.lines().next().unwrap().to_owned();
    let content_type = head
        .lines()
        .find_map(|line| line.strip_prefix("content-type: "))
        .map(str::to_owned);
    let body = &response[split + 4..];
    let body = if head.contains("transfer-encoding: chunked") {
        super::super::client::dechunk(body)
    } else {
        body.to_vec()
    };
    (status, content_type, body)
}

/// `Accept` sent twice (as a client may): `TaskPolls` leaves a repeated
/// header to `rmcp`, which reads both values; the poll takes `rmcp`'s path.
const THROUGH_RMCP: [(&str, &str); 1] = [("Accept", "application/json, text/event-stream")];

/// The poll of `id` by `user`, which must be the same on both paths
/// (taken again while the task moved between them); its JSON answer.
pub(super) async fn same_on_both_paths(addr: SocketAddr, user: &str, id: &str) -> Value {
    for _ in 0..20 {
        let plain = poll_raw(addr, user, id, &[]).await;
        let through_rmcp = poll_raw(addr, user, id, &THROUGH_RMCP).await;
        if plain == poll_raw(addr, user, id, &[]).await {
            assert_eq!(
                String::from_utf8_lossy(&plain.2),
                String::from_utf8_lossy(&through_rmcp.2),
                "the poll answered in front of rmcp differs from rmcp's"
            );
            assert_eq!(plain, through_rmcp);
            return serde_json::from_slice(&plain.2).unwrap();
        }
    }
    panic!("the task never held still for three polls");
}

/// Ada's task `id`, polled on both paths until `done` holds of it.
async fn polled_until(addr: SocketAddr, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    loop {
        let task = same_on_both_paths(addr, "ada", id).await;
        if done(&task) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_poll_answered_in_front_of_rmcp_is_the_one_rmcp_answers_at_every_status() {
    let shared = Shared::new();
    let addr = on_loopback(shared.service()).await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let working = same_on_both_paths(addr, "ada", &id).await;
    assert!(working["result"]["status"].is_string(), "{working}");

    // The handler's question, then one from outside the handler whose form
    // declares its fields out of alphabetical order.
    let handler_key = outstanding(&settled(addr, "ada", &id).await);
    let parked = same_on_both_paths(addr, "ada", &id).await;
    assert!(
        parked["result"]["inputRequests"][&handler_key].is_object(),
        "{parked}"
    );
    let codec = StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[0x42; 32]).unwrap())
        .build()
        .unwrap();
    let inbox = TaskInbox::new(shared.store.clone(), codec);
    let approval = Form::builder("Who approves the export, and why?")
        .field(Field::string("who").title("Approver").required())
        .field(Field::string("because").title("Reason"))
        .field(Field::integer("after").minimum(0))
        .build()
        .unwrap();
    let asked = {
        let id = id.clone();
        tokio::spawn(async move { inbox.ask(&id, Some("approve"), &approval).await })
    };
    let both = polled_until(addr, &id, |task| {
        task["result"]["inputRequests"].get("approve").is_some()
    })
    .await;
    let text = String::from_utf8(poll_raw(addr, "ada", &id, &[]).await.2).unwrap();
    let at = |name: &str| text.find(&format!("\"{name}\":{{")).unwrap();
    assert!(
        at("who") < at("because") && at("because") < at("after"),
        "{text}"
    );
    assert!(
        both["result"]["inputRequests"][&handler_key].is_object(),
        "{both}"
    );

    // Answered: the task completes with the tool's result.
    update(
        addr,
        "ada",
        &id,
        json!({"approve": {"action": "accept", "content": {"who": "bob"}}}),
    )
    .await;
    asked.await.unwrap().unwrap();
    update(
        addr,
        "ada",
        &id,
        json!({handler_key: refunds(&json!(true))}),
    )
    .await;
    let done = polled_until(addr, &id, |task| task["result"]["status"] == "completed").await;
    assert!(done["result"]["result"]["content"].is_array(), "{done}");

    // Cancelled, with its status message.
    let (other, _) = create(addr, "ada").await;
    let other = other["result"]["taskId"].as_str().unwrap().to_owned();
    let cancel = json!({"taskId": other, "_meta": task_meta()});
    rpc(addr, "ada", "tasks/cancel", &other, &cancel).await;
    let cancelled = same_on_both_paths(addr, "ada", &other).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    assert!(
        cancelled["result"]["statusMessage"].is_string(),
        "{cancelled}"
    );
}

#[tokio::test]
async fn a_poll_rmcp_refuses_is_refused_as_before() {
    let addr = start().await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    settled(addr, "ada", &id).await;
    let ping = |extra: &'static [(&'static str, &'static str)]| async move {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping",
                          "params": {"_meta": task_meta()}});
        let mut headers = vec![
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "ping"),
            ("Authorization", "Bearer ada"),
        ];
        headers.extend_from_slice(extra);
        exchange_raw(addr, &headers, body.to_string().as_bytes()).await
    };
    // A Host rmcp does not allow (a DNS rebinding page): 403, as a ping gets.
    let evil: &[(&str, &str)] = &[("Host", "evil.example")];
    let refused = poll_raw(addr, "ada", &id, evil).await;
    assert!(refused.0.contains(" 403 "), "{refused:?}");
    let pinged = ping(&[("Host", "evil.example")]).await;
    assert_eq!(
        String::from_utf8_lossy(&refused.2),
        String::from_utf8_lossy(
            &pinged[pinged.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4..]
        )
    );
    // Standard headers that contradict the body: rmcp's header mismatch.
    let mut rest = Vec::new();
    for extra in [
        [("Mcp-Name", "another-task")],
        [("Mcp-Method", "tasks/cancel")],
        [("MCP-Protocol-Version", "2025-11-25")],
    ] {
        let (status, _, body) = poll_raw(addr, "ada", &id, &extra).await;
        let answer: Value = serde_json::from_slice(&body).unwrap();
        assert!(status.contains(" 400 "), "{extra:?}: {status} {answer}");
        assert!(answer["error"].is_object(), "{extra:?}: {answer}");
        assert!(answer.get("result").is_none(), "{extra:?}: {answer}");
        rest.push(answer);
    }
    // Another principal's task: what an unknown id gets, on both paths.
    let unknown = "0123456789abcdef0123456789abcdef";
    let theirs = poll_raw(addr, "eve", &id, &[]).await;
    let none = poll_raw(addr, "eve", unknown, &[]).await;
    let (status, answer) = status_and_json(
        &[
            format!("{}\r\n\r\n", theirs.0).into_bytes(),
            theirs.2.clone(),
        ]
        .concat(),
    );
    assert_eq!(answer["error"]["code"], -32602, "{status} {answer}");
    assert_eq!(theirs.0, none.0);
    assert_eq!(theirs.2, none.2);
    assert_eq!(theirs, poll_raw(addr, "eve", &id, &THROUGH_RMCP).await);
}
