//! The demo's task tool, `export_orders`, free of any transport: one
//! handler for every path. The range is asked as an ordinary round; the
//! export then runs as a task where the client declared the extension
//! (`Round::task`): its long work is a step (`Round::step`), done once
//! however often the handler runs again, and then it asks, inside the
//! task, whether to include refunds. Without the extension the same code
//! asks that as a second round and answers in the call.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
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
    // The long work, once: a later run of the task (after an answer, on
    // another instance) gets the recorded count without exporting again,
    // and so does a later round of a flow without the extension (the
    // count travels in its state).
    let export = match round.task_id() {
        Some(task) => task.to_owned(),
        None => round.flow_id()?.to_string(),
    };
    let _rows: u64 = round.step("export", write_export(export)).await?;
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

/// The export's long work, keyed by its task (or flow) id: what a real
/// export's idempotency key would be. Returns the rows written.
async fn write_export(export: String) -> u64 {
    tokio::time::sleep(EXPORT_WORK).await;
    *EXPORTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(export)
        .or_default() += 1;
    31
}

/// The demo's stand-in for where exports are written: how many times the
/// export of each task (or flow) ran.
static EXPORTS: Mutex<BTreeMap<String, u32>> = Mutex::new(BTreeMap::new());

/// How many times the export of the task (or flow) `id` ran: once per task,
/// however often its handler ran.
#[must_use]
pub fn exports_of(id: &str) -> u32 {
    EXPORTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(id)
        .copied()
        .unwrap_or(0)
}
