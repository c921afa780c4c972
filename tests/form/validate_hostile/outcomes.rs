//! Every hostile case gets its documented outcome, never a panic; responses
//! missing or not objects; reports that never hold a submitted value.

use mrtr_guard::form::{Problem, Reason, Verdict};
use serde_json::json;

use super::case::{check, every_case, form};

#[test]
fn hostile_cases_get_their_documented_outcome() {
    let form = form();
    let cases = every_case();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    for (name, bytes, expect, limits) in &cases {
        check(name, &form, bytes, expect, limits);
    }
    println!("hostile cases: {}", cases.len());
}

#[test]
fn missing_response_and_bad_input_responses() {
    let form = form();
    assert_eq!(
        form.validate_response(&json!({"other": {"action": "accept"}}), "ship"),
        Verdict::Missing
    );
    assert_eq!(
        form.validate_response(&json!({"ship": {"action": "decline"}}), "ship"),
        Verdict::Declined
    );
    for bad in [json!(null), json!("x"), json!([]), json!(12345)] {
        let Verdict::Invalid(r) = form.validate_response(&bad, "ship") else {
            panic!("{bad}")
        };
        assert_eq!(r.problem(), Some(Problem::ResponsesNotAnObject));
    }
    let Verdict::Invalid(r) = form.validate_response(&json!({"ship": 12345}), "ship") else {
        panic!()
    };
    assert_eq!(r.problem(), Some(Problem::NotAnObject));
}

#[test]
fn reports_never_contain_submitted_values() {
    let form = form();
    let secret = "sk-live-SECRET-7f3a9c";
    let result = json!({
        "action": "accept",
        "content": {
            "name": format!("{secret}{secret}"),
            "age": secret,
            "email": secret,
            "color": secret,
            "tags": [secret],
            "unknown": secret,
        }
    });
    let outcome = form.validate(&result);
    let Verdict::Invalid(report) = &outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(report.reason("name"), Some(Reason::TooLong));
    assert_eq!(report.stripped(), ["unknown"]);
    for text in [
        report.to_string(),
        format!("{report:?}"),
        format!("{outcome:?}"),
        format!("{report:#?}"),
    ] {
        assert!(!text.contains("SECRET"), "report leaks a value: {text}");
    }
    // Accepted answers print field names only.
    let ok = form.validate(&json!({"action": "accept", "content": {"name": "SECRET"}}));
    assert!(!format!("{ok:?}").contains("SECRET"));
}
