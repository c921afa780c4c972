//! Whole multi-round flows, in process: the demo's tools driven round by
//! round, and every way a retry can be refused.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

mod common;

use std::sync::Arc;

use common::*;
use mrtr_guard::{
    ClientCapabilities, Field, Form, MemoryReplayGuard, Method, Policy, Reply, Response, RpcError,
    SamplingRequest, StateError, Stop,
};
use serde_json::{Value, json};
use time::Duration;

fn bad_state() -> Result<Response<String>, RpcError> {
    Err(RpcError::invalid_request_state())
}

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
        Ok(Response::Declined {
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
    assert_eq!(raw, Ok(Response::Cancelled { key: "team".into() }));
}

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
        Some(mrtr_guard::Reason::WrongType)
    );
    let (result, _) = asked(&round.complete(Ok::<_, Stop>(String::new())));
    assert_eq!(keys(&result), ["ship"]);
}

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

// ---- binding ---------------------------------------------------------------------

#[test]
fn state_from_user_a_presented_by_user_b() {
    let h = harness();
    let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z"}))});
    assert_eq!(
        run(
            &h.flow,
            &req("mallory", "ShipOrder").answer(answer, Some(&state))
        ),
        bad_state()
    );
}

#[test]
fn state_for_tool_x_used_on_tool_y_or_with_changed_arguments() {
    let h = harness();
    let (_, state) = asked(&run(&h.flow, &req("ada", "signup")));
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z"}))});
    assert_eq!(
        run(
            &h.flow,
            &req("ada", "ShipOrder").answer(answer.clone(), Some(&state))
        ),
        bad_state()
    );

    let mut with_args = req("ada", "ShipOrder");
    with_args.args = Some(json!({"orderId": 1}));
    let (_, state) = asked(&run(&h.flow, &with_args));
    let mut changed = with_args.clone().answer(answer.clone(), Some(&state));
    changed.args = Some(json!({"orderId": 2}));
    assert_eq!(run(&h.flow, &changed), bad_state());
    // Same arguments in another spelling still bind.
    let mut same = with_args.answer(answer, Some(&state));
    same.args = Some(json!({"orderId": 1.0}));
    assert_eq!(run(&h.flow, &same), complete("Shipped as 1Z."));
}

#[test]
fn state_for_a_tool_used_on_a_prompt_of_the_same_name() {
    let h = harness();
    let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    let mut prompt = req("ada", "ShipOrder").answer(json!({}), Some(&state));
    prompt.method = Method::PromptsGet;
    assert_eq!(run(&h.flow, &prompt), bad_state());
}

#[test]
fn tampered_state_is_refused_never_reprompted() {
    let h = harness();
    let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z"}))});
    for tampered in [
        format!("{state}-TAMPERED"),
        state[..state.len() - 1].to_owned(),
        String::new(),
    ] {
        assert_eq!(
            run(
                &h.flow,
                &req("ada", "ShipOrder").answer(answer.clone(), Some(&tampered))
            ),
            bad_state()
        );
    }
}

// ---- time, rounds, replay ------------------------------------------------------------

#[test]
fn expired_state() {
    let h = harness();
    let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z"}))});
    h.clock.advance(Duration::seconds(599));
    assert_eq!(
        run(
            &h.flow,
            &req("ada", "ShipOrder").answer(answer.clone(), Some(&state))
        ),
        complete("Shipped as 1Z.")
    );
    h.clock.advance(Duration::seconds(1));
    assert_eq!(
        run(
            &h.flow,
            &req("ada", "ShipOrder").answer(answer, Some(&state))
        ),
        bad_state()
    );
}

#[test]
fn flow_past_its_deadline() {
    let h = harness_with(|b| b.policy(Policy::default().with_flow_ttl(Duration::minutes(15))));
    let (_, s1) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    // Each retry re-asks (invalid answer) within the round TTL...
    h.clock.advance(Duration::minutes(9));
    let bad = json!({"ship": accept(json!({}))});
    let (_, s2) = asked(&run(
        &h.flow,
        &req("ada", "ShipOrder").answer(bad, Some(&s1)),
    ));
    // ...but the flow's deadline, fixed at round 1, is not extended.
    h.clock.advance(Duration::minutes(6));
    let good = json!({"ship": accept(json!({"trackingNumber": "1Z"}))});
    assert_eq!(
        run(&h.flow, &req("ada", "ShipOrder").answer(good, Some(&s2))),
        bad_state()
    );
}

#[test]
fn the_round_after_the_cap() {
    let h = harness_with(|b| b.policy(policy_rounds(2)));
    let (_, s1) = asked(&run(&h.flow, &req("ada", "signup")));
    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "team"}))});
    let (_, s2) = asked(&run(
        &h.flow,
        &req("ada", "signup").answer(account, Some(&s1)),
    ));
    // A third ask would exceed two rounds: the flow is over.
    let team = json!({"team": accept(json!({"teamSize": 3, "roles": ["admin"]}))});
    assert_eq!(
        run(&h.flow, &req("ada", "signup").answer(team, Some(&s2))),
        bad_state()
    );
}

#[test]
fn consumed_state_replayed_with_the_memory_guard() {
    let guard = Arc::new(MemoryReplayGuard::new(1000));
    let h = harness_with(|b| b.replay_guard(guard));
    let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z"}))});
    let retry = req("ada", "ShipOrder").answer(answer, Some(&state));
    assert_eq!(run(&h.flow, &retry), complete("Shipped as 1Z."));
    assert_eq!(run(&h.flow, &retry), bad_state());
}

#[test]
fn a_refused_state_keeps_its_reason_off_the_wire() {
    let guard = Arc::new(MemoryReplayGuard::new(1000));
    let h = harness_with(|b| b.replay_guard(guard).policy(policy_rounds(1)));
    let wire = RpcError::invalid_request_state().to_json();
    let refused = |response: Result<Response<String>, RpcError>, reason: &str| {
        let error = response.unwrap_err();
        assert_eq!(error.to_json(), wire, "{reason}");
        assert_eq!(error.http_status(), 200, "{reason}");
        assert_eq!(error.state_error().map(StateError::reason), Some(reason));
    };
    let (_, state) = asked(&run(&h.flow, &req("ada", "ShipOrder")));
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z"}))});
    let retry = |user, state: &str| req(user, "ShipOrder").answer(answer.clone(), Some(state));

    // Through `Flow::round`: the codec refused the state.
    refused(run(&h.flow, &retry("mallory", &state)), "forged");
    refused(run(&h.flow, &retry("ada", "not a token")), "malformed");
    h.clock.set(t0() + Duration::minutes(10));
    refused(run(&h.flow, &retry("ada", &state)), "expired");
    h.clock.set(t0());
    assert_eq!(
        run(&h.flow, &retry("ada", &state)),
        complete("Shipped as 1Z.")
    );
    refused(run(&h.flow, &retry("ada", &state)), "replayed");

    // Through `Round::complete`: the flow may not ask again (cap of 1).
    let (_, state) = asked(&run(&h.flow, &req("ada", "signup")));
    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "team"}))});
    let next = req("ada", "signup").answer(account, Some(&state));
    refused(run(&h.flow, &next), "too_many_rounds");
}

// ---- capabilities ----------------------------------------------------------------------

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

// ---- batching, sampling, roots, app state ---------------------------------------------------

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
fn a_stop_with_nothing_to_ask_sends_state_alone() {
    let h = harness();
    let response = h.flow.run(req("ada", "t").call().unwrap(), |_| {
        Err::<String, _>(Stop::Ask)
    });
    let Ok(Response::InputRequired(result)) = response else {
        panic!()
    };
    assert!(result.input_requests().is_none());
    assert!(result.request_state().is_some());
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
