//! Feature `metrics`: what the codec and the runtime record through the
//! `metrics` facade, seen by a small recorder of the test's own, installed
//! for one thread (`metrics::with_local_recorder`).

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use metrics::{
    Counter, CounterFn, Gauge, GaugeFn, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder,
    SharedString, Unit,
};
use mrtr_guard::metrics::{
    FLOWS_ENDED, REASKS, REPLAY_GUARD_CALLS, REPLAY_GUARD_SECONDS, STATE_REFUSED,
};
use mrtr_guard::{Field, Form, MemoryReplayGuard, RoundEnd, RpcError};
use mrtr_guard_test_support::*;
use serde_json::json;

/// Every series as `name{label=value,...}`, with its count (counters:
/// the sum of increments; histograms: the number of samples).
#[derive(Debug, Clone, Default)]
struct Seen(Arc<Mutex<BTreeMap<String, f64>>>);

impl Seen {
    fn value(&self, series: &str) -> f64 {
        let seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        seen.get(series).copied().unwrap_or_default()
    }

    fn add(&self, series: &str, by: f64) {
        let mut seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        *seen.entry(series.to_owned()).or_default() += by;
    }

    fn handle(&self, key: &Key) -> Arc<Handle> {
        let labels: Vec<String> = key
            .labels()
            .map(|label| format!("{}={}", label.key(), label.value()))
            .collect();
        let series = if labels.is_empty() {
            key.name().to_owned()
        } else {
            format!("{}{{{}}}", key.name(), labels.join(","))
        };
        Arc::new(Handle {
            seen: self.clone(),
            series,
        })
    }
}

#[derive(Debug)]
struct Handle {
    seen: Seen,
    series: String,
}

impl CounterFn for Handle {
    fn increment(&self, value: u64) {
        self.seen.add(&self.series, value as f64);
    }

    fn absolute(&self, _: u64) {
        panic!("the crate never sets a counter");
    }
}

impl GaugeFn for Handle {
    fn increment(&self, value: f64) {
        self.seen.add(&self.series, value);
    }

    fn decrement(&self, value: f64) {
        self.seen.add(&self.series, -value);
    }

    fn set(&self, value: f64) {
        let mut seen = self.seen.0.lock().unwrap_or_else(PoisonError::into_inner);
        seen.insert(self.series.clone(), value);
    }
}

impl HistogramFn for Handle {
    fn record(&self, value: f64) {
        assert!((0.0..10.0).contains(&value), "{value} seconds");
        self.seen.add(&self.series, 1.0);
    }
}

impl Recorder for Seen {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        Counter::from_arc(self.handle(key))
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::from_arc(self.handle(key))
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::from_arc(self.handle(key))
    }
}

/// Runs `f` with a fresh recorder on this thread; returns what it saw.
fn recorded<R>(f: impl FnOnce() -> R) -> (R, Seen) {
    let seen = Seen::default();
    let result = metrics::with_local_recorder(&seen, f);
    (result, seen)
}

fn ship() -> Form {
    Form::builder("Tracking number?")
        .field(Field::string("trackingNumber").required())
        .build()
        .unwrap()
}

fn run(h: &Harness, req: &Req) -> Result<RoundEnd<String>, RpcError> {
    let ship = ship();
    h.flow.run(req.call()?, |round| {
        let answers = round.require("ship", &ship)?;
        Ok(answers.str("trackingNumber")?.to_owned())
    })
}

/// One flow through a replay guard: asked, an invalid answer asked again,
/// completed; its state presented again, and one of another user.
#[test]
fn a_flow_counts_its_reask_its_end_its_guard_calls_and_its_refusals() {
    let h = harness_with(|codec| codec.replay_guard(Arc::new(MemoryReplayGuard::new(64))));
    let ((), seen) = recorded(|| {
        let (_, state) = asked(&run(&h, &req("ada", "ShipOrder")));
        let invalid = json!({"ship": accept(json!({"trackingNumber": 42}))});
        let (_, state) = asked(&run(
            &h,
            &req("ada", "ShipOrder").answer(invalid, Some(&state)),
        ));
        let valid = json!({"ship": accept(json!({"trackingNumber": "1Z9"}))});
        let retry = req("ada", "ShipOrder").answer(valid, Some(&state));
        assert_eq!(run(&h, &retry), complete("1Z9"));
        assert!(run(&h, &retry).is_err(), "replayed");
        let mut stolen = retry.clone();
        stolen.user = Some("mallory");
        assert!(run(&h, &stolen).is_err(), "forged");
    });
    assert_eq!(seen.value(REASKS), 1.0);
    assert_eq!(seen.value(&format!("{FLOWS_ENDED}{{end=completed}}")), 1.0);
    assert_eq!(
        seen.value(&format!("{STATE_REFUSED}{{reason=replayed}}")),
        1.0
    );
    assert_eq!(
        seen.value(&format!("{STATE_REFUSED}{{reason=forged}}")),
        1.0
    );
    // Three states opened (ask, re-ask, complete), the third twice.
    assert_eq!(
        seen.value(&format!("{REPLAY_GUARD_CALLS}{{outcome=recorded}}")),
        2.0
    );
    assert_eq!(
        seen.value(&format!("{REPLAY_GUARD_CALLS}{{outcome=replayed}}")),
        1.0
    );
    assert_eq!(seen.value(REPLAY_GUARD_SECONDS), 3.0, "one sample per call");
}

/// A declined form and three invalid answers in a row each end the flow,
/// with their own `end`; the last invalid answer is not a re-ask.
#[test]
fn each_end_of_a_flow_has_its_own_label() {
    let h = harness();
    let ((), seen) = recorded(|| {
        let (_, state) = asked(&run(&h, &req("ada", "ShipOrder")));
        let declined = json!({"ship": {"action": "decline"}});
        let retry = req("ada", "ShipOrder").answer(declined, Some(&state));
        assert!(matches!(run(&h, &retry), Ok(RoundEnd::Declined { .. })));

        let (_, mut state) = asked(&run(&h, &req("ada", "ShipOrder")));
        for _ in 0..3 {
            let invalid = json!({"ship": accept(json!({"trackingNumber": 42}))});
            let retry = req("ada", "ShipOrder").answer(invalid, Some(&state));
            match run(&h, &retry) {
                Ok(RoundEnd::InputRequired(result)) => {
                    state = result.request_state().unwrap().to_owned();
                }
                Ok(RoundEnd::Aborted(_)) => {}
                other => panic!("{other:?}"),
            }
        }
    });
    assert_eq!(seen.value(&format!("{FLOWS_ENDED}{{end=declined}}")), 1.0);
    assert_eq!(
        seen.value(&format!("{FLOWS_ENDED}{{end=invalid_answers}}")),
        1.0
    );
    assert_eq!(seen.value(&format!("{FLOWS_ENDED}{{end=completed}}")), 0.0);
    assert_eq!(seen.value(REASKS), 2.0);
    assert_eq!(seen.value(REPLAY_GUARD_SECONDS), 0.0, "no guard, no call");
}
