//! The session `legacy.rs` and `legacy_revisions.rs` drive: tools written
//! for the `2026-07-28` rounds, served through `mrtr_guard::rmcp::McpHandler`
//! over an in-memory duplex, and `rmcp`'s own client speaking `2025-11-25`
//! (or the revision a test names), answering the server-initiated requests
//! from a script. Every message the server sends is kept as the client
//! read it off the wire.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]
#![allow(deprecated, reason = "sampling and roots still serve old clients")]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mrtr_guard::rmcp::{
    McpHandler, RmcpFlow, ToolCall, ToolResponse, prompt_response, tool_response,
};
use mrtr_guard::runtime::FixedClock;
use mrtr_guard::wire::SamplingRequest;
use mrtr_guard::{Field, Flow, Form, KeyRing, MasterKey, Policy, Reply, StateCodec, Stop};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, CancelledNotificationParam, ClientCapabilities,
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, ListRootsResult, PromptMessage, ProtocolVersion, Role as PromptRole,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{
    NotificationContext, RequestContext, RoleClient, RoleServer, RunningService, ServiceError,
};
use rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use time::OffsetDateTime;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

// ---- the server: tools as written for mrtr-guard ------------------------------------------

struct Forms {
    ship: Form,
    amount: Form,
    confirm: Form,
    plan: Form,
    size: Form,
    roles: Form,
}

fn forms() -> Forms {
    Forms {
        ship: Form::builder("Tracking number?")
            .field(
                Field::string("trackingNumber")
                    .min_length(1)
                    .max_length(8)
                    .required(),
            )
            .build()
            .unwrap(),
        amount: Form::builder("Amount?")
            .field(Field::integer("amount").minimum(1).required())
            .build()
            .unwrap(),
        confirm: Form::builder("Confirm?").build().unwrap(),
        plan: Form::builder("Plan?")
            .field(
                Field::choice("plan")
                    .titled_option("free", "Free")
                    .titled_option("team", "Team")
                    .default("team")
                    .required(),
            )
            .field(Field::string("note").max_length(20).default("none"))
            .field(Field::boolean("news").default(true))
            .build()
            .unwrap(),
        size: Form::builder("Team size?")
            .field(Field::integer("size").minimum(2).required())
            .build()
            .unwrap(),
        roles: Form::builder("Roles?")
            .field(
                Field::multi_choice("roles")
                    .option("admin")
                    .option("member")
                    .min_items(1)
                    .required(),
            )
            .build()
            .unwrap(),
    }
}

#[derive(Clone)]
struct Tools {
    flow: RmcpFlow,
    forms: Arc<Forms>,
    charges: Arc<AtomicUsize>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Tools {
    /// One form, every outcome handled.
    #[tool]
    async fn ship(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let result = match round.form("ship", &self.forms.ship) {
            Reply::Accepted(answers) => answers
                .str("trackingNumber")
                .map(|number| format!("Shipped as {number}."))
                .map_err(Stop::from),
            Reply::Declined => Ok("Shipping declined.".to_owned()),
            Reply::Cancelled => Ok("Shipping cancelled.".to_owned()),
            _ => Err(Stop::Ask),
        };
        tool_response(round, result)
    }

    /// Two rounds with an effect between them, under `once`.
    #[tool]
    async fn charge(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let result = (|| {
            let amount = round.require("amount", &self.forms.amount)?.i64("amount")?;
            let charges = Arc::clone(&self.charges);
            round.once("charge", move || charges.fetch_add(1, Ordering::SeqCst));
            round.require("confirm", &self.forms.confirm)?;
            Ok(format!("Charged {amount}."))
        })();
        tool_response(round, result)
    }

    /// Asks a new question every round: only the round cap ends it.
    #[tool]
    async fn endless(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let key = format!("q{}", round.number());
        let result = round
            .require(&key, &self.forms.confirm)
            .map(|_| "never".to_owned());
        tool_response(round, result)
    }

    /// A titled single-select and fields with defaults.
    #[tool]
    async fn plan(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let result = round
            .require("plan", &self.forms.plan)
            .and_then(|answers| Ok(format!("Plan {}.", answers.str("plan")?)));
        tool_response(round, result)
    }

    /// One round of two forms, the second with a multi-select.
    #[tool]
    async fn team(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let size = round.form("a-size", &self.forms.size);
        let roles = round.form("b-roles", &self.forms.roles);
        let result = match (size, roles) {
            (Reply::Accepted(size), Reply::Accepted(roles)) => (|| {
                let size = size.i64("size")?;
                let roles = roles.strings("roles")?.join(", ");
                Ok(format!("Team of {size}: {roles}."))
            })(),
            _ => Err(Stop::Ask),
        };
        tool_response(round, result)
    }

    /// URL mode, sampling and roots in one round.
    #[tool]
    async fn mixed(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let link = round.url("link", "Open the page", "https://example.com/connect");
        let sample = round.sample("summary", &SamplingRequest::user_text("Summarize", 16));
        let roots = round.roots("roots");
        let result = match (link, sample, roots) {
            (Reply::Accepted(()), Reply::Accepted(_), Reply::Accepted(roots)) => {
                Ok(format!("mixed: {} roots", roots.roots.len()))
            }
            _ => Err(Stop::Ask),
        };
        tool_response(round, result)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("legacy-test", "0"))
    }

    /// A prompt that asks for a tracking number first.
    async fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let mut round = self.flow.prompt_round(&params, &cx).await?;
        let result = round.require("ship", &self.forms.ship).and_then(|answers| {
            let number = answers.str("trackingNumber")?;
            Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                PromptRole::User,
                format!("Track {number}."),
            )]))
        });
        prompt_response(round, result)
    }
}

pub(super) struct Server {
    clock: Arc<FixedClock>,
    charges: Arc<AtomicUsize>,
    handler: McpHandler<Tools>,
}

fn t0() -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap()
}

pub(super) fn server(policy: Policy, timeout: Duration) -> Server {
    let codec = StateCodec::builder(
        "https://mcp.example.com/mcp",
        KeyRing::new(MasterKey::from_bytes(&[5; 32]).unwrap()),
    )
    .allow_anonymous()
    .policy(policy)
    .build()
    .unwrap();
    let clock = Arc::new(FixedClock::new(t0()));
    let flow = Flow::new(codec).with_clock(clock.clone());
    let charges = Arc::new(AtomicUsize::new(0));
    let tools = Tools {
        flow: RmcpFlow::anonymous(flow),
        forms: Arc::new(forms()),
        charges: Arc::clone(&charges),
        tool_router: Tools::tool_router(),
    };
    Server {
        clock,
        charges,
        handler: McpHandler::new(tools).with_answer_timeout(timeout),
    }
}

// ---- the client: a 2025-11-25 session answering from a script ----------------------------

/// What the client does with the next elicitation.
#[derive(Clone)]
pub(super) enum Answer {
    Accept(Value),
    Decline,
    Cancel,
    /// Moves the server's clock on, then accepts.
    Late(time::Duration, Value),
    /// Never answers.
    Hang,
}

#[derive(Clone)]
pub(super) struct Client {
    capabilities: Value,
    revision: ProtocolVersion,
    pub(super) script: Arc<Mutex<VecDeque<Answer>>>,
    clock: Arc<FixedClock>,
    /// Every elicitation received, as JSON.
    pub(super) seen: Arc<Mutex<Vec<Value>>>,
    /// Requests the server cancelled.
    pub(super) cancelled: Arc<Mutex<Vec<CancelledNotificationParam>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(self.capabilities.clone()).unwrap();
        ClientConfig::new(capabilities, Implementation::new("old-client", "1.0"))
            .with_protocol_version(self.revision.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.seen
            .lock()
            .unwrap()
            .push(serde_json::to_value(&request).unwrap());
        let next = self.script.lock().unwrap().pop_front();
        match next.expect("the script ran out of answers") {
            Answer::Accept(content) => {
                Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
            }
            Answer::Decline => Ok(ElicitResult::new(ElicitationAction::Decline)),
            Answer::Cancel => Ok(ElicitResult::new(ElicitationAction::Cancel)),
            Answer::Late(by, content) => {
                self.clock.advance(by);
                Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
            }
            Answer::Hang => std::future::pending().await,
        }
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        Ok(serde_json::from_value(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "short"},
            "model": "test-model"
        }))
        .unwrap())
    }

    async fn list_roots(
        &self,
        _cx: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(serde_json::from_value(json!({"roots": [{"uri": "file:///work"}]})).unwrap())
    }

    async fn on_cancelled(
        &self,
        params: CancelledNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        self.cancelled.lock().unwrap().push(params);
    }
}

pub(super) const FORM: &str = r#"{"elicitation": {}}"#;
pub(super) const ALL: &str =
    r#"{"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}"#;

pub(super) struct Session {
    pub(super) client: RunningService<RoleClient, Client>,
    pub(super) handler: Client,
    pub(super) charges: Arc<AtomicUsize>,
    /// Every message the server sent, as the client read it off the wire.
    pub(super) wire: Arc<Mutex<Vec<Value>>>,
}

/// A `2025-11-25` session.
pub(super) async fn session(server: Server, capabilities: &str, script: Vec<Answer>) -> Session {
    session_at(ProtocolVersion::V_2025_11_25, server, capabilities, script).await
}

/// A session whose client asks for `revision` in its `initialize`.
pub(super) async fn session_at(
    revision: ProtocolVersion,
    server: Server,
    capabilities: &str,
    script: Vec<Answer>,
) -> Session {
    let (server_io, relay_server) = tokio::io::duplex(1 << 16);
    let (relay_client, client_io) = tokio::io::duplex(1 << 16);
    let wire = Arc::new(Mutex::new(Vec::new()));
    tokio::spawn(relay(relay_server, relay_client, Arc::clone(&wire)));
    let charges = Arc::clone(&server.charges);
    let clock = Arc::clone(&server.clock);
    tokio::spawn(async move {
        let running = server.handler.serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    let handler = Client {
        capabilities: serde_json::from_str(capabilities).unwrap(),
        revision,
        script: Arc::new(Mutex::new(script.into())),
        clock,
        seen: Arc::default(),
        cancelled: Arc::default(),
    };
    let client = handler.clone().serve(client_io).await.unwrap();
    Session {
        client,
        handler,
        charges,
        wire,
    }
}

/// Passes the session's bytes between its two ends, keeping each line the
/// server sends as JSON.
async fn relay(server: DuplexStream, client: DuplexStream, wire: Arc<Mutex<Vec<Value>>>) {
    let (server_read, mut server_write) = tokio::io::split(server);
    let (client_read, mut client_write) = tokio::io::split(client);
    let upstream = async move {
        let _ = tokio::io::copy(&mut BufReader::new(client_read), &mut server_write).await;
    };
    let downstream = async move {
        let mut lines = BufReader::new(server_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            wire.lock()
                .unwrap()
                .push(serde_json::from_str(&line).unwrap());
            if client_write
                .write_all(format!("{line}\n").as_bytes())
                .await
                .is_err()
            {
                break;
            }
        }
    };
    tokio::join!(upstream, downstream);
}

pub(super) fn default_server() -> Server {
    server(Policy::default(), Duration::from_secs(5))
}

pub(super) async fn call(session: &Session, tool: &str) -> Result<CallToolResult, ServiceError> {
    session
        .client
        .peer()
        .call_tool(CallToolRequestParams::new(tool.to_owned()))
        .await
}

pub(super) fn text(result: &CallToolResult) -> String {
    let json = serde_json::to_value(result).unwrap();
    json["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a text result: {json}"))
        .to_owned()
}

pub(super) fn error(result: Result<CallToolResult, ServiceError>) -> ErrorData {
    match result {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

pub(super) fn messages(session: &Session) -> Vec<String> {
    session
        .handler
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|seen| seen["message"].as_str().unwrap().to_owned())
        .collect()
}
