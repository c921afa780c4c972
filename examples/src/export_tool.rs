//! The demo's task tool, `export_orders`, free of any transport: one
//! handler for every path. The range is asked as an ordinary round; the
//! export then runs as a task where the client declared the extension
//! (`Round::task`), and asks, inside the task, whether to include refunds.
//! Without the extension the same code asks that as a second round and
//! answers in the call.

use std::time::Duration;

use mrtr_guard::form::FormError;
use mrtr_guard::{Field, Form, Round, Stop};

/// How long the export's work takes: long enough to be a task.
pub const EXPORT_WORK: Duration = Duration::from_secs(1);

/// `export_orders`' forms.
pub struct ExportForms {
    pub range: Form,
    pub refunds: Form,
}

pub fn export_forms() -> Result<ExportForms, FormError> {
    Ok(ExportForms {
        range: Form::builder("Which orders? Give the first and the last day.")
            .field(Field::date("from").required())
            .field(Field::date("to").required())
            .build()?,
        refunds: Form::builder("Include refunded orders in the export?")
            .field(Field::boolean("includeRefunds").required())
            .build()?,
    })
}

/// `export_orders` in `format` (`csv` or `json`): its text result, or a stop.
pub async fn export_orders(
    round: &mut Round<'_>,
    forms: &ExportForms,
    format: &str,
) -> Result<String, Stop> {
    let range = round.require("range", &forms.range)?;
    let (from, to) = (range.str("from")?.to_owned(), range.str("to")?.to_owned());
    round.task()?;
    tokio::time::sleep(EXPORT_WORK).await;
    let refunds = match round.require("refunds", &forms.refunds) {
        Ok(answers) => answers.bool("includeRefunds")?,
        Err(Stop::Declined { .. } | Stop::Cancelled { .. }) => {
            return Ok("Export cancelled.".to_owned());
        }
        Err(stop) => return Err(stop),
    };
    let refunds = if refunds { ", refunds included" } else { "" };
    Ok(format!(
        "Exported the orders from {from} to {to} as {}{refunds}.",
        format.to_uppercase()
    ))
}
