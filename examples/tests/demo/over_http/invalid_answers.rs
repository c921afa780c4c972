//! The demo server (`examples/src/bin/signup_server.rs`'s handler and router)
//! over real HTTP on loopback: what a client sees on the wire when its answers
//! keep failing validation; and, served the same way, a `book_meeting` tool
//! with optional fields (their invalid answers are asked again, not dropped).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::net::SocketAddr;

use mrtr_guard::rmcp::{McpServer, McpService};
use mrtr_guard::{Flow, MasterKey, StateCodec};
use mrtr_guard_examples::signup_service::Signup;
use serde_json::{Value, json};

use super::client::{call, first, retry, state_of};
use super::server::on_loopback;

/// Serves the demo on a free loopback port of the current runtime.
async fn start() -> SocketAddr {
    serve(|codec| Signup::service(codec).unwrap()).await
}

/// Serves the service `make` builds over a codec, on a free loopback port
/// of the current runtime.
async fn serve<H>(make: impl FnOnce(StateCodec) -> McpService<H>) -> SocketAddr
where
    H: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    let codec = StateCodec::builder(
        "http://mcp.test/mcp",
        MasterKey::from_bytes(&[0x42; 32]).unwrap(),
    )
    .build()
    .unwrap();
    on_loopback(make(codec)).await
}

fn message_of(answer: &Value, key: &str) -> String {
    answer["result"]["inputRequests"][key]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no message under {key}: {answer}"))
        .to_owned()
}

/// A tracking number one code point longer than the form allows, and easy
/// to find in any text that would echo it.
fn too_long() -> Value {
    let number = format!("ECHO{}", "9".repeat(61));
    json!({"ship": {"action": "accept", "content": {"trackingNumber": number}}})
}

#[tokio::test]
async fn answers_that_keep_failing_end_with_a_tool_error_after_three() {
    let addr = start().await;
    let asked = call(addr, "ada", "ShipOrder", &first("ShipOrder")).await;
    let original = message_of(&asked, "ship");
    let mut state = state_of(&asked).unwrap();
    // Two invalid answers: each is asked again, saying which field and why,
    // never echoing the answer.
    for attempt in 1..=2 {
        let answer = call(
            addr,
            "ada",
            "ShipOrder",
            &retry("ShipOrder", too_long(), &state),
        )
        .await;
        let reask = message_of(&answer, "ship");
        assert_ne!(reask, original, "attempt {attempt}: the re-ask says why");
        assert!(reask.starts_with(&original), "{reask}");
        assert!(reask.contains("Tracking Number"), "{reask}");
        assert!(reask.contains("at most 64 characters"), "{reask}");
        assert!(!reask.contains("ECHO"), "{reask}");
        state = state_of(&answer).unwrap();
    }
    // The third ends the flow: a tool result with isError, not another ask.
    let answer = call(
        addr,
        "ada",
        "ShipOrder",
        &retry("ShipOrder", too_long(), &state),
    )
    .await;
    let result = &answer["result"];
    assert_eq!(result["resultType"], "complete", "{answer}");
    assert_eq!(result["isError"], true, "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("kept failing validation"), "{text}");
    assert!(!text.contains("ECHO"), "{text}");
}

// ---- book_meeting: invalid optional answers are asked again (issue 20) ------------------

mod meetings {
    //! A `book_meeting` tool as a new user writes it: a derived form with
    //! optional fields, served like the demo (rmcp behind `ScreenLayer`).
    //! `book_meeting_hint` asks the same form with the opt-out.

    use std::sync::Arc;

    use mrtr_guard::rmcp::{RmcpFlow, ToolCall, ToolResponse, tool_response};
    use mrtr_guard::{Form, FormFields, Round, Stop};
    use rmcp::handler::server::router::tool::ToolRouter;
    use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
    use rmcp::{ServerHandler, tool, tool_handler, tool_router};
    use serde::Deserialize;

    #[derive(Deserialize, FormFields)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct Booking {
        /// What the meeting is about.
        #[form(max_length = 80)]
        topic: String,
        #[form(minimum = 1, maximum = 40, default = 4)]
        attendees: Option<u32>,
        #[form(format = "date", title = "Start date")]
        starts_on: Option<String>,
    }

    #[derive(Clone)]
    pub(super) struct Meetings {
        flow: RmcpFlow,
        form: Arc<Form>,
        hint: Arc<Form>,
        tool_router: ToolRouter<Self>,
    }

    pub(super) fn bearer(parts: &http::request::Parts) -> Option<String> {
        let value = parts.headers.get(http::header::AUTHORIZATION)?;
        Some(value.to_str().ok()?.strip_prefix("Bearer ")?.to_owned())
    }

    fn book(round: &mut Round<'_>, form: &Form) -> Result<String, Stop> {
        let booking: Booking = round.require("book", form)?.bind()?;
        Ok(format!(
            "Booked {:?}: attendees {:?}, starting {:?}.",
            booking.topic, booking.attendees, booking.starts_on
        ))
    }

    #[tool_router]
    impl Meetings {
        pub(super) fn new(flow: RmcpFlow) -> Self {
            let form = Form::of::<Booking>("Book a meeting").build().unwrap();
            let hint = Form::of::<Booking>("Book a meeting")
                .drop_invalid_optional()
                .build()
                .unwrap();
            Self {
                flow,
                form: Arc::new(form),
                hint: Arc::new(hint),
                tool_router: Self::tool_router(),
            }
        }

        /// Book a meeting: every invalid answer is asked again.
        #[tool]
        async fn book_meeting(&self, call: ToolCall) -> ToolResponse {
            let mut round = self.flow.round(call).await?;
            let result = book(&mut round, &self.form);
            tool_response(round, result)
        }

        /// Book a meeting: invalid optional answers are dropped.
        #[tool]
        async fn book_meeting_hint(&self, call: ToolCall) -> ToolResponse {
            let mut round = self.flow.round(call).await?;
            let result = book(&mut round, &self.hint);
            tool_response(round, result)
        }
    }

    #[tool_handler(router = self.tool_router)]
    impl ServerHandler for Meetings {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
                .with_server_info(Implementation::new("meetings", "0"))
        }
    }
}

async fn start_meetings() -> SocketAddr {
    serve(|codec| {
        McpServer::builder(Flow::new(codec))
            .authenticate(meetings::bearer)
            .build(meetings::Meetings::new)
            .unwrap()
    })
    .await
}

fn booking(content: Value) -> Value {
    json!({"book": {"action": "accept", "content": content}})
}

#[tokio::test]
async fn invalid_optional_answers_are_asked_again_by_name_and_three_end_the_flow() {
    let addr = start_meetings().await;
    let tool = "book_meeting";
    let asked = call(addr, "ada", tool, &first(tool)).await;
    let schema = &asked["result"]["inputRequests"]["book"]["params"]["requestedSchema"];
    assert_eq!(schema["properties"]["attendees"]["default"], 4, "{asked}");
    let mut state = state_of(&asked).unwrap();
    // Out of bounds (1-40), then a date that does not exist: each asked
    // again, the field named by its title, the value never echoed.
    let answers = [
        (
            json!({"topic": "Plan", "attendees": 100}),
            "Attendees: must be at most 40.",
        ),
        (
            json!({"topic": "Plan", "startsOn": "2027-02-30"}),
            "Start date:",
        ),
    ];
    for (content, named) in answers {
        let answer = call(addr, "ada", tool, &retry(tool, booking(content), &state)).await;
        let reask = message_of(&answer, "book");
        assert!(
            reask.starts_with("Book a meeting\n\nPlease correct: "),
            "{answer}"
        );
        assert!(reask.contains(named), "{reask}");
        assert!(
            !reask.contains("100") && !reask.contains("2027-02-30"),
            "{reask}"
        );
        state = state_of(&answer).unwrap();
    }
    // The third invalid answer in a row ends the flow with a tool error.
    let third = booking(json!({"topic": "Plan", "startsOn": "next tuesday"}));
    let answer = call(addr, "ada", tool, &retry(tool, third, &state)).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("kept failing validation"), "{text}");
    assert!(!text.contains("tuesday"), "{text}");
}

#[tokio::test]
async fn the_opt_out_drops_invalid_optional_answers_and_books() {
    let addr = start_meetings().await;
    let tool = "book_meeting_hint";
    let asked = call(addr, "ada", tool, &first(tool)).await;
    let state = state_of(&asked).unwrap();
    let content = json!({"topic": "Plan", "attendees": 0, "startsOn": "next tuesday"});
    let answer = call(addr, "ada", tool, &retry(tool, booking(content), &state)).await;
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(
        text, "Booked \"Plan\": attendees None, starting None.",
        "{answer}"
    );
}
