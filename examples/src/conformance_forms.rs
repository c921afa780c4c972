//! The forms and the sampling request the conformance fixture asks
//! (`examples/src/bin/conformance_server.rs`), free of any transport, so
//! `examples/tests/demo/runtime_flows/answer_budget.rs` can carry their largest answers.

use std::sync::LazyLock;

use mrtr_guard::wire::SamplingRequest;
use mrtr_guard::{Field, Form};

/// A form of one required field.
fn form(message: &str, field: Field) -> Form {
    match Form::builder(message).field(field.required()).build() {
        Ok(form) => form,
        Err(error) => unreachable!("fixed form does not build: {error}"),
    }
}

pub static NAME: LazyLock<Form> =
    LazyLock::new(|| form("What is your name?", Field::string("name")));
pub static CONFIRM: LazyLock<Form> = LazyLock::new(|| form("Confirm?", Field::boolean("ok")));
pub static COLOR: LazyLock<Form> =
    LazyLock::new(|| form("Favourite colour?", Field::string("color")));
pub static CONTEXT: LazyLock<Form> = LazyLock::new(|| {
    form(
        "What context should the prompt use?",
        Field::string("context"),
    )
});
pub static VALUE: LazyLock<Form> =
    LazyLock::new(|| form("Provide a value", Field::string("value")));

/// `confirm_delete`'s question (the Tasks extension's fixture).
pub static CONFIRM_DELETE: LazyLock<Form> =
    LazyLock::new(|| form("Delete the file?", Field::boolean("confirm")));
/// `multi_input`'s two questions: what the suite answers each with.
pub static PARTIAL: LazyLock<Form> = LazyLock::new(|| {
    match Form::builder("Provide a value")
        .field(Field::string("name").required())
        .field(Field::boolean("confirm"))
        .build()
    {
        Ok(form) => form,
        Err(error) => unreachable!("fixed form does not build: {error}"),
    }
});

/// The sampling request of the sampling and multiple-inputs tools.
pub fn capital() -> SamplingRequest {
    SamplingRequest::user_text("What is the capital of France?", 100)
}
