//! The demo binary refuses a bad setting before it listens, printing the
//! error's message (not its `Debug` text) and exiting 1.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::process::{Command, Output};

/// Runs the demo with `env` set (and nothing else of the demo's), on a port
/// it never reaches.
fn demo(env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_signup_server"));
    for var in [
        "MRTR_GUARD_KEY",
        "MRTR_GUARD_AUDIENCE",
        "MRTR_GUARD_REDIS_URL",
        "MRTR_GUARD_REDIS_CA",
    ] {
        command.env_remove(var);
    }
    command.env("PORT", "1").envs(env.iter().copied());
    command.output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_hexadecimal_key_is_refused_with_what_to_give() {
    // What `openssl rand -hex 32` prints.
    let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let output = demo(&[("MRTR_GUARD_KEY", hex)]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "error: MRTR_GUARD_KEY: the master key is hexadecimal text; give base64, as \
         `mrtr-guard keygen` (or `openssl rand -base64 32`) prints, or the key's bytes to \
         MasterKey::from_bytes\n"
    );
}

#[test]
fn a_short_key_is_refused_with_its_length() {
    let output = demo(&[("MRTR_GUARD_KEY", "AAAAAAAAAAAAAAAAAAAAAA==")]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "error: MRTR_GUARD_KEY: the master key is 16 bytes; give at least 32 random bytes \
         (base64, as `mrtr-guard keygen` prints)\n"
    );
}

#[test]
fn an_audience_that_is_not_a_url_is_refused() {
    let key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
    let output = demo(&[
        ("MRTR_GUARD_KEY", key),
        ("MRTR_GUARD_AUDIENCE", "not a url"),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "error: MRTR_GUARD_AUDIENCE: the audience is not an absolute http(s) URL; give \
         StateCodec::builder the MCP endpoint's URL with scheme and host, as clients reach \
         it (e.g. https://mcp.example.com/mcp)\n"
    );
}
