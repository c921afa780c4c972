//! The server `scripts/loadbench` measures (bench only, not the demo): one
//! `rmcp` handler behind `McpServer` (stateless, which mounts `ScreenLayer`),
//! serving in one process
//!
//! - `ping`: a tool with no round, the baseline;
//! - `ShipOrder`: the README's tool on mrtr-guard, sealed states;
//! - `ShipOrderSigned`: the same on a signed codec;
//! - `ShipOrderRedis`: the same, sealed, with the Redis replay guard
//!   `MRTR_GUARD_REDIS_URL` names (built with `--features redis`; without
//!   the variable the tool answers that it has no guard);
//! - `ShipOrderRmcp`: the same tool on `rmcp`'s own `request-state` feature
//!   (`RequestStateCodec`, as `examples/tests/demo/rmcp_adapter/macros.rs` writes it);
//! - `ParkTask`: a task tool (`TaskSupport::Required`) that begins its task
//!   at once and parks one question (`go`, one boolean) on it: the task
//!   waits at `input_required` for `tasks/update`, then completes. Its tasks
//!   live in the server's memory at `/mcp`, and, where
//!   `MRTR_GUARD_REDIS_URL` is set, in Redis at `/redis/mcp` (the same
//!   handler on a second `McpServer`, whose task store is Redis);
//! - `StepTask`: `ParkTask` with one step (`Round::step`) before its
//!   question: the run that `tasks/update` resumes reads the step's result
//!   from the task's journal instead of doing it again.
//!
//! ```text
//! cargo run --release -p mrtr-guard-examples --bin loadbench_server -- --port 9000
//! cargo run --release -p mrtr-guard-examples --bin loadbench_server -- --port 9000 --bare-port 9001
//! ```
//!
//! `--bare-port PORT` also serves the same handler, in the same process,
//! at `http://127.0.0.1:PORT/mcp` on bare `rmcp`: its stateless Streamable
//! HTTP service alone, as an `rmcp` server without mrtr-guard mounts it (no
//! `McpServer`, no `ScreenLayer`, no tasks). There `ping` and
//! `ShipOrderRmcp` work as on `/mcp` (one `rmcp` codec serves both ports);
//! the mrtr-guard tools refuse every call (their rounds need the layer,
//! which keeps the arguments they bind). Bench only: a real server keeps
//! the layer.
//! The task caps and byte budgets are raised for the bench, and a task lives a minute, or
//! `--task-ttl SECONDS` (`scripts/loadbench` sets it from its workloads'
//! length), so that the tasks one pass mints are gone by the next.
//!
//! `MRTR_GUARD_KEY` (base64) is the master key of both mrtr-guard codecs,
//! `MRTR_GUARD_AUDIENCE` is the URL states are bound to
//! (default `http://127.0.0.1:PORT/mcp`). The three `ShipOrder`s ask the same
//! form (`trackingNumber`, 1 to 64 characters) with the same message.

use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use mrtr_guard::rmcp::{
    McpServer, McpServerBuilder, RmcpFlow, TaskSupport, ToolCall, ToolResponse, tool_response,
};
use mrtr_guard::state::CodecBuilder;
use mrtr_guard::{Field, Flow, Form, FormFields, KeyRing, Mode, Round, StateCodec, Stop};
use mrtr_guard_examples::serve;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, InputRequiredResult,
    RequestStateCodec, SealOptions, ServerCapabilities, ServerConfig,
};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;

const MESSAGE: &str = "Where should we ship the order?";

/// Where the tasks kept in Redis are served.
const REDIS_PATH: &str = "/redis/mcp";

/// The tasks a store holds, for one principal and in all: far more than a
/// pass mints.
const TASKS: usize = 1_000_000;

/// The bytes those tasks may take, for one principal and in all: room for
/// `TASKS` tasks of 64 KiB. The default (4 MiB a principal) holds about
/// 2,500 of the bench's tasks, all one anonymous principal's: a pass
/// mints tens of thousands.
const TASK_BYTES: usize = TASKS * 64 * 1024;

/// The form, on mrtr-guard.
#[derive(Deserialize, FormFields)]
#[serde(rename_all = "camelCase")]
struct Shipping {
    #[form(min_length = 1, max_length = 64)]
    tracking_number: String,
}

/// The form's answer, on `rmcp` (which does not check it).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Tracking {
    tracking_number: String,
}

#[derive(Clone)]
struct Bench {
    sealed: RmcpFlow,
    signed: RmcpFlow,
    redis: Option<RmcpFlow>,
    ship: Form,
    go: Form,
    rmcp: Arc<RequestStateCodec>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Bench {
    /// Answers pong at once: no form, no round.
    #[tool]
    async fn ping(&self) -> ToolResponse {
        let pong = CallToolResult::success(vec![ContentBlock::text("pong")]);
        Ok(CallToolResponse::Complete(pong))
    }

    /// Ship an order: asks for the tracking number (sealed states).
    #[tool(name = "ShipOrder")]
    async fn ship_order(&self, call: ToolCall) -> ToolResponse {
        ship(&self.sealed, &self.ship, call).await
    }

    /// Ship an order: asks for the tracking number (signed states).
    #[tool(name = "ShipOrderSigned")]
    async fn ship_order_signed(&self, call: ToolCall) -> ToolResponse {
        ship(&self.signed, &self.ship, call).await
    }

    /// Ship an order: asks for the tracking number (sealed states, each
    /// opened once: the Redis replay guard).
    #[tool(name = "ShipOrderRedis")]
    async fn ship_order_redis(&self, call: ToolCall) -> ToolResponse {
        let Some(flow) = &self.redis else {
            let error = "ShipOrderRedis needs MRTR_GUARD_REDIS_URL".to_owned();
            return Err(ErrorData::invalid_request(error, None));
        };
        ship(flow, &self.ship, call).await
    }

    /// Park a task: begins a task at once and asks, inside it, whether to
    /// go on; completes with the answer.
    #[tool(name = "ParkTask")]
    async fn park_task(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.sealed.round(call).await?;
        let result = park(&mut round, &self.go);
        tool_response(round, result)
    }

    /// Park a task after a step: begins a task, does one step (journaled),
    /// asks inside it whether to go on; completes with the answer.
    #[tool(name = "StepTask")]
    async fn step_task(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.sealed.round(call).await?;
        let result = step_then_park(&mut round, &self.go).await;
        tool_response(round, result)
    }

    /// Ship an order: asks for the tracking number (`rmcp`'s `request-state`).
    #[tool(name = "ShipOrderRmcp")]
    async fn ship_order_rmcp(
        &self,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let bad = |what: &str| ErrorData::invalid_params(what.to_owned(), None);
        let Some(state) = state else {
            let schema = ElicitationSchema::builder()
                .required_string_with("trackingNumber", |s| s.length(1, 64))
                .build()
                .map_err(|e| ErrorData::internal_error(e, None))?;
            let ask = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: MESSAGE.into(),
                requested_schema: schema,
            });
            let options = SealOptions::new()
                .associated_data(b"ShipOrderRmcp")
                .ttl(Duration::from_secs(600));
            let state = self.rmcp.seal_with(b"ship", &options);
            let asks = [("ship".to_owned(), InputRequest::Elicitation(ask))].into();
            return Ok(InputRequiredResult::new(Some(asks), Some(state)).into());
        };
        let opened = self.rmcp.open_with(&state, b"ShipOrderRmcp");
        opened.map_err(|_| bad("invalid requestState"))?;
        let answer = responses.and_then(|r| r.get("ship").cloned());
        let answer = answer.ok_or_else(|| bad("no answer"))?;
        let answer: ElicitResult = serde_json::from_value(answer).map_err(|_| bad("bad answer"))?;
        let text = match (answer.action, answer.content) {
            (ElicitationAction::Accept, Some(content)) => {
                let tracking: Tracking =
                    serde_json::from_value(content).map_err(|_| bad("bad answer"))?;
                format!("Shipped as {}.", tracking.tracking_number)
            }
            _ => "Shipping cancelled.".to_owned(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// The README's `ShipOrder` round on `flow`.
async fn ship(flow: &RmcpFlow, form: &Form, call: ToolCall) -> ToolResponse {
    let mut round = flow.round(call).await?;
    let answers = round.require("ship", form);
    let shipped = answers.and_then(|a| Ok(a.bind::<Shipping>()?.tracking_number));
    tool_response(round, shipped.map(|number| format!("Shipped as {number}.")))
}

/// `ParkTask`'s round: the task, then the one question parked on it.
fn park(round: &mut Round<'_>, go: &Form) -> Result<String, Stop> {
    round.task()?;
    let went = round.require("go", go)?.bool("go")?;
    Ok(if went { "Went on." } else { "Stopped." }.to_owned())
}

/// `StepTask`'s round: the task, one step, then `ParkTask`'s question.
async fn step_then_park(round: &mut Round<'_>, go: &Form) -> Result<String, Stop> {
    round.task()?;
    let rows: u64 = round.step("count", async { 12 }).await?;
    let went = round.require("go", go)?.bool("go")?;
    Ok(if went {
        format!("Went on after {rows}.")
    } else {
        "Stopped.".to_owned()
    })
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bench {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// The server scripts/loadbench measures (bench only, not the demo): ping,
/// the README's ShipOrder (sealed, signed, with a Redis replay guard, on
/// rmcp's own request-state) and a task tool, at http://127.0.0.1:PORT/mcp.
#[derive(Parser)]
#[command(name = "loadbench_server", after_help = ENVIRONMENT)]
struct Args {
    /// The port to listen on, on 127.0.0.1 [default: PORT, else 8080]
    #[arg(long)]
    port: Option<u16>,
    /// Also serve the same handler on bare rmcp at http://127.0.0.1:BARE_PORT/mcp
    #[arg(long)]
    bare_port: Option<u16>,
    /// How long a task lives, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    task_ttl: u64,
}

/// What `--help` says of the environment.
const ENVIRONMENT: &str = "\
Environment:
  MRTR_GUARD_KEY        the master key of both codecs, base64 (default: an ephemeral key)
  MRTR_GUARD_AUDIENCE   the URL states are bound to (default: http://127.0.0.1:PORT/mcp)
  MRTR_GUARD_REDIS_URL  the Redis replay guard and task store (built with --features redis)
  MRTR_GUARD_REDIS_CA   a PEM CA certificate to trust for rediss://";

// One CPU (scripts/loadbench pins it): tokio's current-thread runtime, which
// runs the ready tasks in turn, so that the Redis guard's connection driver
// sends the keys of concurrent calls together.
#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    serve::exit_code(run(args).await)
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let port = serve::port(args.port, 8080)?;
    let audience = std::env::var("MRTR_GUARD_AUDIENCE")
        .unwrap_or_else(|_| format!("http://127.0.0.1:{port}/mcp"));
    let codec = |mode| -> Result<CodecBuilder, Box<dyn std::error::Error>> {
        let key = KeyRing::new(serve::master_key()?);
        Ok(StateCodec::builder(audience.clone(), key).mode(mode))
    };
    let sealed = Flow::new(serve::build_codec(codec(Mode::Sealed)?.allow_anonymous())?);
    let signed = RmcpFlow::anonymous(Flow::new(serve::build_codec(
        codec(Mode::Signed)?.allow_anonymous(),
    )?));
    let redis = match std::env::var_os("MRTR_GUARD_REDIS_URL") {
        Some(_) => {
            let guarded = serve::with_replay_guard(codec(Mode::Sealed)?).await?;
            Some(RmcpFlow::anonymous(Flow::new(serve::build_codec(
                guarded.allow_anonymous(),
            )?)))
        }
        None => None,
    };
    let ship = Form::of::<Shipping>(MESSAGE)
        .build()
        .map_err(|error| format!("the form does not build: {error}"))?;
    let go = Form::builder("Go on?")
        .field(Field::boolean("go").required())
        .build()
        .map_err(|error| format!("the form does not build: {error}"))?;
    let rmcp = Arc::new(RequestStateCodec::try_new(rand_key()?)?);
    let bench = |sealed| Bench {
        sealed,
        signed: signed.clone(),
        redis: redis.clone(),
        ship: ship.clone(),
        go: go.clone(),
        rmcp: Arc::clone(&rmcp),
        tool_router: Bench::tool_router(),
    };
    let ttl = Duration::from_secs(args.task_ttl);
    let tasks = |builder: McpServerBuilder| {
        builder
            .anonymous()
            .legacy(false)
            .task_tool("ParkTask", TaskSupport::Required)
            .task_tool("StepTask", TaskSupport::Required)
            .task_limits(TASKS, TASKS)
            .task_budget(TASK_BYTES, TASK_BYTES)
            .task_ttl(ttl)
    };
    let mut handler = None;
    let service = tasks(McpServer::builder(sealed)).build(|flow| {
        let screened = bench(flow);
        handler = Some(screened.clone());
        screened
    })?;
    let mut app = serve::router(service);
    if let Some(store) = serve::task_store().await? {
        let flow = Flow::new(serve::build_codec(codec(Mode::Sealed)?.allow_anonymous())?);
        let service = tasks(McpServer::builder(flow)).task_store(store);
        app = app.route_service(REDIS_PATH, service.build(bench)?);
    }
    match args.bare_port {
        Some(bare) => {
            let handler = handler.ok_or("McpServer did not build the handler")?;
            tokio::try_join!(serve::serve_app(port, app), serve_bare(bare, handler))?;
            Ok(())
        }
        None => serve::serve_app(port, app).await,
    }
}

/// Serves `handler` on bare `rmcp` at `http://127.0.0.1:{port}/mcp`: its
/// stateless Streamable HTTP service with JSON responses, as `McpServer`
/// configures it, without `McpServer` around it.
async fn serve_bare(port: u16, handler: Bench) -> Result<(), Box<dyn std::error::Error>> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    serve::serve_app(port, axum::Router::new().route_service("/mcp", service)).await
}

/// A fresh key for `rmcp`'s codec (its states need not outlive the process).
fn rand_key() -> std::io::Result<[u8; 32]> {
    let mut key = [0; 32];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut key)?;
    Ok(key)
}
