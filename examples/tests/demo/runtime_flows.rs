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

use std::sync::{Arc, LazyLock};

use mrtr_guard_examples::{conformance_forms, signup_tools};
use mrtr_guard_test_support::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use mrtr_guard::runtime::{AbortReason, Clock as _, Misuse};
use mrtr_guard::wire::{ClientCapabilities, SamplingRequest};
use mrtr_guard::{
    Binding, Field, Form, MemoryReplayGuard, Method, Policy, Reply, RoundEnd, RpcError, StateError,
    Stop,
};
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

/// The demo's forms, built once.
static FORMS: LazyLock<signup_tools::Forms> = LazyLock::new(|| signup_tools::forms().unwrap());

/// Runs the demo tool `req.tool` for one round.
fn run(flow: &mrtr_guard::Flow, req: &Req) -> Result<RoundEnd<String>, RpcError> {
    flow.run(req.call()?, |round| signup_tools::run_tool(round, &FORMS))
}

fn bad_state() -> Result<RoundEnd<String>, RpcError> {
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
fn a_flow_at_its_round_cap_ends_with_a_clear_failure() {
    let h = harness_with(|b| b.policy(policy_rounds(2)));
    let (_, s1) = asked(&run(&h.flow, &req("ada", "signup")));
    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "team"}))});
    let (_, s2) = asked(&run(
        &h.flow,
        &req("ada", "signup").answer(account, Some(&s1)),
    ));
    // A third ask would exceed two rounds: the flow ends, saying so; the
    // state itself was fine.
    let team = json!({"team": accept(json!({"teamSize": 3, "roles": ["admin"]}))});
    let ended = run(&h.flow, &req("ada", "signup").answer(team, Some(&s2)));
    let failure = AbortReason::TooManyRounds { max_rounds: 2 };
    assert_eq!(ended, Ok(RoundEnd::Aborted(failure.clone())));
    assert!(failure.to_string().contains("2 rounds"), "{failure}");
}

/// A state that opens just before the flow's deadline, in a round that asks
/// once the deadline has passed: a clear failure, not the state error.
#[test]
fn a_flow_that_reaches_its_deadline_while_asking_ends_with_a_clear_failure() {
    /// Reads the times it holds one by one, then keeps the last.
    #[derive(Debug)]
    struct Times(Mutex<Vec<OffsetDateTime>>);
    impl mrtr_guard::runtime::Clock for Times {
        fn now(&self) -> OffsetDateTime {
            let mut times = self.0.lock().unwrap();
            if times.len() > 1 {
                times.remove(0)
            } else {
                times[0]
            }
        }
    }
    // A round TTL as long as the flow's: round 1's state opens until the
    // deadline. Round 2 opens it a second before and mints at the deadline.
    let deadline = t0() + Policy::DEFAULT_FLOW_TTL;
    let times = vec![t0(), deadline - Duration::seconds(1), deadline];
    let policy = Policy::default().with_ttl(Policy::DEFAULT_FLOW_TTL);
    let flow = harness_with(|b| b.policy(policy))
        .flow
        .with_clock(Arc::new(Times(Mutex::new(times))));
    let (_, s1) = asked(&run(&flow, &req("ada", "ShipOrder")));
    let bad = json!({"ship": accept(json!({"trackingNumber": ""}))});
    let ended = run(&flow, &req("ada", "ShipOrder").answer(bad, Some(&s1)));
    assert_eq!(ended, Ok(RoundEnd::Aborted(AbortReason::DeadlinePassed)));
    assert!(
        AbortReason::DeadlinePassed
            .to_string()
            .contains("time limit")
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
    let refused = |response: Result<RoundEnd<String>, RpcError>, reason: &str| {
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

    // A state past the round cap: minted under a roomier policy, presented
    // after the cap was lowered to one round.
    let roomy = harness();
    let (_, s1) = asked(&run(&roomy.flow, &req("ada", "signup")));
    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "pro"}))});
    let (_, s2) = asked(&run(
        &roomy.flow,
        &req("ada", "signup").answer(account, Some(&s1)),
    ));
    let confirm = json!({"confirm": {"action": "accept"}});
    let next = req("ada", "signup").answer(confirm, Some(&s2));
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

// ---- re-asks that say why ------------------------------------------------------------

fn message_of(result: &Value, key: &str) -> String {
    result["inputRequests"][key]["params"]["message"]
        .as_str()
        .unwrap()
        .to_owned()
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

// ---- bounded growth --------------------------------------------------------------------

/// The conformance fixture's `multi_round` tool, as it reads there.
fn multi_round(round: &mut mrtr_guard::Round<'_>) -> Result<String, Stop> {
    let name = round.require("step1", &conformance_forms::NAME)?;
    let color = round.require("step2", &conformance_forms::COLOR)?;
    Ok(format!(
        "{} likes {}.",
        name.str("name")?,
        color.str("color")?
    ))
}

/// The conformance fixture's `multiple_inputs` tool, as it reads there.
fn multiple_inputs(round: &mut mrtr_guard::Round<'_>) -> Result<String, Stop> {
    let name = round.form("user_name", &conformance_forms::NAME);
    let sampled = round.sample("capital_question", &conformance_forms::capital());
    let roots = round.roots("client_roots");
    match (name, sampled, roots) {
        (Reply::Accepted(name), Reply::Accepted(sampled), Reply::Accepted(roots)) => Ok(format!(
            "{}; {}; {} root(s)",
            name.str("name")?,
            sampled.text().unwrap_or("(no text)"),
            roots.roots.len()
        )),
        _ => Err(Stop::Ask),
    }
}

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

// ---- side effects ----------------------------------------------------------------------

/// The signup handler with a welcome email between the account and the
/// confirmation: an effect followed by an ask.
fn signup_with_email(
    round: &mut mrtr_guard::Round<'_>,
    sent: &AtomicUsize,
) -> Result<String, Stop> {
    let account = round.require("account", &FORMS.account)?;
    round.once("welcome-email", || sent.fetch_add(1, Ordering::SeqCst));
    round.require("confirm", &FORMS.confirm)?;
    Ok(account.str("email")?.to_owned())
}

#[test]
fn an_effect_runs_once_per_flow_across_rounds() {
    let h = harness();
    let sent = AtomicUsize::new(0);
    let handler = |round: &mut mrtr_guard::Round<'_>| signup_with_email(round, &sent);
    let r = req("ada", "signup");
    let (_, s1) = asked(&h.flow.run(r.call().unwrap(), handler));
    assert_eq!(sent.load(Ordering::SeqCst), 0, "not reached yet");
    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "pro"}))});
    let (_, s2) = asked(&h.flow.run(
        r.clone().answer(account, Some(&s1)).call().unwrap(),
        handler,
    ));
    assert_eq!(sent.load(Ordering::SeqCst), 1);
    // An invalid confirmation: one more round, no second email.
    let bad = json!({"confirm": {"action": "maybe"}});
    let (_, s3) = asked(
        &h.flow
            .run(r.clone().answer(bad, Some(&s2)).call().unwrap(), handler),
    );
    let confirm = json!({"confirm": {"action": "accept"}});
    let done = h
        .flow
        .run(r.answer(confirm, Some(&s3)).call().unwrap(), handler);
    assert_eq!(done, complete("ada@example.com"));
    assert_eq!(sent.load(Ordering::SeqCst), 1, "once across rounds");

    // In the round that completes, the effect runs once too.
    let h = harness();
    let shipped = AtomicUsize::new(0);
    let ship = |round: &mut mrtr_guard::Round<'_>| -> Result<String, Stop> {
        let answers = round.require("ship", &FORMS.ship)?;
        round.once("ship", || shipped.fetch_add(1, Ordering::SeqCst));
        Ok(answers.str("trackingNumber")?.to_owned())
    };
    let r = req("ada", "ShipOrder");
    let (_, s1) = asked(&h.flow.run(r.call().unwrap(), ship));
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z"}))});
    assert_eq!(
        h.flow
            .run(r.answer(answer, Some(&s1)).call().unwrap(), ship),
        complete("1Z")
    );
    assert_eq!(shipped.load(Ordering::SeqCst), 1);
}

/// The marker rides in the state the effect's round mints: a state from
/// before the effect, presented again, runs it again, unless a replay guard
/// refuses the second presentation.
#[test]
fn an_older_state_presented_again_reruns_the_effect_unless_a_replay_guard_refuses_it() {
    let account = json!({"account": accept(json!({"email": "ada@example.com", "plan": "pro"}))});
    for guarded in [false, true] {
        let h = if guarded {
            harness_with(|b| b.replay_guard(Arc::new(MemoryReplayGuard::new(100))))
        } else {
            harness()
        };
        let sent = AtomicUsize::new(0);
        let handler = |round: &mut mrtr_guard::Round<'_>| signup_with_email(round, &sent);
        let r = req("ada", "signup");
        let (_, s1) = asked(&h.flow.run(r.call().unwrap(), handler));
        let retry = r.answer(account.clone(), Some(&s1));
        let _ = asked(&h.flow.run(retry.call().unwrap(), handler));
        let again = h.flow.run(retry.call().unwrap(), handler);
        if guarded {
            assert_eq!(again.unwrap_err(), RpcError::invalid_request_state());
            assert_eq!(sent.load(Ordering::SeqCst), 1);
        } else {
            let _ = asked(&again);
            assert_eq!(sent.load(Ordering::SeqCst), 2);
        }
    }
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
