//! The bytes a state carries for its answers: an answer too large for what
//! is left is asked again (never an internal error), and the largest answers
//! each demo form accepts fit.

use mrtr_guard::RoundEnd;
use mrtr_guard::wire::ClientCapabilities;
use mrtr_guard_test_support::*;
use serde_json::{Value, json};

use super::tools::{message_of, multi_round, multiple_inputs, run};

// ---- bounded growth --------------------------------------------------------------------

#[test]
fn a_long_answer_to_a_field_without_max_length_is_asked_again_not_an_internal_error() {
    let h = harness();
    let r = req("ada", "multi_round");
    let (_, s1) = asked(&h.flow.run(r.call().unwrap(), multi_round));
    let long = json!({"step1": accept(json!({"name": "n".repeat(20_000)}))});
    let response = h
        .flow
        .run(r.answer(long, Some(&s1)).call().unwrap(), multi_round);
    let (result, _) = asked(&response);
    assert_eq!(keys(&result), ["step1"]);
    let message = message_of(&result, "step1");
    assert!(message.contains("too long"), "{message}");
}

#[test]
fn a_large_sampling_result_is_asked_again_not_an_internal_error() {
    let h = harness();
    let mut r = req("ada", "multiple_inputs");
    r.caps = ClientCapabilities::none()
        .with_elicitation_form()
        .with_sampling()
        .with_roots();
    let (_, s1) = asked(&h.flow.run(r.call().unwrap(), multiple_inputs));
    let answers = json!({
        "user_name": accept(json!({"name": "Ada"})),
        "capital_question": {"role": "assistant", "model": "m",
            "content": {"type": "text", "text": "Paris ".repeat(4000)}},
    });
    let response = h.flow.run(
        r.answer(answers, Some(&s1)).call().unwrap(),
        multiple_inputs,
    );
    let (result, _) = asked(&response);
    assert_eq!(keys(&result), ["capital_question", "client_roots"]);
}

// ---- the largest answers ---------------------------------------------------------------

/// What one carried answer takes of the budget (`docs/FORMAT.md` §5.1):
/// `"key":{"q":"<43 characters>","r":<response>}` and a comma.
fn carried_cost(key: &str, response: &Value) -> usize {
    serde_json::to_string(key).unwrap().len() + serde_json::to_string(response).unwrap().len() + 58
}

#[test]
fn the_largest_answers_each_demo_form_accepts_are_carried_and_every_round_mints() {
    let h = harness();
    let budget = h.flow.answer_budget();
    assert_eq!(budget, 4476, "default policy, sealed");
    // Every character of a free-text answer a control character: six bytes
    // each in the claims (`\u0001`).
    let worst = |n: usize| "\u{1}".repeat(n);
    let ship = json!({"ship": accept(json!({"trackingNumber": worst(64)}))});
    let (_, s) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    assert_eq!(
        run(&h.flow, &req("ada", "ShipOrder").answer(ship, Some(&s))),
        complete(&format!("Shipped as {}.", worst(64)))
    );

    // signup, team path: the longest address (254), the largest team, every role.
    let email = format!(
        "{}@{}.{}.{}",
        "a".repeat(64),
        "b".repeat(63),
        "c".repeat(63),
        "d".repeat(61)
    );
    assert_eq!(email.len(), 254);
    let r = req("ada", "signup");
    let (_, s1) = asked(&run(&h.flow, &r));
    let account = json!({"account": accept(json!({"email": email, "plan": "team"}))});
    let (r2, s2) = asked(&run(&h.flow, &r.clone().answer(account, Some(&s1))));
    assert_eq!(keys(&r2), ["team"]);
    let team =
        json!({"team": accept(json!({"teamSize": 500, "roles": ["admin", "billing", "member"]}))});
    let (r3, s3) = asked(&run(&h.flow, &r.clone().answer(team, Some(&s2))));
    assert_eq!(keys(&r3), ["confirm"]);
    let confirm = json!({"confirm": {"action": "accept"}});
    let done = run(&h.flow, &r.answer(confirm, Some(&s3)));
    assert!(matches!(done, Ok(RoundEnd::Complete(_))), "{done:?}");

    // The conformance fixture's free-text forms have no maxLength: their
    // largest answer is what the budget holds. Two answers that fill it
    // exactly are carried; one byte more is asked again, saying why.
    let r = req("ada", "multi_round");
    let response = |text: &str| json!({"action": "accept", "content": {"name": text}});
    let base = carried_cost("step1", &response(""));
    let half = (budget - base) / 2;
    let color = |text: &str| json!({"action": "accept", "content": {"color": text}});
    let rest = budget - half - base - carried_cost("step2", &color(""));
    let (_, s1) = asked(&h.flow.run(r.call().unwrap(), multi_round));
    let over = json!({"step1": response(&"n".repeat(budget - base + 1))});
    let (again, _) = asked(&h.flow.run(
        r.clone().answer(over, Some(&s1)).call().unwrap(),
        multi_round,
    ));
    assert!(message_of(&again, "step1").contains("too long"));
    let step1 = json!({"step1": response(&"n".repeat(half))});
    let (r2, s2) = asked(&h.flow.run(
        r.clone().answer(step1, Some(&s1)).call().unwrap(),
        multi_round,
    ));
    assert_eq!(keys(&r2), ["step2"]);
    let step2 = json!({"step2": color(&"c".repeat(rest + 1))});
    let (r3, s3) = asked(&h.flow.run(
        r.clone().answer(step2, Some(&s2)).call().unwrap(),
        multi_round,
    ));
    assert_eq!(
        keys(&r3),
        ["step2"],
        "one byte over what is left: asked again"
    );
    let step2 = json!({"step2": color(&"c".repeat(rest))});
    let done = h
        .flow
        .run(r.answer(step2, Some(&s3)).call().unwrap(), multi_round);
    assert!(matches!(done, Ok(RoundEnd::Complete(_))), "{done:?}");
}
