//! A task's life: the round before it, the ask inside it, invalid answers
//! and a decline; the same handler without the extension.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use super::*;

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
async fn an_answer_serde_json_would_read_otherwise_is_refused_and_changes_nothing() {
    let addr = start().await;
    let (created, _) = create(addr, "ada").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let parked = settled(addr, "ada", &id).await;
    let key = outstanding(&parked);
    // `serde_json::Value` (rmcp's, with `raw_value` on) reads this object as
    // the answer inside the string: a decline that the screen would have
    // seen as a one-member object, and that carries a duplicate key.
    let inside = r#"{"action":"decline","action":"accept","content":{"includeRefunds":true}}"#;
    let smuggled = json!({key.clone(): {"$serde_json::private::RawValue": inside}});
    let refused = update(addr, "ada", &id, smuggled).await;
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert_eq!(
        settled(addr, "ada", &id).await,
        parked,
        "the task is as it was"
    );
    // In a nested argument and in `_meta`, likewise, before any round.
    let mut params = export(&task_meta(), None);
    params["arguments"]["filter"] = json!({"$serde_json::private::RawValue": "{}"});
    let call = rpc(addr, "ada", "tools/call", "export_orders", &params).await;
    assert_eq!(call["error"]["code"], -32700, "{call}");
    let mut meta = task_meta();
    meta["x"] = json!([{"$serde_json::private::RawValue": "1"}]);
    let call = rpc(
        addr,
        "ada",
        "tools/call",
        "export_orders",
        &export(&meta, None),
    )
    .await;
    assert_eq!(call["error"]["code"], -32700, "{call}");
    // The owner's real answer still completes the task.
    let ack = update(addr, "ada", &id, json!({key: refunds(&json!(true))})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    assert_eq!(settled(addr, "ada", &id).await["status"], "completed");
}

#[tokio::test]
async fn a_stored_call_reads_back_as_it_was_screened_and_the_task_completes() {
    // The state is bound to the arguments' canonical digest, and the task's
    // run opens it again with the arguments its record read back: numbers
    // that JSON spells several ways, escapes, big integers, a key spelled
    // with an escape must read back as round 1 saw them, or the state would
    // not open inside the task.
    let addr = start().await;
    let arguments = r#"{"format":"csv","n":-0,"f":1.0,"g":1.5e308,"h":-1e-300,"big":123456789012345678901234567890,"u":18446744073709551615,"s":"\u00e9\n\"","k\u0061":"x"}"#;
    let mut first = export(&task_meta(), None);
    first["arguments"] = serde_json::from_str(arguments).unwrap();
    let asked = rpc(addr, "ada", "tools/call", "export_orders", &first).await;
    let state = asked["result"]["requestState"].as_str().unwrap().to_owned();
    let mut second = export(&task_meta(), Some((&range(), &state)));
    second["arguments"] = first["arguments"].clone();
    let created = rpc(addr, "ada", "tools/call", "export_orders", &second).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let parked = settled(addr, "ada", &id).await;
    let key = outstanding(&parked);
    let ack = update(addr, "ada", &id, json!({key: refunds(&json!(false))})).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let done = settled(addr, "ada", &id).await;
    assert_eq!(done["status"], "completed", "{done}");
}
