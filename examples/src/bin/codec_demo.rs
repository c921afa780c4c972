//! Mints a `requestState` in each mode, opens it, and shows what an attacker's
//! changes run into. `cargo run -p mrtr-guard-examples --bin codec_demo`
//!
//! Set `MRTR_GUARD_KEY` to a base64 master key to use your own; otherwise an
//! ephemeral key is generated.

#![allow(
    clippy::arithmetic_side_effects,
    reason = "demo code adds minutes to a clock reading"
)]

use std::process::ExitCode;

use mrtr_guard::json::JsonDigest;
use mrtr_guard::state::ProvenAnswer;
use mrtr_guard::{Binding, KeyRing, MasterKey, Method, Mode, RpcError, StateCodec, StateContents};
use serde_json::{Map, Value, json};
use time::{Duration, OffsetDateTime};

/// Prints an error's message (`Display`), not the `Debug` text a `main`
/// returning the `Result` would print, and exits 1.
fn main() -> ExitCode {
    clap::Command::new("codec_demo")
        .about(
            "Mints a requestState in each mode, opens it, and shows what an attacker's \
             changes run into. MRTR_GUARD_KEY: a base64 master key (default: an ephemeral one).",
        )
        .get_matches();
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let key = match std::env::var("MRTR_GUARD_KEY") {
        Ok(text) => MasterKey::from_base64(text.trim())
            .map_err(|error| format!("MRTR_GUARD_KEY: {error}"))?,
        Err(_) => {
            eprintln!("warning: MRTR_GUARD_KEY is not set; using an ephemeral key");
            MasterKey::generate()?
        }
    };
    println!("key id: {}", key.id());
    let ring = KeyRing::new(key);
    let sealed = StateCodec::builder("https://mcp.example.com/mcp", ring).build()?;

    let args = json!({"orderId": 42});
    let ada = Binding::new("ada", Method::ToolsCall, "ShipOrder", Some(&args));
    let now = OffsetDateTime::now_utc();
    let ask = json!({"method": "elicitation/create", "params": {"message": "Email?"}});
    let response: Map<String, Value> = serde_json::from_value(
        json!({"action": "accept", "content": {"email": "ada@example.com"}}),
    )?;
    let contents = StateContents::new(json!({"cart": 17}))
        .answer("email", ProvenAnswer::new(JsonDigest::of(&ask), response));
    let token = sealed.start_at(&ada, &contents, now)?;
    println!("\nsealed requestState ({} chars):\n  {token}", token.len());

    let claims = sealed.open_at::<Value>(&token, &ada, now)?;
    println!(
        "opened for ada: round {}, flow {}, app {}, answers {:?}",
        claims.round(),
        claims.flow_id(),
        claims.app(),
        claims.answers()
    );

    let mallory = Binding::new("mallory", Method::ToolsCall, "ShipOrder", Some(&args));
    let other_args = json!({"orderId": 43});
    let other_order = Binding::new("ada", Method::ToolsCall, "ShipOrder", Some(&other_args));
    let mut tampered = token.clone();
    tampered.push_str("-TAMPERED");
    let attempts: [(&str, &str, &Binding<'_>, OffsetDateTime); 4] = [
        ("presented by mallory", &token, &mallory, now),
        ("replayed on orderId 43", &token, &other_order, now),
        ("tampered", &tampered, &ada, now),
        (
            "11 minutes later",
            &token,
            &ada,
            now + Duration::minutes(11),
        ),
    ];
    println!("\nattacks:");
    for (what, token, binding, at) in attempts {
        match sealed.open_at::<Value>(token, binding, at) {
            Ok(_) => println!("  {what}: OPENED (this must never happen)"),
            Err(error) => println!(
                "  {what}: refused ({}); client sees {}",
                error.reason(),
                RpcError::from(error).to_json()
            ),
        }
    }

    let signed = StateCodec::builder("https://mcp.example.com/mcp", MasterKey::generate()?)
        .mode(Mode::Signed)
        .build()?;
    let token = signed.start_at(&ada, &contents, now)?;
    println!(
        "\nsigned requestState ({} chars; its claims are readable base64):\n  {token}",
        token.len()
    );
    println!(
        "opened: app {}",
        signed.open_at::<Value>(&token, &ada, now)?.app()
    );
    Ok(())
}
