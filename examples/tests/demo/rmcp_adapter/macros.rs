//! Multi-round tools written with `rmcp`'s macros (`#[tool_router]`,
//! `#[tool]`, `Parameters<T>`), in process through `rmcp`'s stateless
//! `StreamableHttpService` behind `ScreenLayer`, no network:
//!
//! - the README's `ShipOrder` (`readme.rs` checks the snippet against this
//!   file), and the README's mount;
//! - a tool with arguments, its state bound to the raw arguments;
//! - docs/RMCP.md's comparison: the same tool on `rmcp`'s own `request-state`
//!   feature, and what it lets through.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use mrtr_guard::rmcp::{BoundArgs, McpServer, RmcpFlow, ToolCall, ToolResponse, tool_response};
use mrtr_guard::tower::ScreenLayer;
use mrtr_guard::{Flow, Form, FormFields, KeyRing, MasterKey, StateCodec};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, InputRequiredResult,
    RequestStateCodec, SealOptions, ServerCapabilities, ServerConfig,
};
use rmcp::schemars::JsonSchema;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};
use tower_layer::Layer;
use tower_service::Service;

use super::readme::{counted, region};

// ---- the README's ShipOrder, on mrtr-guard ------------------------------------------------

// README: form (begin)
#[derive(Deserialize, FormFields)]
struct Shipping {
    #[form(min_length = 1, max_length = 64)]
    tracking_number: String,
}
// README: form (end)

/// An order's arguments (the tool with arguments).
#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(rename_all = "camelCase")]
struct Order {
    order_id: String,
}

#[derive(Clone)]
struct Shop {
    flow: RmcpFlow,
    // README: field (begin)
    ship: Form,
    // README: field (end)
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Shop {
    fn new(codec: StateCodec) -> Result<Self, mrtr_guard::form::FormError> {
        Ok(Self {
            flow: RmcpFlow::anonymous(Flow::new(codec)),
            // README: init (begin)
            ship: Form::of::<Shipping>("Where should we ship the order?").build()?,
            // README: init (end)
            tool_router: Self::tool_router(),
        })
    }

    /// A shop over the flow `McpServer` made.
    fn with(flow: RmcpFlow, ship: Form) -> Self {
        Self {
            flow,
            ship,
            tool_router: Self::tool_router(),
        }
    }

    // README: tool (begin)
    /// Ship an order: asks for the tracking number.
    #[tool(name = "ShipOrder")]
    async fn ship_order(&self, call: ToolCall) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let answers = round.require("ship", &self.ship);
        let shipped = answers.and_then(|a| Ok(a.bind::<Shipping>()?.tracking_number));
        tool_response(round, shipped.map(|number| format!("Shipped as {number}.")))
    }
    // README: tool (end)

    /// Ship the order `orderId`: asks for the tracking number. (`Parameters`
    /// before `ToolCall` on purpose: the binding does not depend on it.)
    #[tool(name = "ShipOrderById")]
    async fn ship_order_by_id(
        &self,
        Parameters(order): Parameters<BoundArgs<Order>>,
        call: ToolCall,
    ) -> ToolResponse {
        let mut round = self.flow.round_with(call, &order).await?;
        let answers = round.require("ship", &self.ship);
        let shipped = answers.and_then(|a| Ok(a.bind::<Shipping>()?.tracking_number));
        let id = &order.order_id;
        tool_response(
            round,
            shipped.map(|number| format!("Order {id} shipped as {number}.")),
        )
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Shop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

// ---- the same tool on rmcp's own `request-state` feature ----------------------------------

// README: rmcp form (begin)
#[derive(Deserialize)]
struct Tracking {
    tracking_number: String,
}
// README: rmcp form (end)

#[derive(Clone)]
struct RmcpShop {
    codec: Arc<RequestStateCodec>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl RmcpShop {
    fn new() -> Self {
        Self {
            codec: Arc::new(RequestStateCodec::try_new([3; 32]).unwrap()),
            tool_router: Self::tool_router(),
        }
    }

    // README: rmcp tool (begin)
    /// Ship an order: asks for the tracking number.
    #[tool(name = "ShipOrder")]
    async fn ship_order(
        &self,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let bad = |what: &str| ErrorData::invalid_params(what.to_owned(), None);
        let Some(state) = state else {
            let schema = ElicitationSchema::builder()
                .required_string_with("tracking_number", |s| s.length(1, 64))
                .build()
                .map_err(|e| ErrorData::internal_error(e, None))?;
            let ask = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: "Where should we ship the order?".into(),
                requested_schema: schema,
            });
            let options = SealOptions::new()
                .associated_data(b"ShipOrder")
                .ttl(Duration::from_secs(600));
            let state = self.codec.seal_with(b"ship", &options);
            let asks = [("ship".to_owned(), InputRequest::Elicitation(ask))].into();
            return Ok(InputRequiredResult::new(Some(asks), Some(state)).into());
        };
        let opened = self.codec.open_with(&state, b"ShipOrder");
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
    // README: rmcp tool (end)
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpShop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

// ---- the client ---------------------------------------------------------------------------

/// `handler` as the example servers serve it: stateless, JSON, screened.
async fn post<H>(handler: H, method: &str, params: Value) -> (StatusCode, Value)
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let mcp = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let mut service = ScreenLayer::new().layer(mcp);
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let name = params["name"].as_str().unwrap_or_default().to_owned();
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": method, "params": params});
    let mut request = Request::post("http://127.0.0.1/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if !name.is_empty() {
        request = request.header("mcp-name", name);
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    std::future::poll_fn(|cx| Service::<Request<Full<Bytes>>>::poll_ready(&mut service, cx))
        .await
        .unwrap();
    let response = service.call(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let reply = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("not JSON ({status}): {}", String::from_utf8_lossy(&bytes)));
    (status, reply)
}

fn shop() -> Shop {
    let key = MasterKey::from_bytes(&[4; 32]).unwrap();
    let codec = StateCodec::builder("http://127.0.0.1/mcp", KeyRing::new(key))
        .allow_anonymous()
        .build()
        .unwrap();
    Shop::new(codec).unwrap()
}

fn answer(tracking_number: &str) -> Value {
    json!({"ship": {"action": "accept", "content": {"tracking_number": tracking_number}}})
}

/// Round 1 of `tool` with `arguments`, then the retry with `responses`
/// and the state round 1 returned (or `state` instead, when given).
async fn two_rounds<H>(
    handler: H,
    tool: &str,
    arguments: Value,
    retry: Value,
    responses: Value,
) -> Value
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let (status, first) = post(
        handler.clone(),
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"].clone();
    let params = json!({"name": tool, "arguments": retry,
        "inputResponses": responses, "requestState": state});
    post(handler, "tools/call", params).await.1
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{reply}"))
}

// ---- mrtr-guard through the macros --------------------------------------------------------

#[tokio::test]
async fn the_readme_ship_order_asks_then_ships() {
    let (_, first) = post(
        shop(),
        "tools/call",
        json!({"name": "ShipOrder", "arguments": {}}),
    )
    .await;
    let ask = &first["result"]["inputRequests"]["ship"]["params"];
    assert_eq!(ask["message"], "Where should we ship the order?");
    assert_eq!(
        ask["requestedSchema"]["required"],
        json!(["tracking_number"])
    );
    let done = two_rounds(shop(), "ShipOrder", json!({}), json!({}), answer("1Z999")).await;
    assert_eq!(text(&done), "Shipped as 1Z999.");
    // An answer the form refuses is asked again, never shipped.
    let again = two_rounds(shop(), "ShipOrder", json!({}), json!({}), answer("")).await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
}

#[tokio::test]
async fn tools_and_input_schemas_come_from_the_router_and_schemars() {
    let (_, listed) = post(shop(), "tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ShipOrder", "ShipOrderById"]);
    assert_eq!(
        tools[0]["description"],
        "Ship an order: asks for the tracking number."
    );
    let schema = &tools[1]["inputSchema"];
    assert_eq!(
        schema["properties"]["orderId"]["type"], "string",
        "{schema}"
    );
    assert_eq!(schema["required"], json!(["orderId"]));
}

#[tokio::test]
async fn a_state_is_bound_to_the_raw_arguments() {
    let a1 = json!({"orderId": "A-1"});
    let done = two_rounds(
        shop(),
        "ShipOrderById",
        a1.clone(),
        a1.clone(),
        answer("1Z"),
    )
    .await;
    assert_eq!(text(&done), "Order A-1 shipped as 1Z.");
    // The state of order A-1, presented with order B-2: refused.
    let b2 = json!({"orderId": "B-2"});
    let moved = two_rounds(shop(), "ShipOrderById", a1.clone(), b2, answer("1Z")).await;
    assert_eq!(moved["error"]["code"], -32602, "{moved}");
    assert_eq!(moved["error"]["message"], "Invalid or expired requestState");
    // A member `T` does not read is still bound: the raw object, not `T`
    // serialized again.
    let extra = json!({"orderId": "A-1", "priority": "overnight"});
    let padded = two_rounds(shop(), "ShipOrderById", a1, extra, answer("1Z")).await;
    assert_eq!(padded["error"]["code"], -32602, "{padded}");
    // Arguments whose one member is `serde_json`'s raw-value token, which
    // `serde_json`'s own `Value` would read as the text inside it (`{}`,
    // what the state is bound to): refused before anything reads them.
    let token = json!({"$serde_json::private::RawValue": "{}"});
    let wrapped = two_rounds(shop(), "ShipOrder", json!({}), token, answer("1Z")).await;
    assert_eq!(wrapped["error"]["code"], -32700, "{wrapped}");
}

// ---- rmcp's own request-state, for comparison ------------------------------------------

#[tokio::test]
async fn the_rmcp_only_version_works_and_lets_through_what_mrtr_guard_refuses() {
    let done = two_rounds(
        RmcpShop::new(),
        "ShipOrder",
        json!({}),
        json!({}),
        answer("1Z999"),
    )
    .await;
    assert_eq!(text(&done), "Shipped as 1Z999.");
    // Its schema says 1..64 characters; nothing checks the answer against it.
    let empty = two_rounds(
        RmcpShop::new(),
        "ShipOrder",
        json!({}),
        json!({}),
        answer(""),
    )
    .await;
    assert_eq!(text(&empty), "Shipped as .");
    // Its state is bound to no arguments unless the code binds them: another
    // order's arguments open it.
    let moved = two_rounds(
        RmcpShop::new(),
        "ShipOrder",
        json!({"orderId": "A-1"}),
        json!({"orderId": "B-2"}),
        answer("1Z"),
    )
    .await;
    assert_eq!(text(&moved), "Shipped as 1Z.");
}

// ---- the README's mount --------------------------------------------------------------

/// Your authentication, for the README's mount: the subject an
/// authentication layer verified and put into the request's extensions.
#[derive(Clone)]
struct Verified(String);

fn your_authentication(parts: &http::request::Parts) -> Option<String> {
    parts
        .extensions
        .get::<Verified>()
        .map(|subject| subject.0.clone())
}

/// The README's mount (once per server), compiled and built here.
#[test]
fn the_readme_mount_builds_the_server() {
    let key = MasterKey::from_bytes(&[4; 32]).unwrap();
    let codec = StateCodec::builder("http://127.0.0.1/mcp", KeyRing::new(key))
        .build()
        .unwrap();
    let ship = Form::of::<Shipping>("Where should we ship the order?")
        .build()
        .unwrap();
    let mount = move || -> Result<axum::Router, mrtr_guard::rmcp::ServerConfigError> {
        // README: mount (begin)
        let service = McpServer::builder(Flow::new(codec))
            .authenticate(your_authentication)
            .build(|flow| Shop::with(flow, ship))?;
        let app = axum::Router::new().route_service("/mcp", service);
        // README: mount (end)
        Ok(app)
    };
    let _app = mount().unwrap();
    let readme = include_str!("../../../../README.md");
    let source = include_str!("macros.rs");
    let at = readme.find("Once per server").unwrap();
    let rest = &readme[at..];
    let start = rest.find("```rust,ignore\n").unwrap() + "```rust,ignore\n".len();
    let stop = start + rest[start..].find("\n```\n").unwrap();
    let shown = counted(&rest[start..stop]);
    let run = counted(region(source, "mount"));
    assert!(shown.ends_with(&run), "{shown:#?}\n{run:#?}");
}
