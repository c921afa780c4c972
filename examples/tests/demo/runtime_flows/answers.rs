//! Which answers count: only those to questions asked, presented with the
//! state that asked them, and proven for the form as it reads now (a form
//! changed by a deploy is asked again).

use mrtr_guard::runtime::Clock as _;
use mrtr_guard::{Binding, Field, Form, Method, Reply, RpcError, Stop};
use mrtr_guard_test_support::*;
use serde_json::{Value, json};

use super::tools::{FORMS, run};

// ---- answers only for questions asked ---------------------------------------------

#[test]
fn round_one_answers_without_state_are_not_consumed() {
    let h = harness();
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z999"}))});
    let (result, _) = asked(&run(&h.flow, &req("ada", "ShipOrder").answer(answer, None)));
    assert_eq!(keys(&result), ["ship"]);
}

#[test]
fn answers_to_questions_not_yet_asked_are_ignored() {
    let h = harness();
    let (_, s1) = asked(&run(&h.flow, &req("ada", "signup")));
    // The client answers the team form before it was asked: ignored, asked properly.
    let both = json!({
        "account": accept(json!({"email": "ada@example.com", "plan": "team"})),
        "team": accept(json!({"teamSize": 5, "roles": ["admin"]})),
        "confirm": {"action": "accept"}
    });
    let (r2, _) = asked(&run(&h.flow, &req("ada", "signup").answer(both, Some(&s1))));
    assert_eq!(keys(&r2), ["team"]);
}

#[test]
fn unsolicited_answers_only_with_the_explicit_opt_in() {
    let h = harness();
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z"})), "unknown_extra_key": {"action": "accept"}});
    let call = req("ada", "ShipOrder").answer(answer, None).call().unwrap();
    let response = h.flow.run(call, |round| {
        match round.form_unsolicited("ship", &FORMS.ship) {
            Reply::Accepted(answers) => Ok(answers.str("trackingNumber")?.to_owned()),
            _ => Err(Stop::Ask),
        }
    });
    assert_eq!(response, complete("1Z"));
}

#[test]
fn malformed_input_responses_are_invalid_params() {
    for responses in [
        json!(null),
        json!("x"),
        json!({"ship": 12345}),
        json!({"ship": []}),
    ] {
        let error = req("ada", "ShipOrder")
            .answer(responses.clone(), None)
            .call()
            .unwrap_err();
        assert_eq!(error, RpcError::invalid_input_responses(), "{responses}");
        assert_eq!(error.code(), -32602);
    }
}

// ---- forms that change between deploys -----------------------------------------------

/// A form whose message changed between two rounds (a deploy): the answer
/// proven for the old form is not used, the new form is asked once, and the
/// stale answer is not carried any further.
#[test]
fn a_changed_form_is_asked_again_once_and_its_stale_answer_dropped() {
    let h = harness();
    let name = |message: &str| {
        Form::builder(message)
            .field(Field::string("name").max_length(40).required())
            .build()
            .unwrap()
    };
    let (old, new) = (name("Your name?"), name("What should we call you?"));
    let handler = |form: &Form| {
        let form = form.clone();
        move |round: &mut mrtr_guard::Round<'_>| -> Result<String, Stop> {
            let name = round.require("name", &form)?;
            round.require("confirm", &FORMS.confirm)?;
            Ok(name.str("name")?.to_owned())
        }
    };
    let r = req("ada", "t");
    let (_, s1) = asked(&h.flow.run(r.call().unwrap(), handler(&old)));
    let answer = json!({"name": accept(json!({"name": "Ada"}))});
    let (r2, s2) = asked(&h.flow.run(
        r.clone().answer(answer, Some(&s1)).call().unwrap(),
        handler(&old),
    ));
    assert_eq!(keys(&r2), ["confirm"]);
    assert_eq!(carried(&h, &s2), ["name"]);

    // The deploy: the name form's message changed.
    let confirm = json!({"confirm": {"action": "accept"}});
    let (r3, s3) = asked(&h.flow.run(
        r.clone().answer(confirm, Some(&s2)).call().unwrap(),
        handler(&new),
    ));
    assert_eq!(keys(&r3), ["name"]);
    assert_eq!(
        r3["inputRequests"]["name"]["params"]["message"],
        "What should we call you?"
    );
    assert!(carried(&h, &s3).is_empty(), "the stale answer is dropped");

    let answer = json!({"name": accept(json!({"name": "Grace"}))});
    let (r4, s4) = asked(&h.flow.run(
        r.clone().answer(answer, Some(&s3)).call().unwrap(),
        handler(&new),
    ));
    assert_eq!(keys(&r4), ["confirm"], "asked once: the new answer counts");
    assert_eq!(carried(&h, &s4), ["name"]);
    let confirm = json!({"confirm": {"action": "accept"}});
    assert_eq!(
        h.flow
            .run(r.answer(confirm, Some(&s4)).call().unwrap(), handler(&new)),
        complete("Grace")
    );
}

/// The keys of the answers a state carries.
fn carried(h: &Harness, state: &str) -> Vec<String> {
    let args = json!({});
    let binding = Binding::new("ada", Method::ToolsCall, "t", Some(&args));
    let claims = h
        .flow
        .codec()
        .open_at::<Value>(state, &binding, h.clock.now())
        .unwrap();
    claims.answers().keys().cloned().collect()
}
