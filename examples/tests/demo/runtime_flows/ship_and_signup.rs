//! The demo's `ShipOrder` and `signup` driven round by round down each of
//! their paths: accepted, declined, cancelled.

use mrtr_guard::RoundEnd;
use mrtr_guard_examples::signup_tools;
use mrtr_guard_test_support::*;
use serde_json::json;

use super::tools::{FORMS, run};

// ---- ShipOrder ---------------------------------------------------------------

#[test]
fn ship_order_accept() {
    let h = harness();
    let first = run(&h.flow, &req("ada", "ShipOrder"));
    let (result, state) = asked(&first);
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"]["ship"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        result["inputRequests"]["ship"]["params"]["requestedSchema"]["required"],
        json!(["trackingNumber"])
    );
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z999", "extra": "dropped"}))});
    let second = run(
        &h.flow,
        &req("ada", "ShipOrder").answer(answer, Some(&state)),
    );
    assert_eq!(second, complete("Shipped as 1Z999."));
}

#[test]
fn ship_order_decline_and_cancel() {
    let h = harness();
    for action in ["decline", "cancel"] {
        let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
        let answer = json!({"ship": {"action": action}});
        let second = run(
            &h.flow,
            &req("ada", "ShipOrder").answer(answer, Some(&state)),
        );
        assert_eq!(second, complete("Shipping cancelled."), "{action}");
    }
    // An absent action is a cancel, never an accept.
    let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    let answer = json!({"ship": {"content": {"trackingNumber": "1Z"}}});
    let second = run(
        &h.flow,
        &req("ada", "ShipOrder").answer(answer, Some(&state)),
    );
    assert_eq!(second, complete("Shipping cancelled."));
}

// ---- signup ------------------------------------------------------------------

#[test]
fn signup_pro_path() {
    let h = harness();
    let (r1, s1) = asked(&run(&h.flow, &req("ada", "signup")));
    assert_eq!(keys(&r1), ["account"]);
    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "pro"}))});
    let (r2, s2) = asked(&run(
        &h.flow,
        &req("ada", "signup").answer(account, Some(&s1)),
    ));
    assert_eq!(keys(&r2), ["confirm"]);
    assert_ne!(s1, s2, "every round mints a fresh state");
    let confirm = json!({"confirm": {"action": "accept"}});
    let done = run(&h.flow, &req("ada", "signup").answer(confirm, Some(&s2)));
    assert_eq!(
        done,
        complete("Account created for ada@example.com: Pro plan.")
    );
}

#[test]
fn signup_team_path() {
    let h = harness();
    let (_, s1) = asked(&run(&h.flow, &req("ada", "signup")));
    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "team"}))});
    let (r2, s2) = asked(&run(
        &h.flow,
        &req("ada", "signup").answer(account, Some(&s1)),
    ));
    assert_eq!(keys(&r2), ["team"]);
    let team = json!({"team": accept(json!({"teamSize": 12, "roles": ["admin", "member"]}))});
    let (r3, s3) = asked(&run(&h.flow, &req("ada", "signup").answer(team, Some(&s2))));
    assert_eq!(keys(&r3), ["confirm"]);
    assert!(s1 != s2 && s2 != s3 && s1 != s3);
    let done = run(
        &h.flow,
        &req("ada", "signup").answer(json!({"confirm": {"action": "accept"}}), Some(&s3)),
    );
    assert_eq!(
        done,
        complete("Account created for ada@example.com: Team plan, 12 seats, roles: admin, member.")
    );
}

#[test]
fn signup_decline_at_any_round_ends_without_error() {
    let h = harness();
    let cancelled = complete("Signup cancelled; no account was created.");
    let (_, s1) = asked(&run(&h.flow, &req("ada", "signup")));
    let decline = req("ada", "signup").answer(json!({"account": {"action": "decline"}}), Some(&s1));
    assert_eq!(run(&h.flow, &decline), cancelled);
    // Underneath, `require` stops the round with the decline and its key.
    let raw = h.flow.run(decline.call().unwrap(), |round| {
        signup_tools::signup(round, &FORMS)
    });
    assert_eq!(
        raw,
        Ok(RoundEnd::Declined {
            key: "account".into()
        })
    );

    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "team"}))});
    let (_, s2) = asked(&run(
        &h.flow,
        &req("ada", "signup").answer(account, Some(&s1)),
    ));
    let cancel = req("ada", "signup").answer(json!({"team": {"action": "cancel"}}), Some(&s2));
    assert_eq!(run(&h.flow, &cancel), cancelled);
    let raw = h.flow.run(cancel.call().unwrap(), |round| {
        signup_tools::signup(round, &FORMS)
    });
    assert_eq!(raw, Ok(RoundEnd::Cancelled { key: "team".into() }));
}
