//! The `2025-11-25` session path: a task tool runs in the call; one that
//! runs only as a task is refused, as each revision says.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use super::*;

#[tokio::test]
async fn a_2025_11_25_session_runs_the_task_tool_in_the_call() {
    let addr = crate::over_http::sessions::start(|b| b).await;
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
    let addr = crate::over_http::sessions::start(required).await;
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
    let call = crate::over_http::sessions::ship_order(1);
    let reply = send(addr, "POST", Some("ada"), Some(&session), &[], Some(&call))
        .await
        .finish()
        .await;
    assert_eq!(reply.json()["error"]["code"], -32601, "{}", reply.json());
}
