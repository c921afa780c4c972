//! [`Report::user_message`]: a refused answer explained to the user who gave
//! it, from the form's definitions and the reasons, never from the answer.

use crate::form::compiled::Form;
use crate::form::report::{Issue, Problem, Report};

impl Report {
    /// A short message for the user, for asking again: each refused field by
    /// its title and what is wrong, one sentence each, in the form's order.
    ///
    /// ```
    /// use mrtr_guard::{Field, Form};
    /// use mrtr_guard::form::Verdict;
    /// use serde_json::json;
    ///
    /// let form = Form::builder("Your team")
    ///     .field(Field::email("email").required())
    ///     .field(Field::integer("teamSize").maximum(50).required())
    ///     .build()?;
    /// let answer = json!({"action": "accept", "content": {"email": "ada", "teamSize": 99}});
    /// let Verdict::Invalid(report) = form.validate(&answer) else { unreachable!() };
    /// assert_eq!(
    ///     report.user_message(&form),
    ///     "Email: not a valid email address. Team Size: must be at most 50."
    /// );
    /// # Ok::<(), mrtr_guard::form::FormError>(())
    /// ```
    ///
    /// The words come from the field (its title, bounds, format) and the
    /// [`Reason`](crate::form::Reason), never from the submitted value, so the
    /// message is safe to show and to log. Fields the form does not have are
    /// named by their wire name. Optional fields whose value was dropped are
    /// included (the user's answer was not kept); fix-ups (stripped keys,
    /// removed duplicates) are not. A problem with the result as a whole gives
    /// one general sentence; a clean report gives `""`.
    ///
    /// `form` must be the form that produced the report.
    #[must_use]
    pub fn user_message(&self, form: &Form) -> String {
        let mut sentences: Vec<String> = Vec::new();
        match self.problem() {
            Some(Problem::TooLarge) => {
                sentences.push("The answer is too long to keep; please shorten it.".to_owned());
            }
            Some(_) => sentences.push("The answer could not be read; please try again.".to_owned()),
            None => {}
        }
        // In the form's order first, then any issue the form does not know.
        let by_form = form
            .fields()
            .iter()
            .filter_map(|f| self.issues().iter().find(|i| i.field() == f.name()));
        let unknown = self
            .issues()
            .iter()
            .filter(|i| form.field(i.field()).is_none());
        sentences.extend(by_form.chain(unknown).map(|i| sentence(form, i)));
        sentences.join(" ")
    }
}

/// `Title: what is wrong.`
fn sentence(form: &Form, issue: &Issue) -> String {
    match form.field(issue.field()) {
        Some(field) => format!(
            "{}: {}.",
            field.title.as_deref().unwrap_or(field.name()),
            field.kind.explain(issue.reason())
        ),
        None => format!("{}: not a valid answer.", issue.field()),
    }
}
