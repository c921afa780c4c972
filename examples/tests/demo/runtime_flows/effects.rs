//! Side effects under `Round::once`: once per flow across rounds, and again
//! for an older state presented again unless a replay guard refuses it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mrtr_guard::{MemoryReplayGuard, RpcError, Stop};
use mrtr_guard_test_support::*;
use serde_json::json;

use super::tools::FORMS;

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
