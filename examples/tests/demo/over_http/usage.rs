//! The demo binaries' command lines: `--help` (or `-h`) prints the usage to
//! stdout and exits 0 before anything starts; an argument a binary does not
//! take is a usage error on stderr, exit 2; the flags they take still work.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a panic is a failing test"
)]

use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::binary::{Running, free_addr, wait_listening};

/// Every binary of the examples, by name.
const BINARIES: [(&str, &str); 5] = [
    ("signup_server", env!("CARGO_BIN_EXE_signup_server")),
    ("minimal_server", env!("CARGO_BIN_EXE_minimal_server")),
    (
        "conformance_server",
        env!("CARGO_BIN_EXE_conformance_server"),
    ),
    ("loadbench_server", env!("CARGO_BIN_EXE_loadbench_server")),
    ("codec_demo", env!("CARGO_BIN_EXE_codec_demo")),
];

/// What a run of `binary` with `args` ended with: its exit code, stdout
/// and stderr. Fails the test if it is still running after 10 s (a server
/// that started instead of answering), killing it.
fn run(binary: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let child = Command::new(binary)
        .args(args)
        .env("PORT", free_addr().port().to_string())
        .env("MCP_TOKEN", "the-token")
        .env_remove("MRTR_GUARD_REDIS_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = Running(child);
    for _ in 0..200 {
        if let Some(status) = child.0.try_wait().unwrap() {
            let mut out = (String::new(), String::new());
            child
                .0
                .stdout
                .take()
                .unwrap()
                .read_to_string(&mut out.0)
                .unwrap();
            child
                .0
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut out.1)
                .unwrap();
            return (status.code(), out.0, out.1);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{binary} {args:?} still runs after 10 s");
}

#[test]
fn help_prints_the_usage_and_exits_0() {
    for (name, binary) in BINARIES {
        for flag in ["--help", "-h"] {
            let (code, stdout, stderr) = run(binary, &[flag]);
            assert_eq!(code, Some(0), "{name} {flag}: {stderr}");
            assert!(
                stdout.contains(&format!("Usage: {name}")),
                "{name} {flag}: {stdout}"
            );
        }
    }
}

#[test]
fn an_argument_a_binary_does_not_take_is_a_usage_error() {
    for (name, binary) in BINARIES {
        for args in [&["--no-such-flag"][..], &["extra"]] {
            let (code, stdout, stderr) = run(binary, args);
            assert_eq!(code, Some(2), "{name} {args:?}: {stdout}{stderr}");
            assert!(stderr.starts_with("error: "), "{name} {args:?}: {stderr}");
            assert!(
                stderr.contains(&format!("Usage: {name}")),
                "{name} {args:?}: {stderr}"
            );
        }
    }
}

/// `--port N` and `--port=N` set the port, over `PORT`.
#[tokio::test]
async fn the_port_flag_sets_the_port() {
    for form in ["--port N", "--port=N"] {
        let addr = free_addr();
        let port = addr.port().to_string();
        let args: Vec<String> = match form {
            "--port N" => vec!["--port".into(), port],
            _ => vec![format!("--port={port}")],
        };
        let child = Command::new(env!("CARGO_BIN_EXE_signup_server"))
            .args(&args)
            .env("PORT", "1")
            .env_remove("MRTR_GUARD_REDIS_URL")
            .env_remove("MRTR_GUARD_METRICS_ADDR")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut server = Running(child);
        wait_listening(&mut server, addr).await;
    }
}
