//! The tools and prompt the MCP conformance suite's SEP-2322 server scenarios
//! (and `server-stateless`) call, written with the mrtr-guard runtime.
//!
//! `cargo run -p mrtr-guard-examples --bin conformance_server -- --port 3917`
//! then `npx @modelcontextprotocol/conformance@0.2.0-alpha.12 server --url
//! http://127.0.0.1:3917/mcp --scenario input-required-result-basic-elicitation`
//! (`scripts/interop` runs them all).
//!
//! The suite sends no credentials, so the codec is built with
//! `allow_anonymous()`: every state here belongs to whoever holds it. One tool,
//! `test_input_required_result_elicitation`, accepts unsolicited answers
//! (`Round::form_unsolicited`) because the `ignore-extra-params` scenario sends
//! a valid answer without any state and expects a result; nothing else does.

#![allow(
    deprecated,
    reason = "sampling and roots are deprecated by SEP-2577, still functional"
)]

use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use mrtr_guard::rmcp::{
    McpServer, RmcpFlow, TaskSupport, error_data, prompt_response, tool_response,
};
use mrtr_guard::{Flow, KeyRing, Reply, RpcError, StateCodec, Stop};
use mrtr_guard_examples::conformance_forms::{
    COLOR, CONFIRM, CONFIRM_DELETE, CONTEXT, NAME, PARTIAL, VALUE, capital,
};
use mrtr_guard_examples::serve;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListToolsResult,
    PaginatedRequestParams, Prompt, PromptMessage, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::json;

/// The Tasks extension's fixtures (the `tasks-*` scenarios), and whether each
/// runs as a task.
const TASK_TOOLS: [(&str, Option<TaskSupport>); 7] = [
    ("greet", None),
    ("slow_compute", Some(TaskSupport::Optional)),
    ("failing_job", Some(TaskSupport::Required)),
    ("protocol_error_job", Some(TaskSupport::Optional)),
    ("confirm_delete", Some(TaskSupport::Optional)),
    ("multi_input", Some(TaskSupport::Optional)),
    ("test_tool_with_task", Some(TaskSupport::Optional)),
];

const TOOLS: [&str; 11] = [
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
    "test_missing_capability",
    "test_streaming_elicitation",
    "test_logging_tool",
];

const PROMPT: &str = "test_input_required_result_prompt";

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

#[derive(Clone)]
struct Conformance {
    flow: RmcpFlow,
}

impl Conformance {
    fn tool(round: &mut mrtr_guard::Round<'_>) -> Result<CallToolResult, Stop> {
        match round.target() {
            "test_input_required_result_elicitation" => {
                let name = match round.form_unsolicited("user_name", &NAME) {
                    Reply::Accepted(answers) => answers.str("name")?.to_owned(),
                    Reply::Declined | Reply::Cancelled => return Ok(text("No name given.")),
                    _ => return Err(Stop::Ask),
                };
                Ok(text(format!("Hello, {name}!")))
            }
            "test_input_required_result_sampling" => {
                match round.sample("capital_question", &capital()) {
                    Reply::Accepted(message) => Ok(text(format!(
                        "Sampled: {}",
                        message.text().unwrap_or("(no text)")
                    ))),
                    _ => Err(Stop::Ask),
                }
            }
            "test_input_required_result_list_roots" => match round.roots("client_roots") {
                Reply::Accepted(roots) => Ok(text(format!("{} root(s)", roots.roots.len()))),
                _ => Err(Stop::Ask),
            },
            "test_input_required_result_request_state"
            | "test_input_required_result_tampered_state" => {
                let confirm = round.require("confirm", &CONFIRM)?;
                Ok(text(if confirm.bool("ok")? {
                    "state-ok"
                } else {
                    "state-not-ok"
                }))
            }
            "test_input_required_result_multiple_inputs" => {
                let name = round.form("user_name", &NAME);
                let sampled = round.sample("capital_question", &capital());
                let roots = round.roots("client_roots");
                match (name, sampled, roots) {
                    (Reply::Accepted(name), Reply::Accepted(sampled), Reply::Accepted(roots)) => {
                        Ok(text(format!(
                            "{}; {}; {} root(s)",
                            name.str("name")?,
                            sampled.text().unwrap_or("(no text)"),
                            roots.roots.len()
                        )))
                    }
                    _ => Err(Stop::Ask),
                }
            }
            "test_input_required_result_multi_round" => {
                let name = round.require("step1", &NAME)?;
                let color = round.require("step2", &COLOR)?;
                Ok(text(format!(
                    "{} likes {}.",
                    name.str("name")?,
                    color.str("color")?
                )))
            }
            "test_input_required_result_capabilities" => {
                // Ask only what the client declared; complete once that is in.
                let name = round.form("user_name", &NAME);
                let sampled = round.sample("capital_question", &capital());
                let neither = matches!((&name, &sampled), (Reply::Unsupported, Reply::Unsupported));
                if name.is_asked() || sampled.is_asked() || neither {
                    return Err(Stop::Ask);
                }
                Ok(text("capabilities respected"))
            }
            "test_missing_capability" => match round.sample("sample", &capital()) {
                Reply::Accepted(_) => Ok(text("Required capability declared")),
                _ => Err(Stop::Ask), // unsupported: -32021 naming sampling
            },
            "test_streaming_elicitation" => {
                let value = round.require("streaming_elicitation", &VALUE)?;
                Ok(text(format!("Got {}.", value.str("value")?)))
            }
            "test_logging_tool" => Ok(text("no logs")),
            _ => Err(Stop::Error(RpcError::invalid_params("unknown tool"))),
        }
    }
}

impl Conformance {
    /// The Tasks extension's fixtures, each asking with the schema that
    /// accepts what the suite sends: `None` for another tool.
    async fn task_tool(round: &mut mrtr_guard::Round<'_>) -> Option<Result<CallToolResult, Stop>> {
        let argument = |name: &str| round.arguments().and_then(|a| a.get(name)).cloned();
        Some(match round.target() {
            "greet" => {
                let name = argument("name");
                Ok(text(format!(
                    "Hello, {}!",
                    name.as_ref().and_then(|n| n.as_str()).unwrap_or("World")
                )))
            }
            "slow_compute" => {
                let seconds = argument("seconds").and_then(|s| s.as_f64()).unwrap_or(0.0);
                let label = argument("label");
                let label = label
                    .as_ref()
                    .and_then(|l| l.as_str())
                    .unwrap_or("job")
                    .to_owned();
                async {
                    round.task()?;
                    tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 600.0))).await;
                    Ok(text(format!("Computed {label} in {seconds} s.")))
                }
                .await
            }
            "failing_job" => round
                .task()
                .map(|()| CallToolResult::error(vec![ContentBlock::text("the job failed")])),
            "protocol_error_job" => round.task().and_then(|()| {
                Err(Stop::Error(RpcError::internal_error_because(
                    "protocol_error_job fails by design",
                )))
            }),
            "confirm_delete" => {
                let filename = argument("filename");
                let filename = filename
                    .as_ref()
                    .and_then(|f| f.as_str())
                    .unwrap_or("?")
                    .to_owned();
                round.task().and_then(|()| {
                    let confirm = round.require("confirm", &CONFIRM_DELETE)?;
                    Ok(text(if confirm.bool("confirm")? {
                        format!("Deleted {filename}.")
                    } else {
                        format!("Kept {filename}.")
                    }))
                })
            }
            "multi_input" => round.task().and_then(|()| {
                let first = round.form("first", &PARTIAL);
                let second = round.form("second", &PARTIAL);
                match (first, second) {
                    (Reply::Accepted(first), Reply::Accepted(second)) => Ok(text(format!(
                        "Got {} and {}.",
                        first.str("name")?,
                        second.str("name")?
                    ))),
                    _ => Err(Stop::Ask),
                }
            }),
            "test_tool_with_task" => round.require("user_name", &NAME).and_then(|answers| {
                let name = answers.str("name")?.to_owned();
                round.task()?;
                Ok(text(format!("Hello, {name}! (async)")))
            }),
            _ => return None,
        })
    }
}

impl ServerHandler for Conformance {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(
            "mrtr-guard-conformance",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = Arc::new(match json!({"type": "object", "properties": {}}) {
            serde_json::Value::Object(map) => map,
            _ => serde_json::Map::new(),
        });
        let tools = TOOLS
            .iter()
            .map(|name| Tool::new(*name, "SEP-2322 conformance fixture", schema.clone()));
        let task_tools = TASK_TOOLS.iter().map(|(name, _)| {
            Tool::new(*name, "Tasks extension conformance fixture", schema.clone())
        });
        Ok(ListToolsResult::with_all_items(
            tools.chain(task_tools).collect(),
        ))
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut round = self.flow.tool_round(&params, &cx).await?;
        let result = match Self::task_tool(&mut round).await {
            Some(result) => result,
            None => Self::tool(&mut round),
        };
        tool_response(round, result)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            PROMPT,
            Some("SEP-2322 prompts/get fixture"),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if params.name != PROMPT {
            return Err(error_data(RpcError::invalid_params("unknown prompt")));
        }
        let mut round = self.flow.prompt_round(&params, &cx).await?;
        let result = round.require("user_context", &CONTEXT).and_then(|answers| {
            let context = answers.str("context")?;
            Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                format!("Context: {context}"),
            )]))
        });
        prompt_response(round, result)
    }
}

/// The MCP conformance suite's fixture: the tools and prompt of its
/// SEP-2322 and tasks-* server scenarios, at http://127.0.0.1:PORT/mcp.
#[derive(Parser)]
#[command(name = "conformance_server", after_help = ENVIRONMENT)]
struct Args {
    /// The port to listen on, on 127.0.0.1 [default: PORT, else 3917]
    #[arg(long)]
    port: Option<u16>,
}

/// What `--help` says of the environment.
const ENVIRONMENT: &str = "\
Environment:
  MRTR_GUARD_KEY  the master key, base64 (default: an ephemeral key)";

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    serve::exit_code(run(args).await)
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let port = serve::port(args.port, 3917)?;
    let audience = format!("http://127.0.0.1:{port}/mcp");
    let codec = StateCodec::builder(audience, KeyRing::new(serve::master_key()?))
        .allow_anonymous()
        .build()?;
    let builder = TASK_TOOLS
        .iter()
        .filter_map(|(name, support)| Some((*name, (*support)?)))
        .fold(
            McpServer::builder(Flow::new(codec)).anonymous(),
            |builder, (name, support)| builder.task_tool(name, support),
        );
    let service = builder.build(|flow| Conformance { flow })?;
    serve::serve(port, service).await
}
