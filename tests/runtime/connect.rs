//! `Round::connect` in process, where no connect route is needed: what a
//! handler's mistake gets (an anonymous call, a connection the connector
//! does not declare), a client without URL mode, the link a first round
//! sends, and an `accept` the store cannot back, which asks again.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Arc;

use mrtr_guard::connect::{Connector, MemoryConnectionStore};
use mrtr_guard::runtime::Misuse;
use mrtr_guard::wire::{CallParams, ClientCapabilities, InputResponses, RequestMeta};
use mrtr_guard::{Call, Field, Flow, Form, KeyRing, MasterKey, Method, RoundEnd, StateCodec};
use serde_json::{Value, json};

const ROUTE: &str = "https://tools.example.com/connect";

fn flow() -> Flow {
    let key = MasterKey::from_bytes(&[7; 32]).unwrap();
    Flow::new(
        StateCodec::builder("https://tools.example.com/mcp", KeyRing::new(key))
            .allow_anonymous()
            .build()
            .unwrap(),
    )
}

fn connector() -> Connector {
    let form = Form::builder("Your API key")
        .field(Field::string("apiKey").min_length(8).required())
        .build()
        .unwrap();
    Connector::builder(
        ROUTE,
        KeyRing::new(MasterKey::from_bytes(&[8; 32]).unwrap()),
        Arc::new(MemoryConnectionStore::new(8)),
    )
    .secret("api", form)
    .build()
    .unwrap()
}

fn call(caps: ClientCapabilities, principal: Option<&str>, retry: Option<(Value, &str)>) -> Call {
    let mut params = CallParams::new(
        Method::ToolsCall,
        "report",
        RequestMeta::new("2026-07-28", caps),
    );
    if let Some((answers, state)) = retry {
        params = params
            .with_input_responses(InputResponses::from_json(&answers).unwrap())
            .with_request_state(state);
    }
    let call = Call::new(params);
    match principal {
        Some(principal) => call.with_principal(principal),
        None => call,
    }
}

fn url_mode() -> ClientCapabilities {
    ClientCapabilities::none().with_elicitation_url()
}

/// Runs the handler that asks `name`: how the round ended.
fn run(
    flow: &Flow,
    connector: &Connector,
    name: &str,
    call: Call,
) -> Result<RoundEnd<String>, mrtr_guard::RpcError> {
    flow.run(call, |round| {
        let connection = round.connect("key", "Connect your API key", &connector.secret(name))?;
        Ok(connection
            .secret("apiKey")
            .unwrap_or_default()
            .len()
            .to_string())
    })
}

#[test]
fn an_anonymous_call_cannot_ask_for_a_connection() {
    let error = run(&flow(), &connector(), "api", call(url_mode(), None, None)).unwrap_err();
    assert_eq!(error.misuse(), Some(&Misuse::AnonymousConnect));
}

#[test]
fn a_connection_the_connector_does_not_declare_is_a_handler_mistake() {
    let error = run(
        &flow(),
        &connector(),
        "other",
        call(url_mode(), Some("ada"), None),
    )
    .unwrap_err();
    assert_eq!(
        error.misuse(),
        Some(&Misuse::UnknownConnection {
            name: "other".to_owned()
        })
    );
}

#[test]
fn a_client_without_url_mode_is_told_so() {
    let forms_only = ClientCapabilities::none().with_elicitation_form();
    let error = run(
        &flow(),
        &connector(),
        "api",
        call(forms_only, Some("ada"), None),
    )
    .unwrap_err();
    let json = error.to_json();
    assert_eq!(json["code"], -32021, "{json}");
    assert!(json.to_string().contains("url"), "{json}");
}

/// The first round sends a link to the connector's route that names
/// neither the user nor the connection; an `accept` the store cannot back
/// is consent, not completion: asked again with a fresh link.
#[test]
fn an_accept_without_completion_asks_again_with_a_fresh_link() {
    let (flow, connector) = (flow(), connector());
    let RoundEnd::InputRequired(first) = run(
        &flow,
        &connector,
        "api",
        call(url_mode(), Some("ada"), None),
    )
    .unwrap() else {
        panic!("not asked")
    };
    let first = first.to_json();
    let link = first["inputRequests"]["key"]["params"]["url"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(link.starts_with(&format!("{ROUTE}?link=")), "{link}");
    assert!(!link.contains("ada") && !link.contains("api"), "{link}");
    let state = first["requestState"].as_str().unwrap().to_owned();

    let accept = json!({"key": {"action": "accept"}});
    let retry = call(url_mode(), Some("ada"), Some((accept, &state)));
    let RoundEnd::InputRequired(again) = run(&flow, &connector, "api", retry).unwrap() else {
        panic!("completed without the step")
    };
    let again = again.to_json();
    let ask = &again["inputRequests"]["key"]["params"];
    assert_ne!(ask["url"].as_str().unwrap(), link);
    assert!(
        ask["message"].as_str().unwrap().contains("not completed"),
        "{again}"
    );
    assert!(connector.connection(Some("ada"), "api").unwrap().is_none());
}
