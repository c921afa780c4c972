//! Several asks in one round: batched into one result with the app state
//! carried; a handler's misuses (nothing asked, one key for two questions)
//! as internal errors; `Debug` that prints no answer.

use mrtr_guard::runtime::Misuse;
use mrtr_guard::wire::{ClientCapabilities, SamplingRequest};
use mrtr_guard::{Field, Form, Reply, RpcError, Stop};
use mrtr_guard_test_support::*;
use serde_json::{Value, json};

use super::tools::{FORMS, run};

#[test]
fn several_asks_batch_into_one_result_and_app_state_is_carried() {
    let h = harness();
    let caps = ClientCapabilities::none()
        .with_elicitation_form()
        .with_sampling()
        .with_roots();
    let name = Form::builder("Name?")
        .field(Field::string("name").required())
        .build()
        .unwrap();
    let handler = |round: &mut mrtr_guard::Round<'_>| -> Result<String, Stop> {
        if round.is_first() {
            round.set_app(&json!({"started": round.number()}))?;
        }
        let user = round.form("user", &name);
        let model = round.sample("model", &SamplingRequest::user_text("Say hi", 10));
        let roots = round.roots("roots");
        match (user, model, roots) {
            (Reply::Accepted(user), Reply::Accepted(model), Reply::Accepted(roots)) => {
                let started: Value = round.app().unwrap();
                Ok(format!(
                    "{} {} {} {}",
                    user.str("name")?,
                    model.text().unwrap_or("?"),
                    roots.roots[0].uri,
                    started["started"]
                ))
            }
            _ => Err(Stop::Ask),
        }
    };
    let mut first = req("ada", "t");
    first.caps = caps.clone();
    let (r1, s1) = asked(&h.flow.run(first.call().unwrap(), handler));
    assert_eq!(keys(&r1), ["model", "roots", "user"]);
    assert_eq!(
        r1["inputRequests"]["roots"],
        json!({"method": "roots/list"})
    );

    // Round 2 answers two of three; a sampling answer sent for the roots key is not one.
    let partial = json!({
        "user": accept(json!({"name": "Ada"})),
        "roots": {"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"},
    });
    let mut second = first.clone().answer(partial, Some(&s1));
    second.caps = caps.clone();
    let (r2, s2) = asked(&h.flow.run(second.call().unwrap(), handler));
    assert_eq!(keys(&r2), ["model", "roots"]);

    let rest = json!({
        "model": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m", "stopReason": "endTurn"},
        "roots": {"roots": [{"uri": "file:///home/ada", "name": "home"}]},
    });
    let third = first.answer(rest, Some(&s2));
    assert_eq!(
        h.flow.run(third.call().unwrap(), handler),
        complete("Ada hi file:///home/ada 1")
    );
}

#[test]
fn a_stop_with_nothing_asked_is_an_internal_error() {
    let h = harness();
    let response = h.flow.run(req("ada", "t").call().unwrap(), |_| {
        Err::<String, _>(Stop::Ask)
    });
    let error = response.unwrap_err();
    assert_eq!(error, RpcError::internal_error());
    assert_eq!(error.code(), -32603);
    assert_eq!(error.misuse(), Some(&Misuse::NothingAsked));
    assert_eq!(error.state_error(), None);
}

#[test]
fn two_questions_under_one_key_in_one_round_are_an_internal_error() {
    let h = harness();
    let response = h.flow.run(req("ada", "t").call().unwrap(), |round| {
        let _ = round.form("x", &FORMS.ship);
        let _ = round.form("x", &FORMS.account);
        Err::<String, _>(Stop::Ask)
    });
    let error = response.unwrap_err();
    assert_eq!(error, RpcError::internal_error());
    assert_eq!(
        error.misuse(),
        Some(&Misuse::KeyReused {
            key: "x".to_owned()
        })
    );
    // An answered question and another question under its key, too.
    let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z"}))});
    let retry = req("ada", "ShipOrder").answer(answer, Some(&state));
    let response = h.flow.run(retry.call().unwrap(), |round| {
        let _ = round.form("ship", &FORMS.ship);
        let _ = round.roots("ship");
        Ok::<_, Stop>(String::new())
    });
    assert_eq!(
        response.unwrap_err().misuse(),
        Some(&Misuse::KeyReused {
            key: "ship".to_owned()
        })
    );
    // The same question twice under one key is one question.
    let response = h.flow.run(req("ada", "t").call().unwrap(), |round| {
        let _ = round.form("x", &FORMS.ship);
        let _ = round.form("x", &FORMS.ship);
        Err::<String, _>(Stop::Ask)
    });
    assert_eq!(keys(&asked(&response).0), ["x"]);
}

/// `Debug` of a round and of its accepted answers names keys and the round,
/// never an answer (fresh or carried) or the application data.
#[test]
fn debug_of_round_and_answers_prints_no_answer_or_app_data() {
    const ANSWER: &str = "answer-secret-9b2c";
    const APP: &str = "app-secret-51f0";
    let h = harness();
    let name = Form::builder("Name?")
        .field(Field::string("name").required())
        .build()
        .unwrap();
    let team = Form::builder("Team?")
        .field(Field::string("team").required())
        .build()
        .unwrap();
    let check = |text: String| {
        assert!(!text.contains(ANSWER) && !text.contains(APP), "{text}");
        text
    };
    let handler = |round: &mut mrtr_guard::Round<'_>| {
        check(format!("{round:?}"));
        if round.is_first() {
            round.set_app(&json!({"note": APP}))?;
        }
        let answers = round.require("name", &name)?;
        check(format!("{answers:?} {answers:#?}"));
        let _ = round.require("team", &team)?;
        let text = check(format!("{round:#?}"));
        assert!(text.contains("name") && text.contains("team"), "{text}");
        Ok(answers.str("name")?.to_owned())
    };
    let first = req("ada", "t");
    let (_, s1) = asked(&h.flow.run(first.call().unwrap(), handler));
    let second = first
        .clone()
        .answer(json!({"name": accept(json!({"name": ANSWER}))}), Some(&s1));
    let (_, s2) = asked(&h.flow.run(second.call().unwrap(), handler));
    let third = first.answer(json!({"team": accept(json!({"team": "x"}))}), Some(&s2));
    assert_eq!(h.flow.run(third.call().unwrap(), handler), complete(ANSWER));
}
