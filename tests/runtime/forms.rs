//! Forms in a round (issue 20), in process: an invalid optional answer is
//! asked again rather than dropped, unless the field or the form opts back
//! into dropping; `?` on a form that does not build; the flow id a handler
//! builds idempotency keys from.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::sync::Mutex;

use mrtr_guard::form::{FormError, Reason, Verdict};
use mrtr_guard::runtime::AbortReason;
use mrtr_guard::{Field, Flow, Form, Reply, Round, RoundEnd, RpcError, Stop};
use mrtr_guard_test_support::{accept, asked, harness, req};
use serde_json::{Value, json};

/// A booking: a required topic, an optional bounded count, an optional date.
fn booking() -> mrtr_guard::form::FormBuilder {
    Form::builder("Book a meeting")
        .field(Field::string("topic").max_length(60).required())
        .field(Field::integer("attendees").minimum(1).maximum(40))
        .field(Field::date("startsOn").title("Start date"))
}

/// One round of `handler`, answering "book" with `content` under `state`.
fn round_of(
    flow: &Flow,
    answer: Option<(&Value, &str)>,
    handler: impl FnOnce(&mut Round<'_>) -> Result<String, Stop>,
) -> Result<RoundEnd<String>, RpcError> {
    let mut r = req("ada", "book_meeting");
    if let Some((content, state)) = answer {
        r = r.answer(json!({"book": accept(content.clone())}), Some(state));
    }
    flow.run(r.call()?, handler)
}

/// One round of a tool that asks `form` under "book" and says what it got.
fn run(
    flow: &Flow,
    form: &Form,
    answer: Option<(&Value, &str)>,
) -> Result<RoundEnd<String>, RpcError> {
    round_of(flow, answer, |round| match round.form("book", form) {
        Reply::Accepted(a) => Ok(format!(
            "{} attendees={:?} startsOn={:?}",
            a.str("topic")?,
            a.get("attendees").is_some(),
            a.get("startsOn").is_some()
        )),
        _ => Err(Stop::Ask),
    })
}

fn message(result: &Value) -> &str {
    result["inputRequests"]["book"]["params"]["message"]
        .as_str()
        .unwrap()
}

#[test]
fn an_invalid_optional_answer_is_asked_again_and_three_end_the_flow() {
    let h = harness();
    let form = booking().build().unwrap();
    // The standalone validator keeps its rule: the value is dropped, reported.
    let out_of_bounds = json!({"topic": "Plan", "attendees": 100});
    let Verdict::Accepted(answers) = form.validate(&accept(out_of_bounds.clone())) else {
        panic!("the standalone validator drops an invalid optional value")
    };
    assert_eq!(
        answers.report().reason("attendees"),
        Some(Reason::AboveMaximum)
    );

    let (_, mut state) = asked(&run(&h.flow, &form, None));
    let bad_date = json!({"topic": "Plan", "startsOn": "2027-02-30"});
    for (attempt, content) in [&out_of_bounds, &bad_date].into_iter().enumerate() {
        let again = run(&h.flow, &form, Some((content, &state)));
        let (result, next) = asked(&again);
        let text = message(&result);
        assert!(
            text.starts_with("Book a meeting\n\nPlease correct: "),
            "{attempt}: {text}"
        );
        let named = if attempt == 0 {
            "Attendees: must be at most 40."
        } else {
            "Start date:"
        };
        assert!(text.contains(named), "{attempt}: {text}");
        assert!(
            !text.contains("100") && !text.contains("2027-02-30"),
            "{text}"
        );
        state = next;
    }
    // The third invalid answer in a row ends the flow.
    let third = run(
        &h.flow,
        &form,
        Some((&json!({"topic": "Plan", "attendees": 0}), &state)),
    );
    assert!(
        matches!(&third, Ok(RoundEnd::Aborted(AbortReason::InvalidAnswers { key })) if key == "book"),
        "{third:?}"
    );
}

#[test]
fn a_corrected_answer_completes() {
    let h = harness();
    let form = booking().build().unwrap();
    let (_, state) = asked(&run(&h.flow, &form, None));
    let (_, state) = asked(&run(
        &h.flow,
        &form,
        Some((&json!({"topic": "Plan", "attendees": 0}), &state)),
    ));
    let done = run(
        &h.flow,
        &form,
        Some((&json!({"topic": "Plan", "attendees": 3}), &state)),
    );
    assert_eq!(
        done,
        Ok(RoundEnd::Complete(
            "Plan attendees=true startsOn=false".into()
        ))
    );
}

#[test]
fn the_opt_out_restores_dropping_for_a_field_or_a_form() {
    let h = harness();
    let field_opt_out = Form::builder("Book a meeting")
        .field(Field::string("topic").max_length(60).required())
        .field(
            Field::integer("attendees")
                .minimum(1)
                .maximum(40)
                .drop_if_invalid(),
        )
        .field(Field::date("startsOn").title("Start date"))
        .build()
        .unwrap();
    let form_opt_out = booking().drop_invalid_optional().build().unwrap();
    let both_bad = json!({"topic": "Plan", "attendees": 100, "startsOn": "next tuesday"});
    let only_attendees = json!({"topic": "Plan", "attendees": 100});
    // The field that drops: accepted without it. The other still asks again.
    let (_, state) = asked(&run(&h.flow, &field_opt_out, None));
    let done = run(&h.flow, &field_opt_out, Some((&only_attendees, &state)));
    assert_eq!(
        done,
        Ok(RoundEnd::Complete(
            "Plan attendees=false startsOn=false".into()
        ))
    );
    let (_, state) = asked(&run(&h.flow, &field_opt_out, None));
    let (result, _) = asked(&run(&h.flow, &field_opt_out, Some((&both_bad, &state))));
    assert!(message(&result).contains("Start date:"), "{result}");
    // The whole form drops: both dropped, accepted.
    let (_, state) = asked(&run(&h.flow, &form_opt_out, None));
    let done = run(&h.flow, &form_opt_out, Some((&both_bad, &state)));
    assert_eq!(
        done,
        Ok(RoundEnd::Complete(
            "Plan attendees=false startsOn=false".into()
        ))
    );
    // A required field cannot drop.
    assert_eq!(
        Form::builder("x")
            .field(Field::string("topic").drop_if_invalid().required())
            .build(),
        Err(FormError::DropOnRequired {
            field: "topic".into()
        })
    );
}

#[test]
fn a_required_multi_choice_accepts_none_picked_unless_min_items() {
    let roles = |f: Field| {
        Form::builder("Roles?")
            .field(f.options(["admin", "member"]).required())
            .build()
            .unwrap()
    };
    let none = accept(json!({"roles": []}));
    let plain = roles(Field::multi_choice("roles"));
    assert!(
        matches!(plain.validate(&none), Verdict::Accepted(a) if a.strings("roles").unwrap().is_empty())
    );
    let at_least_one = roles(Field::multi_choice("roles").min_items(1));
    let Verdict::Invalid(report) = at_least_one.validate(&none) else {
        panic!("min_items 1 refuses []")
    };
    assert_eq!(report.reason("roles"), Some(Reason::TooFewItems));
}

#[test]
fn question_mark_on_a_form_that_does_not_build_keeps_the_reason() {
    let h = harness();
    let response = h
        .flow
        .run(req("ada", "book_meeting").call().unwrap(), |round| {
            let form = Form::builder("Seats?")
                .field(Field::integer("seats").minimum(9).maximum(1))
                .build()?;
            round.require("seats", &form)?;
            Ok(String::new())
        });
    let error = response.unwrap_err();
    assert_eq!(error.to_json(), RpcError::internal_error().to_json());
    let misuse = error.misuse().expect("the reason is kept on the error");
    assert_eq!(misuse.code(), "invalid_form");
    assert!(misuse.to_string().contains("field \"seats\""), "{misuse}");
    let source = std::error::Error::source(&error).and_then(std::error::Error::source);
    assert!(
        source.and_then(|e| e.downcast_ref::<FormError>()).is_some(),
        "the FormError is the misuse's source"
    );
}

#[test]
fn the_flow_id_is_stable_across_rounds_and_differs_between_flows() {
    let h = harness();
    let form = booking().build().unwrap();
    let seen = Mutex::new(Vec::new());
    let round = |answer: Option<(&Value, &str)>| {
        round_of(&h.flow, answer, |round| {
            seen.lock().unwrap().push(round.flow_id()?.to_string());
            round.require("book", &form)?;
            Ok(String::new())
        })
    };
    let (_, state) = asked(&round(None));
    let (_, state) = asked(&round(Some((
        &json!({"topic": "Plan", "attendees": 0}),
        &state,
    ))));
    round(Some((&json!({"topic": "Plan"}), &state))).unwrap();
    asked(&round(None));
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[0].len(), 32, "128 bits, in hex");
    assert!(seen[0] == seen[1] && seen[1] == seen[2], "{seen:?}");
    assert_ne!(seen[0], seen[3], "a new flow has a new id");
}
