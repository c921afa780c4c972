//! Every way a retry's state is refused: bound to another user, tool,
//! method or arguments; tampered; expired; past the flow's deadline or
//! round cap; replayed under a guard; and the reason kept off the wire.

use std::sync::{Arc, Mutex};

use mrtr_guard::runtime::AbortReason;
use mrtr_guard::{MemoryReplayGuard, Method, Policy, RoundEnd, RpcError, StateError};
use mrtr_guard_test_support::*;
use serde_json::json;
use time::{Duration, OffsetDateTime};

use super::tools::{bad_state, run};

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
