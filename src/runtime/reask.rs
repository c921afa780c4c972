//! What a question asked again after an invalid answer says.

use crate::form::{Field, Form, Report};

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
