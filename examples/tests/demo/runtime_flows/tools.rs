//! The tools these flows drive: the demo's (`examples/src/signup_tools.rs`)
//! and the conformance fixture's two as they read there, and what to read
//! back from their results.

use std::sync::LazyLock;

use mrtr_guard::{Reply, RoundEnd, RpcError, Stop};
use mrtr_guard_examples::{conformance_forms, signup_tools};
use mrtr_guard_test_support::Req;
use serde_json::Value;

/// The demo's forms, built once.
pub(super) static FORMS: LazyLock<signup_tools::Forms> =
    LazyLock::new(|| signup_tools::forms().unwrap());

/// Runs the demo tool `req.tool` for one round.
pub(super) fn run(flow: &mrtr_guard::Flow, req: &Req) -> Result<RoundEnd<String>, RpcError> {
    flow.run(req.call()?, |round| signup_tools::run_tool(round, &FORMS))
}

/// The refusal of a retry whose state does not open.
pub(super) fn bad_state() -> Result<RoundEnd<String>, RpcError> {
    Err(RpcError::invalid_request_state())
}

/// The message of the question asked under `key`.
pub(super) fn message_of(result: &Value, key: &str) -> String {
    result["inputRequests"][key]["params"]["message"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The conformance fixture's `multi_round` tool, as it reads there.
pub(super) fn multi_round(round: &mut mrtr_guard::Round<'_>) -> Result<String, Stop> {
    let name = round.require("step1", &conformance_forms::NAME)?;
    let color = round.require("step2", &conformance_forms::COLOR)?;
    Ok(format!(
        "{} likes {}.",
        name.str("name")?,
        color.str("color")?
    ))
}

/// The conformance fixture's `multiple_inputs` tool, as it reads there.
pub(super) fn multiple_inputs(round: &mut mrtr_guard::Round<'_>) -> Result<String, Stop> {
    let name = round.form("user_name", &conformance_forms::NAME);
    let sampled = round.sample("capital_question", &conformance_forms::capital());
    let roots = round.roots("client_roots");
    match (name, sampled, roots) {
        (Reply::Accepted(name), Reply::Accepted(sampled), Reply::Accepted(roots)) => Ok(format!(
            "{}; {}; {} root(s)",
            name.str("name")?,
            sampled.text().unwrap_or("(no text)"),
            roots.roots.len()
        )),
        _ => Err(Stop::Ask),
    }
}
