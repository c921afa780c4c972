//! The demo's two tools, free of any transport: `examples/src/bin/signup_server.rs`
//! serves them over `rmcp`, and `examples/tests/demo/runtime_flows/` drives these same
//! functions in-process.

use mrtr_guard::form::FormError;
use mrtr_guard::{Field, Form, Round, RpcError, Stop};

/// The forms, built once.
pub struct Forms {
    pub ship: Form,
    pub account: Form,
    pub team: Form,
    pub confirm: Form,
}

pub fn forms() -> Result<Forms, FormError> {
    Ok(Forms {
        ship: Form::builder("Where should we ship the order? Enter the tracking number.")
            .field(
                Field::string("trackingNumber")
                    .min_length(1)
                    .max_length(64)
                    .required(),
            )
            .build()?,
        account: Form::builder("Create your account")
            .field(Field::email("email").required())
            .field(
                Field::choice("plan")
                    .titled_option("pro", "Pro")
                    .titled_option("team", "Team")
                    .required(),
            )
            .build()?,
        team: Form::builder("Tell us about your team")
            .field(
                Field::integer("teamSize")
                    .minimum(2)
                    .maximum(500)
                    .required(),
            )
            .field(
                Field::multi_choice("roles")
                    .options(["admin", "billing", "member"])
                    .min_items(1)
                    .max_items(3)
                    .required(),
            )
            .build()?,
        confirm: Form::builder("Create this account?").build()?,
    })
}

/// Runs the tool the round names; its text result, or a stop.
pub fn run_tool(round: &mut Round<'_>, forms: &Forms) -> Result<String, Stop> {
    match round.target() {
        "ShipOrder" => ship_order(round, forms),
        "signup" => signup(round, forms).or_else(|stop| match stop {
            Stop::Declined { .. } | Stop::Cancelled { .. } => {
                Ok("Signup cancelled; no account was created.".to_owned())
            }
            other => Err(other),
        }),
        _ => Err(Stop::Error(RpcError::invalid_params("unknown tool"))),
    }
}

/// `ShipOrder`: a decline or a cancel answered in the tool's own words.
pub fn ship_order(round: &mut Round<'_>, forms: &Forms) -> Result<String, Stop> {
    let ship = match round.require("ship", &forms.ship) {
        Err(Stop::Declined { .. } | Stop::Cancelled { .. }) => {
            return Ok("Shipping cancelled.".to_owned());
        }
        answers => answers?,
    };
    Ok(format!("Shipped as {}.", ship.str("trackingNumber")?))
}

/// `signup`: reads top-down; each `require` either has its answer or stops
/// the round with an ask.
pub fn signup(round: &mut Round<'_>, forms: &Forms) -> Result<String, Stop> {
    let account = round.require("account", &forms.account)?;
    let email = account.str("email")?;
    let plan = account.str("plan")?;
    let team = match plan {
        "team" => {
            let team = round.require("team", &forms.team)?;
            Some((team.i64("teamSize")?, team.strings("roles")?.join(", ")))
        }
        _ => None,
    };
    round.require("confirm", &forms.confirm)?;
    Ok(match team {
        Some((size, roles)) => {
            format!("Account created for {email}: Team plan, {size} seats, roles: {roles}.")
        }
        None => format!("Account created for {email}: Pro plan."),
    })
}
