//! The demo's `rmcp` server handler: `examples/signup_server.rs` serves it,
//! and `tests/redis_http.rs` runs two of it over one Redis.

use std::sync::{Arc, LazyLock};

use mrtr_guard::rmcp::{RmcpFlow, custom_request_error, error_data, tool_response};
use mrtr_guard::{Flow, FormError, RpcError, StateCodec};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value, json};

use crate::signup_tools::{Forms, forms, run_tool};

static FORMS: LazyLock<Result<Forms, FormError>> = LazyLock::new(forms);

/// Checks that the demo's forms build (they are built once, on first use).
pub(crate) fn check_forms() -> Result<(), FormError> {
    FORMS.as_ref().map(|_| ()).map_err(Clone::clone)
}

fn text(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// Demo-only authentication: the bearer token is the user name.
fn bearer(parts: &http::request::Parts) -> Option<String> {
    let value = parts
        .headers
        .get(http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let user = value.strip_prefix("Bearer ")?.trim();
    (!user.is_empty()).then(|| user.to_owned())
}

/// The demo server's handler: `ShipOrder` and `signup` over `codec`, and
/// `ping`.
#[derive(Clone)]
pub(crate) struct Signup {
    flow: RmcpFlow,
}

impl Signup {
    pub(crate) fn new(codec: StateCodec) -> Self {
        Self {
            flow: RmcpFlow::new(Flow::new(codec), bearer),
        }
    }
}

impl ServerHandler for Signup {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("mrtr-guard-signup", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let no_arguments: Arc<Map<String, Value>> =
            Arc::new(match json!({"type": "object", "properties": {}}) {
                Value::Object(map) => map,
                _ => Map::new(),
            });
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new(
                "ShipOrder",
                "Ship an order: asks for the tracking number.",
                no_arguments.clone(),
            ),
            Tool::new(
                "signup",
                "Create an account over a few short forms.",
                no_arguments.clone(),
            ),
            Tool::new("ping", "Answers pong at once: no form.", no_arguments),
        ]))
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Ok(forms) = FORMS.as_ref() else {
            return Err(error_data(RpcError::internal_error()));
        };
        let authenticated = cx
            .extensions
            .get::<http::request::Parts>()
            .and_then(bearer)
            .is_some();
        if !authenticated {
            return Err(error_data(RpcError::invalid_request(
                "authentication required: send Authorization: Bearer <user> (demo only)",
            )));
        }
        // A plain tool, no round: scripts/loadbench's baseline.
        if params.name == "ping" {
            return Ok(CallToolResponse::Complete(text("pong".to_owned())));
        }
        let mut round = self.flow.tool_round(&params, &cx).await?;
        let result = run_tool(&mut round, forms).map(text);
        tool_response(round, result)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _cx: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(custom_request_error(&request))
    }
}
