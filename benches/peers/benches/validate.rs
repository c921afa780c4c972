//! The form validator beside the `jsonschema` crate, same schema and instance.
//!
//! `ours/*` runs `Form::validate` on an `ElicitResult` (envelope, strip,
//! typed answers); `jsonschema/*` runs `is_valid` on the bare content with
//! formats on. Both start from an already parsed `serde_json::Value`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mrtr_guard::{Field, Form, Outcome};
use serde_json::{Value, json};

fn form() -> Form {
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

fn accepted() -> Value {
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

fn rejected() -> Value {
    let mut v = accepted();
    v["quantity"] = json!(101);
    v["email"] = json!("ada at example.com");
    v
}

fn bench(c: &mut Criterion) {
    let form = form();
    let schema = form.requested_schema();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{e}"));

    let ok_content = accepted();
    let bad_content = rejected();
    let ok_result = json!({"action": "accept", "content": ok_content});
    let bad_result = json!({"action": "accept", "content": bad_content});

    // Same verdicts on both sides before timing anything.
    assert!(matches!(form.validate(&ok_result), Outcome::Accepted(_)));
    assert!(matches!(form.validate(&bad_result), Outcome::Invalid(_)));
    assert!(validator.is_valid(&ok_content));
    assert!(!validator.is_valid(&bad_content));

    let mut g = c.benchmark_group("validate");
    g.bench_function("ours/accepted", |b| {
        b.iter(|| form.validate(black_box(&ok_result)))
    });
    g.bench_function("jsonschema/accepted", |b| {
        b.iter(|| validator.is_valid(black_box(&ok_content)))
    });
    g.bench_function("ours/rejected", |b| {
        b.iter(|| form.validate(black_box(&bad_result)))
    });
    g.bench_function("jsonschema/rejected", |b| {
        b.iter(|| validator.is_valid(black_box(&bad_content)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
