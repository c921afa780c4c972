//! `Report::user_message`: golden wording for every reason, by field title,
//! never echoing what was submitted.

#![allow(clippy::panic, reason = "a test fails by panicking; inputs are fixed")]

use mrtr_guard::form::{Reason, Verdict};
use mrtr_guard::{Field, Form, Report};
use serde_json::{Value, json};

fn form() -> Form {
    Form::builder("Tell us about your team")
        .field(Field::string("name").min_length(2).max_length(5).required())
        .field(Field::string("nick").min_length(1).max_length(1))
        .field(Field::email("email").title("Work email"))
        .field(Field::uri("site"))
        .field(Field::date("day"))
        .field(Field::date_time("at"))
        .field(Field::integer("teamSize").minimum(2).maximum(50))
        .field(Field::integer("seats").minimum(0).maximum(u64::MAX))
        .field(Field::integer("count"))
        .field(Field::number("ratio").minimum(-0.5).maximum(1.5))
        .field(Field::boolean("ok"))
        .field(Field::choice("plan").titled_option("pro", "Pro"))
        .field(
            Field::multi_choice("roles")
                .options(["admin", "member", "billing"])
                .min_items(1)
                .max_items(2),
        )
        .field(
            Field::multi_choice("tags")
                .options(["a", "b"])
                .min_items(2)
                .refuse_duplicates(),
        )
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The report for `content`, whether invalid or accepted with drops.
fn report(form: &Form, content: Value) -> Report {
    match form.validate(&json!({"action": "accept", "content": content})) {
        Verdict::Invalid(r) => r,
        Verdict::Accepted(a) => a.report().clone(),
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn every_reason_has_golden_words() {
    let form = form();
    let cases: Vec<(Value, Reason, &str)> = vec![
        (json!({}), Reason::Missing, "Name: an answer is required."),
        (json!({"name": null}), Reason::Null, "Name: must be text."),
        (json!({"name": 7}), Reason::WrongType, "Name: must be text."),
        (
            json!({"name": "A"}),
            Reason::TooShort,
            "Name: must be at least 2 characters.",
        ),
        (
            json!({"name": "Adalovelace"}),
            Reason::TooLong,
            "Name: must be at most 5 characters.",
        ),
        (
            json!({"name": "Ada", "nick": ""}),
            Reason::TooShort,
            "Nick: must not be empty.",
        ),
        (
            json!({"name": "Ada", "nick": "xy"}),
            Reason::TooLong,
            "Nick: must be at most 1 character.",
        ),
        (
            json!({"name": "Ada", "email": "ada"}),
            Reason::BadFormat,
            "Work email: not a valid email address.",
        ),
        (
            json!({"name": "Ada", "email": 1}),
            Reason::WrongType,
            "Work email: must be an email address.",
        ),
        (
            json!({"name": "Ada", "site": "example"}),
            Reason::BadFormat,
            "Site: not a valid URI (such as https://example.com).",
        ),
        (
            json!({"name": "Ada", "day": "29/02/2024"}),
            Reason::BadFormat,
            "Day: not a valid date (YYYY-MM-DD).",
        ),
        (
            json!({"name": "Ada", "at": "noon"}),
            Reason::BadFormat,
            "At: not a valid date and time (YYYY-MM-DDThh:mm:ssZ).",
        ),
        (
            json!({"name": "Ada", "teamSize": 99}),
            Reason::AboveMaximum,
            "Team Size: must be at most 50.",
        ),
        (
            json!({"name": "Ada", "teamSize": 1}),
            Reason::BelowMinimum,
            "Team Size: must be at least 2.",
        ),
        (
            json!({"name": "Ada", "teamSize": 2.5}),
            Reason::NotAnInteger,
            "Team Size: must be a whole number.",
        ),
        (
            json!({"name": "Ada", "teamSize": "3"}),
            Reason::WrongType,
            "Team Size: must be a whole number.",
        ),
        (
            json!({"name": "Ada", "seats": 1e300}),
            Reason::OutOfRange,
            "Seats: must be between 0 and 18446744073709551615.",
        ),
        (
            json!({"name": "Ada", "count": 1e300}),
            Reason::OutOfRange,
            "Count: is out of range.",
        ),
        (
            json!({"name": "Ada", "ratio": 2}),
            Reason::AboveMaximum,
            "Ratio: must be at most 1.5.",
        ),
        (
            json!({"name": "Ada", "ratio": -1}),
            Reason::BelowMinimum,
            "Ratio: must be at least -0.5.",
        ),
        (
            json!({"name": "Ada", "ratio": "1"}),
            Reason::WrongType,
            "Ratio: must be a number.",
        ),
        (
            json!({"name": "Ada", "ok": "yes"}),
            Reason::WrongType,
            "Ok: must be yes or no.",
        ),
        (
            json!({"name": "Ada", "plan": "enterprise"}),
            Reason::NotOffered,
            "Plan: not one of the options.",
        ),
        (
            json!({"name": "Ada", "plan": ["pro"]}),
            Reason::WrongType,
            "Plan: must be one of the options.",
        ),
        (
            json!({"name": "Ada", "roles": ["owner"]}),
            Reason::NotOffered,
            "Roles: includes a choice that is not one of the options.",
        ),
        (
            json!({"name": "Ada", "roles": []}),
            Reason::TooFewItems,
            "Roles: choose at least 1 option.",
        ),
        (
            json!({"name": "Ada", "roles": ["admin", "member", "billing"]}),
            Reason::TooManyItems,
            "Roles: choose at most 2 options.",
        ),
        (
            json!({"name": "Ada", "roles": "admin"}),
            Reason::WrongType,
            "Roles: must be a choice of the options.",
        ),
        (
            json!({"name": "Ada", "tags": ["a", "a"]}),
            Reason::DuplicateItem,
            "Tags: choose each option at most once.",
        ),
        (
            json!({"name": "Ada", "tags": ["a"]}),
            Reason::TooFewItems,
            "Tags: choose at least 2 options.",
        ),
    ];
    for (content, reason, golden) in cases {
        let r = report(&form, content.clone());
        assert_eq!(r.issues().len(), 1, "{content}: {r}");
        assert_eq!(r.issues()[0].reason(), reason, "{content}");
        assert_eq!(r.user_message(&form), golden, "{content}");
    }
}

#[test]
fn several_fields_read_in_the_forms_order() {
    let form = Form::builder("Your team")
        .field(Field::email("email").required())
        .field(
            Field::integer("teamSize")
                .title("Team size")
                .maximum(50)
                .required(),
        )
        .field(Field::string("about").max_length(3))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let r = report(
        &form,
        json!({"teamSize": 51, "email": "not-an-email", "about": "long text"}),
    );
    assert_eq!(
        r.user_message(&form),
        "Email: not a valid email address. Team size: must be at most 50. \
         About: must be at most 3 characters."
    );
}

#[test]
fn the_message_never_echoes_what_was_sent() {
    let form = form();
    let secret = "hunter2 SECRET";
    let r = report(
        &form,
        json!({"name": secret, "email": secret, "site": secret, "plan": secret,
               "roles": [secret], "teamSize": secret, secret: secret}),
    );
    let message = r.user_message(&form);
    assert!(!message.contains("hunter2"), "{message}");
    assert!(!message.contains("SECRET"), "{message}");
    assert_eq!(r.issues().len(), 6, "{r}");
}

#[test]
fn whole_result_problems_and_clean_reports() {
    let form = form();
    let Verdict::Invalid(r) = form.validate(&json!({"action": "maybe"})) else {
        panic!("a bad action is invalid")
    };
    assert_eq!(
        r.user_message(&form),
        "The answer could not be read; please try again."
    );
    assert_eq!(Report::default().user_message(&form), "");
    // Fix-ups are not the user's to fix: removed duplicates say nothing.
    let deduped = report(&form, json!({"name": "Ada", "roles": ["admin", "admin"]}));
    assert_eq!(deduped.deduplicated(), ["roles"]);
    assert_eq!(deduped.user_message(&form), "");
}
