//! The README's demo: two multi-round tools on an `rmcp` Streamable HTTP
//! server, written once with the mrtr-guard runtime.
//!
//! ```text
//! cargo run --features examples --example signup_server            # port 8080
//! cargo run --features examples --example signup_server -- --port 9000
//! ```
//!
//! - `ShipOrder` asks one form (`trackingNumber`) and ships, or reports the
//!   shipment cancelled on a decline or cancel.
//! - `signup` asks the account (email, plan); for the team plan the team
//!   (size 2..500, one to three roles); then a confirmation; and summarises
//!   the account. A decline at any round ends the flow without error.
//!
//! <div class="warning">Demo-only authentication: the principal is whatever
//! follows `Bearer ` in the `Authorization` header, unverified. A real server
//! derives it from a verified credential (an OAuth token's subject).</div>
//!
//! Set `MRTR_GUARD_KEY` to a base64 master key of at least 32 bytes to keep
//! states valid across restarts and instances.

#[path = "support/mod.rs"]
mod support;

use std::sync::{Arc, LazyLock};

use mrtr_guard::rmcp::{RmcpFlow, custom_request_error, error_data, tool_response};
use mrtr_guard::{Field, Flow, Form, FormError, KeyRing, Reply, Round, RpcError, StateCodec, Stop};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value, json};

/// The forms, built once.
struct Forms {
    ship: Form,
    account: Form,
    team: Form,
    confirm: Form,
}

fn forms() -> Result<Forms, FormError> {
    Ok(Forms {
        ship: Form::builder("Where should we ship the order? Enter the tracking number.")
            .field(
                Field::string("trackingNumber")
                    .min_length(1)
                    .max_length(64)
                    .required(),
            )
            .build()?,
        account: Form::builder("Create your account")
            .field(Field::email("email").required())
            .field(
                Field::choice("plan")
                    .titled_option("pro", "Pro")
                    .titled_option("team", "Team")
                    .required(),
            )
            .build()?,
        team: Form::builder("Tell us about your team")
            .field(
                Field::integer("teamSize")
                    .minimum(2)
                    .maximum(500)
                    .required(),
            )
            .field(
                Field::multi_choice("roles")
                    .options(["admin", "billing", "member"])
                    .min_items(1)
                    .max_items(3)
                    .required(),
            )
            .build()?,
        confirm: Form::builder("Create this account?").build()?,
    })
}

static FORMS: LazyLock<Result<Forms, FormError>> = LazyLock::new(forms);

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

/// `ShipOrder`: every outcome handled here, so `form` rather than `require`.
fn ship_order(round: &mut Round<'_>, forms: &Forms) -> Result<CallToolResult, Stop> {
    match round.form("ship", &forms.ship) {
        Reply::Accepted(answers) => Ok(text(format!(
            "Shipped as {}.",
            answers.str("trackingNumber")?
        ))),
        Reply::Declined | Reply::Cancelled => Ok(text("Shipping cancelled.")),
        _ => Err(Stop::Ask),
    }
}

/// `signup`: reads top-down; each `require` either has its answer or stops
/// the round with an ask.
fn signup(round: &mut Round<'_>, forms: &Forms) -> Result<CallToolResult, Stop> {
    let account = round.require("account", &forms.account)?;
    let email = account.str("email")?;
    let plan = account.str("plan")?;
    let team = match plan {
        "team" => {
            let team = round.require("team", &forms.team)?;
            Some((team.i64("teamSize")?, team.strings("roles")?.join(", ")))
        }
        _ => None,
    };
    round.require("confirm", &forms.confirm)?;
    Ok(text(match team {
        Some((size, roles)) => {
            format!("Account created for {email}: Team plan, {size} seats, roles: {roles}.")
        }
        None => format!("Account created for {email}: Pro plan."),
    }))
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

#[derive(Clone)]
struct Signup {
    flow: RmcpFlow,
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
                no_arguments,
            ),
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
        let mut round = self.flow.tool_round(&params, &cx)?;
        let result = match round.target() {
            "ShipOrder" => ship_order(&mut round, forms),
            "signup" => signup(&mut round, forms).or_else(|stop| match stop {
                Stop::Declined { .. } | Stop::Cancelled { .. } => {
                    Ok(text("Signup cancelled; no account was created."))
                }
                other => Err(other),
            }),
            _ => Err(Stop::Failed(RpcError::invalid_params("unknown tool"))),
        };
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

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if let Err(error) = FORMS.as_ref() {
        return Err(format!("a form does not build: {error}").into());
    }
    let port = support::port(8080)?;
    let audience = format!("http://127.0.0.1:{port}/mcp");
    let codec = StateCodec::builder(audience, KeyRing::new(support::master_key()?)).build()?;
    let flow = RmcpFlow::new(Flow::new(codec), bearer);
    support::serve(port, Signup { flow }).await
}
