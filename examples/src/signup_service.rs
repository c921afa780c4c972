//! The demo's `rmcp` server: `ShipOrder` and `signup` as `#[tool]`
//! functions of a `#[tool_router]`, their forms from `#[derive(FormFields)]`
//! types. `examples/src/bin/signup_server.rs` serves it, and
//! `examples/tests/demo/over_http/redis.rs` runs two of it over one Redis.
//!
//! The tools' logic is `signup_tools.rs`, free of any transport (the runtime
//! tests drive it in-process); each `#[tool]` opens the round from its
//! [`ToolCall`] and hands it over.

use std::sync::Arc;

use mrtr_guard::connect::Connector;
use mrtr_guard::form::FormError;
use mrtr_guard::rmcp::{
    McpServer, McpServerBuilder, McpService, RmcpFlow, TaskSupport, ToolCall, ToolResponse,
    tool_response,
};
use mrtr_guard::{Flow, Form, FormChoice, FormFields, MasterKey, StateCodec};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, Implementation, ServerCapabilities,
    ServerConfig,
};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::schemars::JsonSchema;

use crate::connect_tools::{import_contacts, weather_report};
use crate::export_tool::{ExportForms, export_forms, export_orders};
use crate::signup_tools::{Forms, run_tool};

// ---- the forms, from types ------------------------------------------------------------
//
// The types declare the forms; the tools read the answers by name
// (`signup_tools.rs` is shared with the runtime tests, which build without
// the `derive` feature), so their fields are not read here.

/// `ShipOrder`'s form.
#[allow(dead_code, reason = "declares a form; see above")]
#[derive(Deserialize, FormFields)]
#[serde(rename_all = "camelCase")]
pub struct Shipping {
    #[form(min_length = 1, max_length = 64)]
    pub tracking_number: String,
}

/// The plans `signup` offers.
#[derive(Deserialize, FormChoice)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    #[form(title = "Pro")]
    Pro,
    #[form(title = "Team")]
    Team,
}

/// `signup`'s first form.
#[allow(dead_code, reason = "declares a form; see above")]
#[derive(Deserialize, FormFields)]
pub struct Account {
    #[form(format = "email")]
    pub email: String,
    pub plan: Plan,
}

/// The roles a team member can hold.
#[derive(Deserialize, FormChoice)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Admin,
    Billing,
    Member,
}

/// `signup`'s team form (team plan only): declared size first, then roles.
#[allow(dead_code, reason = "declares a form; see above")]
#[derive(Deserialize, FormFields)]
#[serde(rename_all = "camelCase")]
pub struct Team {
    #[form(minimum = 2, maximum = 500)]
    pub team_size: u16,
    #[form(min_items = 1, max_items = 3)]
    pub roles: Vec<Role>,
}

/// The demo's forms, from the types above (`signup_tools::forms` builds the
/// same forms field by field, for the tests that run without features).
pub fn forms() -> Result<Forms, FormError> {
    Ok(Forms {
        ship: Form::of::<Shipping>("Where should we ship the order? Enter the tracking number.")
            .build()?,
        account: Form::of::<Account>("Create your account").build()?,
        team: Form::of::<Team>("Tell us about your team").build()?,
        confirm: Form::builder("Create this account?").build()?,
    })
}

// ---- the server ---------------------------------------------------------------------------

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

/// Demo-only browser sign-in for the connect route: the `demo_user`
/// cookie is the user name, as unverified as the bearer token. A real
/// server reads its own session (a signed cookie, its login).
pub fn session_user(parts: &http::request::Parts) -> Option<String> {
    parts
        .headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| pair.trim().strip_prefix("demo_user="))
        .filter(|user| !user.is_empty())
        .map(str::to_owned)
}

/// `export_orders`' arguments.
#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct ExportArgs {
    /// `csv` or `json`.
    pub format: ExportFormat,
}

/// The formats `export_orders` writes.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[schemars(crate = "rmcp::schemars")]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Csv,
    Json,
}

/// `weather_report`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct WeatherArgs {
    /// The city to report on.
    pub city: String,
}

/// The demo server's handler: `ShipOrder`, `signup`, `export_orders`,
/// `weather_report` and `import_contacts` over `codec`, and `ping`.
#[derive(Clone)]
pub struct Signup {
    flow: RmcpFlow,
    forms: Arc<Forms>,
    export: Arc<ExportForms>,
    connector: Arc<Connector>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Signup {
    /// The demo's service over `codec`, mounted with the library's
    /// builder: rmcp's stateless Streamable HTTP behind `ScreenLayer`, the
    /// principal from the bearer token.
    ///
    /// # Errors
    ///
    /// A form that does not build, or a configuration the builder refuses.
    pub fn service(codec: StateCodec) -> Result<McpService<Self>, Box<dyn std::error::Error>> {
        Self::service_with(codec, |builder| builder)
    }

    /// [`service`](Self::service) with settings of the caller's on the
    /// builder (the tests' smaller caps).
    ///
    /// # Errors
    ///
    /// As [`service`](Self::service).
    pub fn service_with(
        codec: StateCodec,
        settings: impl FnOnce(McpServerBuilder) -> McpServerBuilder,
    ) -> Result<McpService<Self>, Box<dyn std::error::Error>> {
        Self::service_over(Flow::new(codec), settings)
    }

    /// [`service_with`](Self::service_with) over a flow of the caller's
    /// (the tests' fixed clock).
    ///
    /// # Errors
    ///
    /// As [`service`](Self::service).
    pub fn service_over(
        flow: Flow,
        settings: impl FnOnce(McpServerBuilder) -> McpServerBuilder,
    ) -> Result<McpService<Self>, Box<dyn std::error::Error>> {
        // A connector of its own, with a key of its own: the caller that
        // serves its route builds it and calls `service_connected`.
        let audience = flow.codec().audience().to_owned();
        let connector =
            crate::connect_tools::connector(&audience, MasterKey::generate()?, None, None, None)?;
        Self::service_connected(flow, connector, settings)
    }

    /// [`service_over`](Self::service_over) whose `weather_report` asks
    /// through `connector` (whose route the caller serves).
    ///
    /// # Errors
    ///
    /// As [`service`](Self::service).
    pub fn service_connected(
        flow: Flow,
        connector: Arc<Connector>,
        settings: impl FnOnce(McpServerBuilder) -> McpServerBuilder,
    ) -> Result<McpService<Self>, Box<dyn std::error::Error>> {
        let forms = Arc::new(forms()?);
        let export = Arc::new(export_forms()?);
        let builder = McpServer::builder(flow)
            .authenticate(bearer)
            .task_tool("export_orders", TaskSupport::Optional)
            .task_tool("weather_report", TaskSupport::Optional);
        let service = settings(builder).build(|flow| Self {
            flow,
            forms,
            export,
            connector,
            tool_router: Self::tool_router(),
        })?;
        Ok(service)
    }

    /// Ship an order: asks for the tracking number.
    #[tool(name = "ShipOrder")]
    async fn ship_order(&self, call: ToolCall) -> ToolResponse {
        self.run(call).await
    }

    /// Create an account over a few short forms.
    #[tool]
    async fn signup(&self, call: ToolCall) -> ToolResponse {
        self.run(call).await
    }

    /// Export the orders of a date range as CSV or JSON: asks for the
    /// range, then runs as a task where the client supports tasks, and asks
    /// whether to include refunds.
    #[tool]
    async fn export_orders(
        &self,
        call: ToolCall,
        Parameters(args): Parameters<ExportArgs>,
    ) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let format = match args.format {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
        };
        let result = export_orders(&mut round, &self.export, format).await;
        tool_response(round, result)
    }

    /// Report the weather in a city, with the user's own weather service
    /// API key: asks the user to connect it on the server's connect page
    /// (a link to open), never in the chat.
    #[tool]
    async fn weather_report(
        &self,
        call: ToolCall,
        Parameters(args): Parameters<WeatherArgs>,
    ) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let result = weather_report(&mut round, &self.connector, &args.city);
        tool_response(round, result)
    }

    /// Import the user's contacts from their contacts provider: asks the
    /// user to connect their provider account (a link to open, signing in
    /// at the provider), never in the chat.
    #[tool]
    async fn import_contacts(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let result = import_contacts(&mut round, &self.connector);
        tool_response(round, result)
    }

    // No form, no round: `scripts/loadbench`'s baseline.
    /// Check that the server is reachable: replies "pong" at once and asks
    /// nothing.
    #[tool]
    async fn ping(&self) -> ToolResponse {
        let pong = CallToolResult::success(vec![ContentBlock::text("pong")]);
        Ok(CallToolResponse::Complete(pong))
    }

    /// One round of the tool `call` names.
    async fn run(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let result = run_tool(&mut round, &self.forms);
        tool_response(round, result)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Signup {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("mrtr-guard-signup", env!("CARGO_PKG_VERSION")),
        )
    }
}
