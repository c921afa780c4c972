//! The `rmcp` adapter on the wire, in process: `rmcp`'s stateless
//! `StreamableHttpService` behind `ScreenLayer`, as the example servers run
//! it, called with HTTP requests and no network.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, LazyLock};

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use mrtr_guard::rmcp::{RmcpFlow, custom_request_error, tool_response};
use mrtr_guard::tower::ScreenLayer;
use mrtr_guard::wire::{ElicitRequest, InputRequest, SamplingRequest};
use mrtr_guard::{Field, Flow, Form, KeyRing, MasterKey, Reply, RpcError, StateCodec, Stop};
use mrtr_guard_examples::serve as support;
use mrtr_guard_examples::{signup_service, signup_tools};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};
use tower_layer::Layer;
use tower_service::Service;

const URL: &str = "https://mcp.example.com/ui/set_api_key";
const URL_MESSAGE: &str = "Please provide your API key to continue.";

static NAME: LazyLock<Form> = LazyLock::new(|| {
    Form::builder("Name?")
        .field(Field::string("name").required())
        .build()
        .unwrap()
});

fn with_context() -> SamplingRequest {
    SamplingRequest::user_text("Summarise this server's files", 50)
        .param("includeContext", json!("thisServer"))
}

fn text(text: &str) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

#[derive(Clone)]
struct Tools {
    flow: RmcpFlow,
}

impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut round = self.flow.tool_round(&params, &cx).await?;
        let result = match round.target() {
            "form" => round.require("name", &NAME).map(|_| text("named")),
            "url" => match round.url("api_key", URL_MESSAGE, URL) {
                Reply::Accepted(()) => Ok(text("consented")),
                _ => Err(Stop::Ask),
            },
            "context" => match round.sample("summary", &with_context()) {
                Reply::Accepted(_) => Ok(text("sampled")),
                _ => Err(Stop::Ask),
            },
            _ => Err(Stop::Error(RpcError::invalid_params("unknown tool"))),
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

/// What the example servers serve: rmcp stateless, JSON responses, screened.
fn server() -> impl Service<
    Request<Full<Bytes>>,
    Response = http::Response<impl http_body::Body<Data = Bytes, Error: std::fmt::Debug>>,
    Error = std::convert::Infallible,
> + Clone {
    let codec = StateCodec::builder(
        "http://127.0.0.1/mcp",
        KeyRing::new(MasterKey::from_bytes(&[5; 32]).unwrap()),
    )
    .allow_anonymous()
    .build()
    .unwrap();
    let tools = Tools {
        flow: RmcpFlow::anonymous(Flow::new(codec)),
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let mcp = StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    ScreenLayer::new().layer(mcp)
}

/// POSTs `body` as a 2026-07-28 client would; the status and the JSON reply.
async fn post(name: &str, body: Vec<u8>) -> (StatusCode, Value) {
    let request = Request::post("http://127.0.0.1/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let mut service = server();
    std::future::poll_fn(|cx| service.poll_ready(cx))
        .await
        .unwrap();
    let response = service.call(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let json = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("not JSON ({status}): {}", String::from_utf8_lossy(&bytes)));
    (status, json)
}

/// A `tools/call` of `name` with these capabilities and extra params.
async fn call(name: &str, caps: Value, extra: Value) -> (StatusCode, Value) {
    let mut params = json!({"name": name, "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps}});
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params});
    post(name, body.to_string().into_bytes()).await
}

fn form_caps() -> Value {
    json!({"elicitation": {}})
}

// ---- null is an invalid value, not absence ------------------------------------------

#[tokio::test]
async fn null_retry_fields_are_invalid_params() {
    // Without the fields the call starts a flow ...
    let (status, fresh) = call("form", form_caps(), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(fresh["result"]["resultType"], "input_required");
    // ... with either of them null it is refused, never started over.
    for (extra, expected) in [
        (
            json!({"requestState": null}),
            RpcError::invalid_request_state(),
        ),
        (
            json!({"inputResponses": null}),
            RpcError::invalid_input_responses(),
        ),
        (
            json!({"inputResponses": {"name": {"action": "accept", "content": {"name": "Ada"}}},
                   "requestState": null}),
            RpcError::invalid_request_state(),
        ),
    ] {
        let (status, reply) = call("form", form_caps(), extra.clone()).await;
        assert_eq!(reply["error"], expected.to_json(), "{extra}");
        assert_eq!(reply["id"], 3, "{extra}");
        assert_eq!(status.as_u16(), expected.http_status(), "{extra}");
        assert!(reply.get("result").is_none(), "{extra}");
    }
}

// ---- the screen in front of rmcp -------------------------------------------------------

#[tokio::test]
async fn rmcp_never_sees_a_duplicate_key() {
    // serde_json would keep the second name; the screen refuses both.
    let body = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"form","name":"url","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let (status, reply) = post("url", body.to_vec()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(reply["error"]["code"], -32700);
    assert!(reply.get("id").is_none(), "{reply}");
}

// ---- URL mode ---------------------------------------------------------------------------

#[tokio::test]
async fn url_ask_goes_out_as_the_2026_spec_shapes_it_and_completes() {
    let caps = json!({"elicitation": {"url": {}}});
    let (status, first) = call("url", caps.clone(), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let ask = &first["result"]["inputRequests"]["api_key"];
    // mode, message and url as asked. 2026-07-28 removed `elicitationId`;
    // rmcp 3.11's type still serializes it, as "" when absent.
    let mut params = ask["params"].as_object().unwrap().clone();
    let id = params.remove("elicitationId");
    assert!(id.is_none() || id == Some(json!("")), "{id:?}");
    let expected = InputRequest::Elicitation(ElicitRequest::url(URL_MESSAGE, URL)).to_json();
    assert_eq!(ask["method"], expected["method"]);
    assert_eq!(Value::Object(params), expected["params"]);
    // Consent on the retry completes the call.
    let state = first["result"]["requestState"].clone();
    let (status, second) = call(
        "url",
        caps,
        json!({"inputResponses": {"api_key": {"action": "accept"}}, "requestState": state}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(second["result"]["content"][0]["text"], "consented");
}

// ---- -32021 names the sub-capability --------------------------------------------------------

#[tokio::test]
async fn missing_capability_names_what_the_ask_needs() {
    for (tool, caps, required) in [
        (
            "context",
            json!({"sampling": {}}),
            json!({"sampling": {"context": {}}}),
        ),
        (
            "form",
            json!({"elicitation": {"url": {}}}),
            json!({"elicitation": {"form": {}}}),
        ),
    ] {
        let (status, reply) = call(tool, caps, json!({})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{tool}");
        assert_eq!(reply["error"]["code"], -32021, "{tool}");
        assert_eq!(
            reply["error"]["data"],
            json!({"requiredCapabilities": required}),
            "{tool}"
        );
    }
}

// ---- declaration order on the wire ------------------------------------------------------

/// The demo server (`examples/src/bin/signup_server.rs`'s router and handler).
fn demo() -> axum::Router {
    let codec = StateCodec::builder(
        "http://127.0.0.1/mcp",
        KeyRing::new(MasterKey::from_bytes(&[6; 32]).unwrap()),
    )
    .build()
    .unwrap();
    support::router(signup_service::Signup::service(codec).unwrap())
}

/// POSTs `params` as a `tools/call` of `tool` by `ada` to the demo; the raw
/// body of the reply.
async fn demo_call(tool: &str, params: Value) -> Bytes {
    let mut params = params;
    params["name"] = json!(tool);
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": form_caps()});
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let request = Request::post("http://127.0.0.1/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("authorization", "Bearer ada")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let mut app = demo();
    let response = app.call(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.into_body().collect().await.unwrap().to_bytes()
}

/// The property names of each asked form's `requestedSchema`, in the order
/// the reply's bytes list them (a `Value` would sort them).
fn property_order(body: &[u8]) -> HashMap<String, Vec<String>> {
    #[derive(Deserialize)]
    struct Reply {
        result: Asked,
    }
    #[derive(Deserialize)]
    struct Asked {
        #[serde(rename = "inputRequests")]
        input_requests: HashMap<String, Ask>,
    }
    #[derive(Deserialize)]
    struct Ask {
        params: Params,
    }
    #[derive(Deserialize)]
    struct Params {
        #[serde(rename = "requestedSchema")]
        requested_schema: Schema,
    }
    #[derive(Deserialize)]
    struct Schema {
        properties: Keys,
    }
    struct Keys(Vec<String>);
    impl<'de> Deserialize<'de> for Keys {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct InOrder;
            impl<'de> Visitor<'de> for InOrder {
                type Value = Keys;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some((key, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
                        keys.push(key);
                    }
                    Ok(Keys(keys))
                }
            }
            deserializer.deserialize_map(InOrder)
        }
    }
    let reply: Reply = serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(body)));
    reply
        .result
        .input_requests
        .into_iter()
        .map(|(key, ask)| (key, ask.params.requested_schema.properties.0))
        .collect()
}

#[tokio::test]
async fn forms_reach_the_client_in_declaration_order_through_rmcp() {
    let forms = signup_tools::forms().unwrap();
    let declared = |form: &Form| -> Vec<String> {
        form.fields().iter().map(|f| f.name().to_owned()).collect()
    };
    let team = declared(&forms.team);
    let mut sorted = team.clone();
    sorted.sort();
    assert_ne!(
        team, sorted,
        "the team form must not be declared alphabetically"
    );

    // Round 1 asks the account form; answering "team" asks the team form.
    let first = demo_call("signup", json!({"arguments": {}})).await;
    assert_eq!(property_order(&first)["account"], declared(&forms.account));
    let first: Value = serde_json::from_slice(&first).unwrap();
    let account = json!({"account": {"action": "accept",
        "content": {"email": "ada@example.com", "plan": "team"}}});
    let second = demo_call(
        "signup",
        json!({"arguments": {}, "inputResponses": account,
               "requestState": first["result"]["requestState"]}),
    )
    .await;
    assert_eq!(
        property_order(&second)["team"],
        team,
        "{}",
        String::from_utf8_lossy(&second)
    );
    // The order hint the adapter leaves for ScreenLayer does not reach the client.
    let second: Value = serde_json::from_slice(&second).unwrap();
    assert_eq!(second["result"].get("_meta"), None, "{second}");
    assert_eq!(
        second["result"]["inputRequests"]["team"]["params"]["mode"],
        "form"
    );
}

// ---- the demo's #[tool_router] ----------------------------------------------------------

#[test]
fn the_demo_serves_the_forms_the_runtime_tests_drive() {
    // Derived from types in the server, built field by field for the
    // feature-less runtime tests: the same forms, order included.
    let derived = signup_service::forms().unwrap();
    let built = signup_tools::forms().unwrap();
    assert_eq!(derived.ship, built.ship);
    assert_eq!(derived.account, built.account);
    assert_eq!(derived.team, built.team);
    assert_eq!(derived.confirm, built.confirm);
}

#[tokio::test]
async fn the_demo_lists_its_tools_from_the_router() {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let request = Request::post("http://127.0.0.1/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .header("authorization", "Bearer ada")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = demo().call(request).await.unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let reply: Value = serde_json::from_slice(&bytes).unwrap();
    let tools = reply["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "ShipOrder",
            "export_orders",
            "import_contacts",
            "ping",
            "signup",
            "weather_report"
        ]
    );
    assert_eq!(
        tools[0]["description"],
        "Ship an order: asks for the tracking number."
    );
    assert_eq!(tools[3]["inputSchema"]["type"], "object");
    let format = &tools[1]["inputSchema"]["properties"]["format"];
    assert!(format.to_string().contains("csv"), "{format}");
}
