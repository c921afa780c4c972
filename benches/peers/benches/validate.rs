//! The form validator beside the `jsonschema` crate, same schema and instance.
//!
//! `ours/*` runs `Form::validate` on an `ElicitResult` (envelope, strip,
//! typed answers); `jsonschema/*` runs `is_valid` on the bare content with
//! formats on, and `jsonschema-iter_errors/rejected` collects every error of
//! the rejected content, as our report does. All start from an already parsed
//! `serde_json::Value`.

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

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mrtr_guard::form::Verdict;
use mrtr_guard_peers::{accepted, rejected, ship_form};
use serde_json::json;

fn bench(c: &mut Criterion) {
    let form = ship_form();
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
    assert!(matches!(form.validate(&ok_result), Verdict::Accepted(_)));
    assert!(matches!(form.validate(&bad_result), Verdict::Invalid(_)));
    assert!(validator.is_valid(&ok_content));
    assert!(!validator.is_valid(&bad_content));
    assert!(validator.iter_errors(&bad_content).count() > 1);

    let mut g = c.benchmark_group("validate");
    g.bench_function(BenchmarkId::new("ours", "accepted"), |b| {
        b.iter(|| form.validate(black_box(&ok_result)))
    });
    g.bench_function(BenchmarkId::new("jsonschema", "accepted"), |b| {
        b.iter(|| validator.is_valid(black_box(&ok_content)))
    });
    g.bench_function(BenchmarkId::new("ours", "rejected"), |b| {
        b.iter(|| form.validate(black_box(&bad_result)))
    });
    g.bench_function(BenchmarkId::new("jsonschema", "rejected"), |b| {
        b.iter(|| validator.is_valid(black_box(&bad_content)))
    });
    g.bench_function(
        BenchmarkId::new("jsonschema-iter_errors", "rejected"),
        |b| b.iter(|| validator.iter_errors(black_box(&bad_content)).count()),
    );
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
