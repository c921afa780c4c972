//! Fixtures shared by the benchmarks that compare mrtr-guard with peer crates
//! (this package holds nothing else and is not published).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    missing_docs,
    reason = "benchmark code (the workspace lints are for the library): a panic is a failed run"
)]

use mrtr_guard::{Field, Form};
use serde_json::{Value, json};

/// The ten-field form of the validation and whole-round benchmarks: every
/// field kind, formats included.
///
/// # Panics
///
/// Never: the form is fixed and valid.
#[must_use]
pub fn ship_form() -> Form {
    Form::builder("Ship an order")
        .field(
            Field::string("name")
                .min_length(1)
                .max_length(100)
                .required(),
        )
        .field(Field::email("email").required())
        .field(Field::uri("website"))
        .field(Field::date("shipDate").required())
        .field(Field::date_time("pickupAt"))
        .field(
            Field::integer("quantity")
                .minimum(1)
                .maximum(100)
                .required(),
        )
        .field(Field::number("weight").minimum(0).maximum(1000))
        .field(Field::boolean("gift"))
        .field(
            Field::choice("speed")
                .titled_option("std", "Standard")
                .titled_option("exp", "Express"),
        )
        .field(
            Field::multi_choice("extras")
                .options(["wrap", "card", "insurance"])
                .max_items(3),
        )
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Content that [`ship_form`] accepts: all ten fields valid.
#[must_use]
pub fn accepted() -> Value {
    json!({
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "website": "https://example.com/ada",
        "shipDate": "2026-08-01",
        "pickupAt": "2026-08-01T09:30:00Z",
        "quantity": 3,
        "weight": 2.5,
        "gift": true,
        "speed": "exp",
        "extras": ["wrap", "card"]
    })
}

/// Content that [`ship_form`] rejects: a required integer out of range and
/// a malformed email.
#[must_use]
pub fn rejected() -> Value {
    let mut v = accepted();
    v["quantity"] = json!(101);
    v["email"] = json!("ada at example.com");
    v
}

/// Application data of exactly `size` bytes of JSON: `{"blob":"aaa…"}`.
///
/// # Panics
///
/// When `size` is below 11, the size of `{"blob":""}`.
#[must_use]
pub fn app_data(size: usize) -> Value {
    let app = json!({"blob": "a".repeat(size - 11)});
    assert_eq!(app.to_string().len(), size);
    app
}
