//! Invalid answers: asked again saying which field and why, answers already
//! proven kept, and three invalid answers in a row to one question end the
//! flow.

use mrtr_guard::runtime::AbortReason;
use mrtr_guard::{Reply, RoundEnd, Stop};
use mrtr_guard_test_support::*;
use serde_json::{Value, json};

use super::tools::{FORMS, message_of, run};

#[test]
fn reask_after_invalid_answer_keeps_proven_answers() {
    let h = harness();
    let (_, s1) = asked(&run(&h.flow, &req("ada", "signup")));
    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "team"}))});
    let (_, s2) = asked(&run(
        &h.flow,
        &req("ada", "signup").answer(account, Some(&s1)),
    ));
    // teamSize below its minimum, roles not offered: the team form is asked again.
    let bad = json!({"team": accept(json!({"teamSize": 1, "roles": ["owner"]}))});
    let (r3, s3) = asked(&run(&h.flow, &req("ada", "signup").answer(bad, Some(&s2))));
    assert_eq!(keys(&r3), ["team"]);
    // Only the team answer is sent now: the account answer rides in the state.
    let team = json!({"team": accept(json!({"teamSize": 2, "roles": ["billing"]}))});
    let (r4, s4) = asked(&run(&h.flow, &req("ada", "signup").answer(team, Some(&s3))));
    assert_eq!(keys(&r4), ["confirm"]);
    let done = run(
        &h.flow,
        &req("ada", "signup").answer(json!({"confirm": {"action": "accept"}}), Some(&s4)),
    );
    assert_eq!(
        done,
        complete("Account created for ada@example.com: Team plan, 2 seats, roles: billing.")
    );
}

#[test]
fn invalid_reply_carries_the_report() {
    let h = harness();
    let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    let retry = req("ada", "ShipOrder").answer(
        json!({"ship": accept(json!({"trackingNumber": 42}))}),
        Some(&state),
    );
    let mut round = h.flow.round(retry.call().unwrap()).unwrap();
    let Reply::Invalid(report) = round.form("ship", &FORMS.ship) else {
        panic!()
    };
    assert_eq!(
        report.reason("trackingNumber"),
        Some(mrtr_guard::form::Reason::WrongType)
    );
    let (result, _) = asked(&round.complete(Ok::<_, Stop>(String::new())));
    assert_eq!(keys(&result), ["ship"]);
}

#[test]
fn an_invalid_answer_is_asked_again_saying_which_field_and_why() {
    let h = harness();
    let (r1, s1) = asked(&run(&h.flow, &req("ada", "signup")));
    let original = message_of(&r1, "account");
    let bad = json!({"account": accept(json!({"email": "ECHO-not-an-email", "plan": "ECHO-enterprise"}))});
    let (r2, s2) = asked(&run(&h.flow, &req("ada", "signup").answer(bad, Some(&s1))));
    assert_eq!(keys(&r2), ["account"]);
    let reask = message_of(&r2, "account");
    assert_ne!(reask, original);
    assert!(reask.starts_with(&original), "{reask}");
    assert!(reask.contains("Email") && reask.contains("Plan"), "{reask}");
    assert!(
        reask.contains("not a valid email address") && reask.contains("not one of the options"),
        "{reask}"
    );
    assert!(!reask.contains("ECHO"), "{reask}");
    let schema =
        |result: &Value| result["inputRequests"]["account"]["params"]["requestedSchema"].clone();
    assert_eq!(schema(&r2), schema(&r1));
    // The re-ask is the question now: its answer counts.
    let good = json!({"account": accept(json!({"email": "ada@example.com", "plan": "pro"}))});
    let (r3, _) = asked(&run(&h.flow, &req("ada", "signup").answer(good, Some(&s2))));
    assert_eq!(keys(&r3), ["confirm"]);
}

// ---- answers that keep failing ----------------------------------------------------------

#[test]
fn three_invalid_answers_in_a_row_end_the_flow_with_a_clear_failure() {
    let h = harness();
    let r = req("ada", "ShipOrder");
    let (_, mut state) = asked(&run(&h.flow, &r));
    let bad = || json!({"ship": accept(json!({"trackingNumber": ""}))});
    for _ in 0..2 {
        let (result, next) = asked(&run(&h.flow, &r.clone().answer(bad(), Some(&state))));
        assert_eq!(keys(&result), ["ship"]);
        state = next;
    }
    let ended = run(&h.flow, &r.answer(bad(), Some(&state)));
    let failure = AbortReason::InvalidAnswers {
        key: "ship".to_owned(),
    };
    assert_eq!(ended, Ok(RoundEnd::Aborted(failure.clone())));
    assert!(
        failure.to_string().contains("kept failing validation"),
        "{failure}"
    );
}

/// Only invalid answers count, each question on its own: a missing answer
/// neither counts nor resets the count, a valid one ends it.
#[test]
fn only_consecutive_invalid_answers_to_one_question_count() {
    let h = harness();
    let r = req("ada", "signup");
    let bad_account = || json!({"account": accept(json!({"email": "x", "plan": "pro"}))});
    let bad_team = || json!({"team": accept(json!({"teamSize": 1, "roles": ["admin"]}))});
    let step = |responses: Value, state: &str| {
        let (result, next) = asked(&run(&h.flow, &r.clone().answer(responses, Some(state))));
        (keys(&result), next)
    };
    let (_, s0) = asked(&run(&h.flow, &r));
    let (_, s) = step(bad_account(), &s0);
    let (_, s2) = step(bad_account(), &s);
    // No answer at all: asked again, not a third strike...
    let (k, s) = step(json!({}), &s2);
    assert_eq!(k, ["account"]);
    // ...and not a fresh start either: the next invalid answer is the third.
    let ended = run(&h.flow, &r.clone().answer(bad_account(), Some(&s)));
    let failure = AbortReason::InvalidAnswers {
        key: "account".to_owned(),
    };
    assert_eq!(ended, Ok(RoundEnd::Aborted(failure)));

    // A valid answer ends the count; the next form has its own.
    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "team"}))});
    let (k, s) = step(account, &s2);
    assert_eq!(k, ["team"]);
    let (k, s) = step(bad_team(), &s);
    assert_eq!(k, ["team"]);
    let (k, s) = step(bad_team(), &s);
    assert_eq!(k, ["team"]);
    let team = json!({"team": accept(json!({"teamSize": 2, "roles": ["admin"]}))});
    let (k, _) = step(team, &s);
    assert_eq!(k, ["confirm"]);
}
