//! Safe by construction: a server mounted with
//! `mrtr_guard::rmcp::McpServer`, in process (no network), against the
//! wirings that used to lose a guarantee without a word:
//!
//! - the state bound to the raw arguments whatever the order of a tool's
//!   extractors (`Parameters<T>`, `JsonObject`, `BoundArgs<T>`, `ToolCall`):
//!   a state minted for room A never books room B;
//! - a call without a principal: HTTP 401, never `-32603`;
//! - no client string in an error message (an unknown method);
//! - a body that trickles in times out;
//! - configurations that cannot work are refused at start-up.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use mrtr_guard::rmcp::{
    BoundArgs, McpServer, McpServerBuilder, McpService, RmcpFlow, ServerConfigError, ToolCall,
    ToolResponse, tool_response,
};
use mrtr_guard::{Flow, Form, KeyRing, MasterKey, StateCodec};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, JsonObject, MetaObject, ServerCapabilities, ServerConfig,
};
use rmcp::schemars::JsonSchema;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};
use tower_service::Service;

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct Room {
    room: String,
}

/// A booking tool per extractor order; each confirms, then books the room
/// its own extractor read.
#[derive(Clone)]
struct Rooms {
    flow: RmcpFlow,
    tool_router: ToolRouter<Self>,
}

fn confirm() -> Form {
    Form::builder("Book this room?").build().unwrap()
}

impl Rooms {
    async fn book(&self, call: ToolCall, room: &str) -> ToolResponse {
        let mut round = self.flow.round(call).await?;
        let result = round
            .require("confirm", &confirm())
            .map(|_| CallToolResult::success(vec![ContentBlock::text(format!("Booked {room}."))]));
        tool_response(round, result)
    }
}

#[tool_router]
impl Rooms {
    #[tool]
    async fn params_first(
        &self,
        Parameters(room): Parameters<Room>,
        call: ToolCall,
    ) -> ToolResponse {
        self.book(call, &room.room).await
    }

    #[tool]
    async fn call_first(&self, call: ToolCall, Parameters(room): Parameters<Room>) -> ToolResponse {
        self.book(call, &room.room).await
    }

    #[tool]
    async fn object_first(&self, object: JsonObject, call: ToolCall) -> ToolResponse {
        let room = object
            .get("room")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        self.book(call, &room).await
    }

    #[tool]
    async fn bound_first(
        &self,
        Parameters(room): Parameters<BoundArgs<Room>>,
        call: ToolCall,
    ) -> ToolResponse {
        let mut round = self.flow.round_with(call, &room).await?;
        let result = round.require("confirm", &confirm()).map(|_| {
            CallToolResult::success(vec![ContentBlock::text(format!("Booked {}.", room.room))])
        });
        tool_response(round, result)
    }
}

#[tool_router(router = proxy_router)]
impl Rooms {
    /// A proxy: forwards an upstream's result, `_meta` and all.
    #[tool]
    async fn proxy(&self) -> ToolResponse {
        let mut result = CallToolResult::success(vec![ContentBlock::text("upstream")]);
        let meta = json!({"dev.mrtr-guard/propertyOrder": {"x": ["b", "a"]}, "n": 1});
        result.meta = Some(MetaObject(meta.as_object().unwrap().clone()));
        Ok(result.into())
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Rooms {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn codec(anonymous: bool) -> StateCodec {
    let key = MasterKey::from_bytes(&[9; 32]).unwrap();
    let codec = StateCodec::builder("http://127.0.0.1/mcp", KeyRing::new(key));
    if anonymous {
        codec.allow_anonymous().build().unwrap()
    } else {
        codec.build().unwrap()
    }
}

fn rooms() -> McpService<Rooms> {
    McpServer::builder(Flow::new(codec(true)))
        .anonymous()
        .build(|flow| Rooms {
            flow,
            tool_router: Rooms::tool_router() + Rooms::proxy_router(),
        })
        .unwrap()
}

/// `Authorization: Bearer <user>` is the principal.
fn bearer(parts: &http::request::Parts) -> Option<String> {
    let value = parts
        .headers
        .get(http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    Some(value.strip_prefix("Bearer ")?.to_owned())
}

fn request<B>(method: &str, params: &Value, body: B) -> Request<B> {
    let name = params["name"].as_str().unwrap_or_default();
    let mut request = Request::post("http://127.0.0.1/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if !name.is_empty() {
        request = request.header("mcp-name", name);
    }
    request.body(body).unwrap()
}

fn with_meta(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    params
}

/// POSTs one JSON-RPC request to `service` with the headers a 2026-07-28
/// client sends.
async fn post<H>(
    service: &McpService<H>,
    method: &str,
    params: Value,
) -> (StatusCode, http::HeaderMap, Value)
where
    H: ServerHandler + Clone + Send + Sync + 'static,
{
    let params = with_meta(params);
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params});
    let request = request(
        method,
        &params,
        http_body_util::Full::new(Bytes::from(body.to_string())),
    );
    call(service, request).await
}

async fn call<H, B>(
    service: &McpService<H>,
    request: Request<B>,
) -> (StatusCode, http::HeaderMap, Value)
where
    H: ServerHandler + Clone + Send + Sync + 'static,
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>> + std::fmt::Display,
{
    let mut service = service.clone();
    std::future::poll_fn(|cx| Service::<Request<B>>::poll_ready(&mut service, cx))
        .await
        .unwrap();
    let response = service.call(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let reply = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("not JSON ({status}): {}", String::from_utf8_lossy(&bytes)));
    (status, headers, reply)
}

/// Round 1 for room A, then the retry with its state for `retry_room`.
async fn book(tool: &str, retry_room: &str) -> Value {
    let service = rooms();
    let (status, _, first) = post(
        &service,
        "tools/call",
        json!({"name": tool, "arguments": {"room": "A"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(
        first["result"]["resultType"], "input_required",
        "{tool}: {first}"
    );
    let state = first["result"]["requestState"].clone();
    let retry = json!({"name": tool, "arguments": {"room": retry_room},
        "inputResponses": {"confirm": {"action": "accept", "content": {}}},
        "requestState": state});
    post(&service, "tools/call", retry).await.2
}

/// A state minted while the user confirmed room A never books room B, in
/// every order of the extractors: it is bound to the raw arguments the
/// client sent (which `ScreenLayer` kept), never to what `Parameters<T>` or
/// `JsonObject` left in the call (`{}`).
#[tokio::test]
async fn a_state_for_room_a_never_books_room_b_whatever_the_extractor_order() {
    for tool in ["params_first", "call_first", "object_first", "bound_first"] {
        let same = book(tool, "A").await;
        assert_eq!(
            same["result"]["content"][0]["text"], "Booked A.",
            "{tool}: {same}"
        );
        let swapped = book(tool, "B").await;
        assert_eq!(swapped["error"]["code"], -32602, "{tool}: {swapped}");
        assert_eq!(
            swapped["error"]["data"]["reason"], "invalid_request_state",
            "{tool}: {swapped}"
        );
    }
}

/// A call whose principal cannot be found, on a codec that needs one: HTTP
/// 401 with `WWW-Authenticate` and a JSON-RPC error saying authentication is
/// missing, never the bare `-32603`.
#[tokio::test]
async fn a_call_without_a_principal_is_unauthorized() {
    let service = McpServer::builder(Flow::new(codec(false)))
        .authenticate(bearer)
        .build(|flow| Rooms {
            flow,
            tool_router: Rooms::tool_router(),
        })
        .unwrap();
    let params = json!({"name": "params_first", "arguments": {"room": "A"}});
    let (status, headers, reply) = post(&service, "tools/call", params.clone()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{reply}");
    assert!(headers.contains_key(http::header::WWW_AUTHENTICATE));
    assert_eq!(reply["error"]["code"], -32001, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("authentication is missing"),
        "{reply}"
    );
    // With a principal, the round opens.
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": with_meta(params.clone())});
    let mut authed = request(
        "tools/call",
        &params,
        http_body_util::Full::new(Bytes::from(body.to_string())),
    );
    authed
        .headers_mut()
        .insert(http::header::AUTHORIZATION, "Bearer ada".parse().unwrap());
    let (status, _, reply) = call(&service, authed).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
}

/// An unknown method's name is the client's string: it is never echoed,
/// though the handler has no `on_custom_request` (`McpServer` answers it).
#[tokio::test]
async fn an_unknown_method_is_not_echoed() {
    let method = "tools/x-<script>alert(1)</script>";
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": with_meta(json!({}))});
    let request = request(
        method,
        &json!({}),
        http_body_util::Full::new(Bytes::from(body.to_string())),
    );
    let (_, _, reply) = call(&rooms(), request).await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    assert!(!reply.to_string().contains("script"), "{reply}");
}

/// A call whose params `rmcp` cannot parse reaches no tool and is answered
/// `-32602`, not `rmcp`'s `-32601` with the method name, by `McpServer`
/// alone.
#[tokio::test]
async fn a_call_rmcp_cannot_parse_is_invalid_params() {
    let params = json!({"name": "params_first", "arguments": "A"});
    let (_, _, reply) = post(&rooms(), "tools/call", params).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
}

/// A body that sends its first bytes and then nothing.
struct Trickle(bool);

impl Body for Trickle {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.0 {
            Poll::Pending
        } else {
            self.0 = true;
            Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(b"{\"jsonrpc\":")))))
        }
    }
}

/// A body that trickles in is refused after the read timeout (HTTP 408).
#[tokio::test]
async fn a_trickling_body_times_out() {
    let service = McpServer::builder(Flow::new(codec(true)))
        .anonymous()
        .read_timeout(Duration::from_millis(200))
        .build(|flow| Rooms {
            flow,
            tool_router: Rooms::tool_router(),
        })
        .unwrap();
    let params = json!({"name": "params_first"});
    let outcome = tokio::time::timeout(
        Duration::from_secs(5),
        call(&service, request("tools/call", &params, Trickle(false))),
    )
    .await
    .expect("the layer waited for the body forever");
    assert_eq!(outcome.0, StatusCode::REQUEST_TIMEOUT, "{}", outcome.2);
}

/// The builder refuses what cannot work, saying what to do.
#[test]
fn configurations_that_cannot_work_are_refused() {
    let handler = |flow| Rooms {
        flow,
        tool_router: Rooms::tool_router(),
    };
    let refused = |result: Result<McpService<Rooms>, ServerConfigError>| result.err().unwrap();
    assert_eq!(
        refused(McpServer::builder(Flow::new(codec(false))).build(handler)),
        ServerConfigError::NoAuthentication
    );
    assert_eq!(
        refused(
            McpServer::builder(Flow::new(codec(false)))
                .anonymous()
                .build(handler)
        ),
        ServerConfigError::AnonymousCodecRequired
    );
    let zero = StateCodec::builder(
        "http://127.0.0.1/mcp",
        MasterKey::from_bytes(&[0; 32]).unwrap(),
    )
    .allow_anonymous()
    .build()
    .unwrap();
    let error = refused(
        McpServer::builder(Flow::new(zero))
            .anonymous()
            .build(handler),
    );
    assert_eq!(error, ServerConfigError::AllZeroKey);
    let zero_limit = refused(
        McpServer::builder(Flow::new(codec(true)))
            .anonymous()
            .max_response_bytes(0)
            .build(handler),
    );
    assert_eq!(zero_limit, ServerConfigError::ZeroLimit);
    // Task settings that would fail every task: no room, no life, a lease
    // shorter than the runs' renewal.
    let task_settings: [fn(McpServerBuilder) -> McpServerBuilder; 5] = [
        |b| b.task_limits(0, 10),
        |b| b.task_call_bytes(0),
        |b| b.task_ttl(Duration::ZERO),
        |b| b.task_poll_interval(Duration::ZERO),
        |b| b.task_lease(Duration::from_millis(500)),
    ];
    for settings in task_settings {
        let builder = settings(McpServer::builder(Flow::new(codec(true))).anonymous());
        assert_eq!(
            refused(builder.build(handler)),
            ServerConfigError::ZeroLimit
        );
    }
}

/// Each refusal says what to change, word for word.
#[test]
fn server_config_errors_say_what_to_change() {
    let cases = [
        (
            ServerConfigError::NoAuthentication,
            "no authentication: call .authenticate(|parts| ...) with the function that \
             finds the caller's principal, or build the codec with allow_anonymous() \
             for tools that need none",
        ),
        (
            ServerConfigError::AnonymousCodecRequired,
            "anonymous() needs a codec built with allow_anonymous(); or call \
             .authenticate(|parts| ...) instead",
        ),
        (
            ServerConfigError::AllZeroKey,
            "a master key is all zero bytes: generate one (mrtr-guard keygen, or \
             openssl rand -base64 32) and load it with MasterKey::from_base64",
        ),
        (
            ServerConfigError::ZeroLimit,
            "a limit is zero, so every request, session or task would fail; give \
             read_timeout, max_response_bytes, legacy_answer_timeout, max_sessions, \
             max_calls_in_flight, session_idle_timeout, task_limits, task_call_bytes, task_ttl and \
             task_poll_interval values above zero and task_lease one of a second or more, \
             or leave their defaults",
        ),
    ];
    for (error, expected) in cases {
        assert_eq!(error.to_string(), expected);
    }
}

/// A tool whose output carries the order hint's public key (a proxy
/// forwarding an upstream's `_meta`) gets its result through untouched: the
/// layer rewrites only the adapter's own results, whose hint key holds a
/// per-process secret.
#[tokio::test]
async fn a_tool_output_carrying_the_hint_key_is_not_rewritten() {
    let (status, _, reply) = post(&rooms(), "tools/call", json!({"name": "proxy"})).await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(
        reply["result"]["_meta"]["dev.mrtr-guard/propertyOrder"],
        json!({"x": ["b", "a"]}),
        "{reply}"
    );
    assert!(reply["result"]["_meta"]["n"].is_number(), "{reply}");
}

/// Served without `ScreenLayer` (not through `McpServer`), a round opened
/// from a `ToolCall` over HTTP has no raw arguments to bind to: it is
/// refused as a programming error (`-32603`), never bound to `{}`.
#[tokio::test]
async fn a_tool_call_round_without_the_layer_is_refused_not_bound_to_nothing() {
    use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

    let handler = Rooms {
        flow: RmcpFlow::anonymous(Flow::new(codec(true))),
        tool_router: Rooms::tool_router(),
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let mut bare = StreamableHttpService::new(
        move || Ok(handler.clone()),
        std::sync::Arc::new(NeverSessionManager::default()),
        config,
    );
    let params = json!({"name": "params_first", "arguments": {"room": "A"}});
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": with_meta(params.clone())});
    let request = request(
        "tools/call",
        &params,
        http_body_util::Full::new(Bytes::from(body.to_string())),
    );
    let response = bare.call(request).await.unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let reply: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
}
