//! What the client declared: an ask it cannot answer is `-32021` naming the
//! sub-capability it needs, read every round, or degrades to what it can.

use mrtr_guard::wire::{ClientCapabilities, SamplingRequest};
use mrtr_guard::{Field, Form, Reply, Stop};
use mrtr_guard_test_support::*;
use serde_json::{Value, json};

use super::tools::run;

#[test]
fn client_without_elicitation() {
    let h = harness();
    let mut no_caps = req("ada", "ShipOrder");
    no_caps.caps = ClientCapabilities::none().with_sampling();
    let error = run(&h.flow, &no_caps).unwrap_err();
    assert_eq!(error.code(), -32021);
    assert_eq!(error.http_status(), 400);
    assert_eq!(
        error.data(),
        Some(&json!({"requiredCapabilities": {"elicitation": {"form": {}}}}))
    );
    no_caps.tool = "signup";
    assert_eq!(run(&h.flow, &no_caps).unwrap_err(), error);
}

/// A `-32021` names what the unsent asks need, precisely enough that the
/// client's own declaration does not already cover it.
#[test]
fn missing_capability_names_the_sub_capability() {
    let h = harness();
    let name = Form::builder("Name?")
        .field(Field::string("name").required())
        .build()
        .unwrap();
    let context =
        SamplingRequest::user_text("Summarise", 50).param("includeContext", json!("thisServer"));
    let tools_and_context = context.clone().param("tools", json!([]));
    let none = SamplingRequest::user_text("Summarise", 50).param("includeContext", json!("none"));
    let cases: [(ClientCapabilities, Option<&SamplingRequest>, Value); 4] = [
        // URL-only elicitation: a form needs `elicitation.form`.
        (
            ClientCapabilities::none().with_elicitation_url(),
            None,
            json!({"elicitation": {"form": {}}}),
        ),
        (
            ClientCapabilities::none().with_sampling(),
            Some(&context),
            json!({"sampling": {"context": {}}}),
        ),
        (
            ClientCapabilities::none().with_sampling(),
            Some(&tools_and_context),
            json!({"sampling": {"tools": {}, "context": {}}}),
        ),
        (
            ClientCapabilities::none(),
            Some(&none),
            json!({"sampling": {}}),
        ),
    ];
    for (caps, sampling, required) in cases {
        let mut r = req("ada", "t");
        r.caps = caps.clone();
        let error = h
            .flow
            .run(r.call().unwrap(), |round| {
                match sampling {
                    Some(sampling) => assert_eq!(round.sample("s", sampling), Reply::Unsupported),
                    None => assert_eq!(round.form("f", &name), Reply::Unsupported),
                }
                Err::<String, _>(Stop::Ask)
            })
            .unwrap_err();
        assert_eq!((error.code(), error.http_status()), (-32021, 400));
        assert_eq!(
            error.data(),
            Some(&json!({"requiredCapabilities": required}))
        );
        let named = ClientCapabilities::from_json(&required).unwrap();
        assert!(!caps.covers(&named), "{required} is already declared");
    }
}

#[test]
fn capabilities_are_read_every_round() {
    let h = harness();
    let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    // The retry drops elicitation while the form is still owed.
    let mut retry = req("ada", "ShipOrder").answer(json!({}), Some(&state));
    retry.caps = ClientCapabilities::none();
    assert_eq!(run(&h.flow, &retry).unwrap_err().code(), -32021);
}

#[test]
fn degrade_to_what_the_client_declared() {
    let h = harness();
    let mut sampling_only = req("anon", "t");
    sampling_only.caps = ClientCapabilities::none().with_sampling();
    let name = Form::builder("Name?")
        .field(Field::string("name").required())
        .build()
        .unwrap();
    let response = h.flow.run(sampling_only.call().unwrap(), |round| {
        let by_form = round.form("user_name", &name);
        let by_model = round.sample(
            "capital",
            &SamplingRequest::user_text("Capital of France?", 50),
        );
        assert_eq!(by_form, Reply::Unsupported);
        assert_eq!(by_model, Reply::Pending);
        Err::<String, _>(Stop::Ask)
    });
    let (result, _) = asked(&response);
    assert_eq!(keys(&result), ["capital"]);
}

#[test]
fn url_mode_needs_its_capability() {
    let h = harness();
    let ask = |caps: ClientCapabilities| {
        let mut r = req("ada", "t");
        r.caps = caps;
        h.flow.run(r.call().unwrap(), |round| {
            let _ = round.url("key", "Set your API key", "https://mcp.example.com/ui/key");
            Err::<String, _>(Stop::Ask)
        })
    };
    assert_eq!(
        ask(form_caps()).unwrap_err().data(),
        Some(&json!({"requiredCapabilities": {"elicitation": {"url": {}}}}))
    );
    let (result, _) = asked(&ask(ClientCapabilities::none().with_elicitation_url()));
    assert_eq!(result["inputRequests"]["key"]["params"]["mode"], "url");
}
