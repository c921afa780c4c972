//! What each string format accepts, through a form as a server uses it: the
//! default `email` is an address a person types (the profile browsers apply
//! to `type=email`, with a dotted domain); RFC 5321's whole mailbox grammar
//! is an opt-in.

#![allow(clippy::panic, reason = "a test fails by panicking; inputs are fixed")]

use mrtr_guard::form::{Format, Verdict};
use mrtr_guard::{Field, Form};
use serde_json::json;

fn form(field: Field) -> Form {
    Form::builder("Where do we write?")
        .field(field.required())
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn accepts(form: &Form, value: &str) -> bool {
    match form.validate(&json!({"action": "accept", "content": {"to": value}})) {
        Verdict::Accepted(_) => true,
        Verdict::Invalid(_) => false,
        other => panic!("{value:?}: {other:?}"),
    }
}

/// Addresses people type, in the shapes mail providers hand out.
const TYPED: &[&str] = &[
    "ada@example.com",
    "ada.lovelace@mail.example.co.uk",
    "ada+newsletter@example.com",
    "o'brien@example.ie",
    "first_last-1@sub-domain.example.org",
    "ADA@EXAMPLE.COM",
    "x@a.io",
    "te~st@example.com",
];

/// Valid RFC 5321 mailboxes that no form's user means, and that mail code
/// downstream mishandles: quoted local parts (here one that reads as two
/// addresses to a careless parser), address literals, single-label domains.
const RFC_ONLY: &[&str] = &[
    "\"x>, <victim@t.example\"@example.com",
    "\"\"@example.com",
    "\"joe bloggs\"@example.com",
    "\"joe@bloggs\"@example.com",
    "ada@[127.0.0.1]",
    "ada@[IPv6:::1]",
    "ada@localhost",
];

/// Not an address in either profile.
const NEITHER: &[&str] = &[
    "ada",
    "@example.com",
    "ada@",
    "ada@@example.com",
    ".ada@example.com",
    "ada.@example.com",
    "a..da@example.com",
    "ada@example..com",
    "ada@-example.com",
    "ada@example-.com",
    "ada@example.com.",
    "Ada <ada@example.com>",
    "ada@example.com, eve@example.com",
    "ada lovelace@example.com",
    "jöe@example.com",
    "ada@exämple.com",
    "ada@[127.0.0.300]",
];

#[test]
fn the_default_email_is_an_address_a_person_types() {
    let form = form(Field::email("to"));
    for value in TYPED {
        assert!(accepts(&form, value), "refused {value:?}");
    }
    for value in RFC_ONLY.iter().chain(NEITHER) {
        assert!(!accepts(&form, value), "accepted {value:?}");
    }
}

#[test]
fn rfc_5321_mailboxes_are_an_opt_in() {
    let form = form(Field::string("to").format(Format::EmailRfc5321));
    for value in TYPED.iter().chain(RFC_ONLY) {
        assert!(accepts(&form, value), "refused {value:?}");
    }
    for value in NEITHER {
        assert!(!accepts(&form, value), "accepted {value:?}");
    }
}

#[test]
fn both_are_sent_as_format_email() {
    for field in [
        Field::email("to"),
        Field::string("to").format(Format::EmailRfc5321),
    ] {
        let schema = form(field).requested_schema();
        assert_eq!(schema["properties"]["to"]["format"], json!("email"));
    }
}

#[test]
fn length_limits_hold_in_both() {
    let local = format!("{}@example.com", "a".repeat(65));
    let label = format!("ada@{}.com", "a".repeat(64));
    let long = format!("ada@{}.com", vec!["a".repeat(60); 5].join("."));
    for form in [
        form(Field::email("to")),
        form(Field::string("to").format(Format::EmailRfc5321)),
    ] {
        for value in [&local, &label, &long] {
            assert!(!accepts(&form, value), "accepted {} bytes", value.len());
        }
    }
}
