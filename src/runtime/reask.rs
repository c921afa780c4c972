//! An invalid answer: what the question asked again says, and what the
//! operator is told (one `tracing` event, one count).

use crate::form::{Field, Form, Report};
use crate::metrics;
use crate::state::FlowId;

/// The message of `form` asked again after the answer `report` describes:
/// the form's own message, then what to correct, field by field by title.
/// A report holds field names and reasons, never a submitted value, so
/// neither does the message. The one place the wording is made.
pub(crate) fn reask_message(form: &Form, report: &Report) -> String {
    let fixes = report.user_message(form);
    if fixes.is_empty() {
        return form.message().to_owned();
    }
    format!("{}\n\nPlease correct: {fixes}", form.message())
}

/// Whether an answer [`Form::validate`] accepted dropped the invalid value
/// of a field that is asked again instead
/// ([`Field::drop_if_invalid`] not set): in a round, nothing the user typed
/// is lost without their being told.
pub(crate) fn asks_again(form: &Form, report: &Report) -> bool {
    report
        .issues()
        .iter()
        .any(|issue| !form.field(issue.field()).is_some_and(Field::drops_invalid))
}

/// One invalid answer to the question under `key`, as the operator sees it.
#[derive(Debug)]
#[cfg_attr(
    not(feature = "tracing"),
    expect(dead_code, reason = "the tracing event reads them")
)]
pub(crate) struct InvalidAnswer<'a> {
    /// The question's key (the handler's name for it).
    pub(crate) key: &'a str,
    /// The flow's id, once it has one.
    pub(crate) flow_id: Option<FlowId>,
    /// The round the answer came in.
    pub(crate) round: u32,
    /// Invalid answers in a row to this question, this one included.
    pub(crate) invalid: u32,
    /// Whether the question is asked again (`false`: the flow ends).
    pub(crate) asked_again: bool,
    /// What was wrong: field names and reason codes, never a value.
    pub(crate) report: &'a Report,
}

impl InvalidAnswer<'_> {
    /// Emits the one event (feature `tracing`: `answer_invalid`, target
    /// `mrtr_guard::runtime`, `INFO`, `reason="invalid_answer"`) and counts
    /// the re-ask (feature `metrics`).
    pub(crate) fn record(&self) {
        if self.asked_again {
            metrics::reasked();
        }
        self.log();
    }

    #[cfg(feature = "tracing")]
    fn log(&self) {
        use tracing::field::display;

        let flow_id = self.flow_id.map(display);
        let problem = self.report.problem().map(display);
        let issues: Vec<String> = self
            .report
            .issues()
            .iter()
            .map(|issue| format!("{}:{}", issue.field(), issue.reason().code()))
            .collect();
        tracing::info!(
            name: "answer_invalid", target: "mrtr_guard::runtime",
            reason = "invalid_answer",
            key = self.key,
            flow_id,
            round = self.round,
            invalid = self.invalid,
            asked_again = self.asked_again,
            issues = issues.join(","),
            problem,
            "{}",
            if self.asked_again {
                "answer invalid; asked again"
            } else {
                "answer invalid too often; flow ended"
            }
        );
    }

    #[cfg(not(feature = "tracing"))]
    fn log(&self) {}
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::form::Field;
    use crate::form::Verdict;

    #[test]
    fn names_each_field_by_title_and_why_never_the_value() {
        let form = Form::builder("Create your account")
            .field(Field::email("email").required())
            .field(Field::string("nick").title("Nickname").max_length(4))
            .build()
            .unwrap_or_else(|error| unreachable!("{error}"));
        let answer =
            json!({"action": "accept", "content": {"email": "VALUE", "nick": "VALUE-TOO"}});
        let Verdict::Invalid(report) = form.validate(&answer) else {
            unreachable!("invalid")
        };
        assert_eq!(
            reask_message(&form, &report),
            "Create your account\n\nPlease correct: Email: not a valid email address. \
             Nickname: must be at most 4 characters."
        );
    }
}
