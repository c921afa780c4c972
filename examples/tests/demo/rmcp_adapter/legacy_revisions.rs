//! Each session revision gets forms it can read: a `2025-06-18` session is
//! sent titled options as `enum` + `enumNames` and no `default` but on
//! booleans, and a form with a multi-select is refused before anything of
//! its round is asked; a `2025-11-25` session gets every form as written.
//! Asserted on the JSON the client read off the wire.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a panic is a failing test"
)]

use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use super::legacy_session::{Answer, FORM, Session, call, default_server, error, session_at, text};

/// The params of every `elicitation/create` the server sent.
fn asked(session: &Session) -> Vec<Value> {
    session
        .wire
        .lock()
        .unwrap()
        .iter()
        .filter(|message| message["method"] == "elicitation/create")
        .map(|message| message["params"].clone())
        .collect()
}

/// A session at `revision` whose client answers from `script`.
async fn at(revision: ProtocolVersion, script: Vec<Answer>) -> Session {
    session_at(revision, default_server(), FORM, script).await
}

/// The `plan` form's schema as a session at `revision` is sent it, once the
/// call completed with `plan` chosen.
async fn plan_form(revision: ProtocolVersion, plan: &str) -> Value {
    let s = at(revision, vec![Answer::Accept(json!({"plan": plan}))]).await;
    let result = call(&s, "plan").await.unwrap();
    assert_eq!(text(&result), format!("Plan {plan}."));
    let asked = asked(&s);
    assert_eq!(asked.len(), 1);
    asked[0]["requestedSchema"].clone()
}

#[tokio::test]
async fn a_2025_06_18_session_gets_enum_names_and_no_string_default() {
    assert_eq!(
        plan_form(ProtocolVersion::V_2025_06_18, "team").await,
        json!({
            "type": "object",
            "properties": {
                "news": {"type": "boolean", "title": "News", "default": true},
                "note": {"type": "string", "title": "Note", "maxLength": 20},
                "plan": {"type": "string", "title": "Plan", "enum": ["free", "team"],
                         "enumNames": ["Free", "Team"]}
            },
            "required": ["plan"]
        })
    );
}

#[tokio::test]
async fn a_2025_11_25_session_still_gets_one_of_and_defaults() {
    assert_eq!(
        plan_form(ProtocolVersion::V_2025_11_25, "free").await,
        json!({
            "type": "object",
            "properties": {
                "news": {"type": "boolean", "title": "News", "default": true},
                "note": {"type": "string", "title": "Note", "maxLength": 20, "default": "none"},
                "plan": {"type": "string", "title": "Plan", "default": "team",
                         "oneOf": [{"const": "free", "title": "Free"},
                                   {"const": "team", "title": "Team"}]}
            },
            "required": ["plan"]
        })
    );
}

#[tokio::test]
async fn a_2025_06_18_session_is_asked_nothing_of_a_round_with_a_multi_select() {
    let s = at(ProtocolVersion::V_2025_06_18, vec![]).await;
    let error = error(call(&s, "team").await);
    assert_eq!(error.code.0, -32603);
    assert!(error.message.contains("\"roles\""), "{}", error.message);
    assert!(error.message.contains("multi-select"), "{}", error.message);
    assert!(error.message.contains("2025-06-18"), "{}", error.message);
    assert_eq!(
        error.data,
        Some(json!({"reason": "form_needs_newer_revision", "field": "roles"}))
    );
    // Not even the round's first form, which that revision could show.
    assert!(asked(&s).is_empty(), "{:?}", asked(&s));
    assert!(s.handler.seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_2025_11_25_session_still_gets_the_multi_select() {
    let s = at(
        ProtocolVersion::V_2025_11_25,
        vec![
            Answer::Accept(json!({"size": 3})),
            Answer::Accept(json!({"roles": ["admin", "member"]})),
        ],
    )
    .await;
    let result = call(&s, "team").await.unwrap();
    assert_eq!(text(&result), "Team of 3: admin, member.");
    let asked = asked(&s);
    assert_eq!(asked.len(), 2);
    assert_eq!(
        asked[1]["requestedSchema"]["properties"]["roles"],
        json!({"type": "array", "title": "Roles", "minItems": 1,
               "items": {"type": "string", "enum": ["admin", "member"]}})
    );
}
