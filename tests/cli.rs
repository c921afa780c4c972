//! The operator CLI, run as a built binary (feature `cli`).

#![cfg(feature = "cli")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

use mrtr_guard::json::JsonDigest;
use mrtr_guard::state::ProvenAnswer;
use mrtr_guard::{Binding, MasterKey, Method, Mode, StateCodec, StateContents};
use serde_json::{Map, Value, json};
use time::{Duration, OffsetDateTime};

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const AUDIENCE: &str = "https://mcp.example.com/mcp";
/// Put into every token's application data and answers: must never be printed.
const MARKER: &str = "user-data-4f1c";

fn cli() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mrtr-guard"));
    command
        .env_remove("MRTR_GUARD_KEY")
        .env_remove("MRTR_GUARD_AUDIENCE");
    command
}

fn run(args: &[&str]) -> Output {
    cli().args(args).output().unwrap()
}

fn run_with_key(args: &[&str]) -> Output {
    cli()
        .env("MRTR_GUARD_KEY", KEY)
        .args(args)
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn codec(mode: Mode) -> StateCodec {
    StateCodec::builder(AUDIENCE, MasterKey::from_base64(KEY).unwrap())
        .mode(mode)
        .build()
        .unwrap()
}

fn args() -> Value {
    json!({"orderId": 42})
}

/// A token for ada calling ShipOrder({"orderId":42}), minted at `now`.
fn token(mode: Mode, now: OffsetDateTime) -> String {
    let args = args();
    let binding = Binding::new("ada", Method::ToolsCall, "ShipOrder", Some(&args));
    let ask = json!({"method": "elicitation/create", "params": {"message": "Email?"}});
    let response: Map<String, Value> =
        serde_json::from_value(json!({"action": "accept", "content": {"email": MARKER}})).unwrap();
    let contents = StateContents::new(json!({"note": MARKER}))
        .answer("email", ProvenAnswer::new(JsonDigest::of(&ask), response));
    codec(mode).start_at(&binding, &contents, now).unwrap()
}

fn open_args<'a>(principal: &'a str, token: &'a str) -> Vec<&'a str> {
    vec![
        "open",
        "--method",
        "tools/call",
        "--target",
        "ShipOrder",
        "--principal",
        principal,
        "--arguments",
        r#"{"orderId": 42.0}"#,
        "--audience",
        AUDIENCE,
        token,
    ]
}

#[test]
fn keygen_prints_a_key_and_its_id() {
    let output = run(&["keygen"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let key = lines[0].strip_prefix("key:    ").unwrap();
    let id = lines[1].strip_prefix("key id: ").unwrap();
    assert_eq!(MasterKey::from_base64(key).unwrap().id().to_string(), id);
    assert_eq!(key.len(), 44);
    assert_ne!(stdout(&run(&["keygen"])), text, "a fresh key every time");
    assert_eq!(run(&["keygen", "extra"]).status.code(), Some(2));
}

#[test]
fn inspect_shows_structure_and_no_claims() {
    let key_id = MasterKey::from_base64(KEY).unwrap().id().to_string();
    for (mode, name, version, tag) in [
        (Mode::Sealed, "sealed", "0x01", 16),
        (Mode::Signed, "signed", "0x02", 32),
    ] {
        let token = token(mode, OffsetDateTime::now_utc());
        let output = run(&["inspect", &token]);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        assert!(text.contains(&format!("version: {version}")), "{text}");
        assert!(text.contains(&format!("mode:    {name}")), "{text}");
        assert!(text.contains(&format!("key id:  {key_id}")), "{text}");
        assert!(
            text.contains(&format!("length:  {} characters", token.len())),
            "{text}"
        );
        assert!(text.contains(&format!("tag {tag})")), "{text}");
        // Not even a signed token's clear claims.
        assert!(!text.contains(MARKER), "{text}");
        assert!(!text.contains("iat"), "{text}");
    }
}

#[test]
fn inspect_refuses_garbage_with_its_reason() {
    for (garbage, reason) in [
        ("not a token!", "malformed"),
        ("AAAA", "unsupported_version"),
        ("", "malformed"),
    ] {
        let output = run(&["inspect", garbage]);
        assert_eq!(output.status.code(), Some(1), "{garbage:?}");
        assert!(
            stdout(&output).starts_with(&format!("refused: {reason}: ")),
            "{}",
            stdout(&output)
        );
    }
    assert_eq!(run(&["inspect"]).status.code(), Some(2));
    assert_eq!(run(&["inspect", "a", "b"]).status.code(), Some(2));
}

#[test]
fn open_prints_times_round_and_flow_id_but_no_user_data() {
    let now = OffsetDateTime::now_utc();
    for mode in [Mode::Sealed, Mode::Signed] {
        let token = token(mode, now);
        let args = args();
        let binding = Binding::new("ada", Method::ToolsCall, "ShipOrder", Some(&args));
        let claims = codec(mode).open::<Value>(&token, &binding).unwrap();

        let output = run_with_key(&open_args("ada", &token));
        assert!(output.status.success(), "{}", stdout(&output));
        let text = stdout(&output);
        assert!(text.starts_with("ok: "), "{text}");
        assert!(text.contains("round:         1\n"), "{text}");
        assert!(
            text.contains(&format!("flow id:       {}\n", claims.flow_id())),
            "{text}"
        );
        assert!(
            text.contains(&format!("({})", claims.expires_at().unix_timestamp())),
            "{text}"
        );
        assert!(
            text.contains(&format!("({})", claims.deadline().unix_timestamp())),
            "{text}"
        );
        assert!(text.contains("1 answer(s)"), "{text}");
        assert!(text.contains("generation:    none ("), "{text}");
        assert!(!text.contains(MARKER), "{text}");
    }
}

/// A token minted under a replay guard shows the guard's generation.
#[test]
fn open_prints_the_replay_guards_generation() {
    let guard = std::sync::Arc::new(mrtr_guard::MemoryReplayGuard::new(10));
    let codec = StateCodec::builder(AUDIENCE, MasterKey::from_base64(KEY).unwrap())
        .replay_guard(guard)
        .build()
        .unwrap();
    let args = args();
    let binding = Binding::new("ada", Method::ToolsCall, "ShipOrder", Some(&args));
    let token = codec
        .start_at(&binding, &StateContents::new(()), OffsetDateTime::now_utc())
        .unwrap();
    let generation =
        mrtr_guard::StateCodec::builder(AUDIENCE, MasterKey::from_base64(KEY).unwrap())
            .build()
            .unwrap()
            .open::<()>(&token, &binding)
            .unwrap()
            .generation()
            .unwrap();
    let output = run_with_key(&open_args("ada", &token));
    assert!(output.status.success(), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(
        text.contains(&format!(
            "generation:    {generation} (of the replay guard's memory)\n"
        )),
        "{text}"
    );
    let inspected = stdout(&run(&["inspect", &token]));
    assert!(
        inspected.contains("generation: in the claims, read by `open`"),
        "{inspected}"
    );
}

#[test]
fn open_refuses_with_the_reason() {
    let now = OffsetDateTime::now_utc();
    let token = token(Mode::Sealed, now);

    let wrong_principal = run_with_key(&open_args("mallory", &token));
    assert_eq!(wrong_principal.status.code(), Some(1));
    assert_eq!(
        stdout(&wrong_principal),
        "refused: forged: requestState does not verify: altered, or minted for another \
         request or principal\n"
    );

    let old = token_at(now - Duration::minutes(20));
    let expired = run_with_key(&open_args("ada", &old));
    assert_eq!(expired.status.code(), Some(1));
    assert!(
        stdout(&expired).starts_with("refused: expired: "),
        "{}",
        stdout(&expired)
    );
    // --at evaluates at another time: the same token, when it was fresh.
    let minted = (now - Duration::minutes(20)).unix_timestamp() + 1;
    let at = minted.to_string();
    let mut then = open_args("ada", &old);
    then.splice(1..1, ["--at", at.as_str()]);
    assert_eq!(run_with_key(&then).status.code(), Some(0));

    let mut wrong_mode = open_args("ada", &token);
    wrong_mode.splice(1..1, ["--mode", "signed"]);
    let output = run_with_key(&wrong_mode);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).starts_with("refused: unsupported_version: "));

    let other_key = cli()
        .env(
            "MRTR_GUARD_KEY",
            "AQECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        )
        .args(open_args("ada", &token))
        .output()
        .unwrap();
    assert_eq!(other_key.status.code(), Some(1));
    let text = stdout(&other_key);
    assert!(text.starts_with("refused: unknown_key: "), "{text}");
    let ours = MasterKey::from_base64(KEY).unwrap().id();
    assert!(
        text.contains(&format!(
            "the token names key {ours}; MRTR_GUARD_KEY holds key "
        )),
        "{text}"
    );

    let garbage = run_with_key(&open_args("ada", "%%%"));
    assert_eq!(garbage.status.code(), Some(1));
    assert!(stdout(&garbage).starts_with("refused: malformed: "));
}

fn token_at(now: OffsetDateTime) -> String {
    token(Mode::Sealed, now)
}

#[test]
fn open_reads_the_token_from_standard_input() {
    let token = token(Mode::Sealed, OffsetDateTime::now_utc());
    let mut child = cli()
        .env("MRTR_GUARD_KEY", KEY)
        .args(open_args("ada", "-"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{token}").unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stdout(&output));
}

#[test]
fn usage_errors_exit_2() {
    let token = token(Mode::Sealed, OffsetDateTime::now_utc());

    // No key in the environment.
    let output = run(&open_args("ada", &token));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("MRTR_GUARD_KEY is not set"));
    assert!(stdout(&output).is_empty());

    // A key on the command line is refused, and not echoed.
    let mut with_key = open_args("ada", &token);
    with_key.splice(1..1, ["--key", KEY]);
    let output = run_with_key(&with_key);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("refusing a key on the command line"));
    assert!(!stderr(&output).contains(KEY));

    // A key that is not a key: named, not echoed.
    let output = cli()
        .env("MRTR_GUARD_KEY", "c2hvcnQ=")
        .args(open_args("ada", &token))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "mrtr-guard: MRTR_GUARD_KEY: the master key is 5 bytes; give at least 32 random \
         bytes (base64, as `mrtr-guard keygen` prints)\n(`mrtr-guard help` shows the usage)\n"
    );

    // Hexadecimal key text (what `openssl rand -hex 32` prints): the fix, not the text.
    let hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    let output = cli()
        .env("MRTR_GUARD_KEY", hex)
        .args(open_args("ada", &token))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "mrtr-guard: MRTR_GUARD_KEY: the master key is hexadecimal text; give base64, as \
         `mrtr-guard keygen` (or `openssl rand -base64 32`) prints, or the key's bytes to \
         MasterKey::from_bytes\n(`mrtr-guard help` shows the usage)\n"
    );

    // An audience that is not the endpoint's URL: named, with an example.
    let mut bad_audience = open_args("ada", &token);
    let at = bad_audience
        .iter()
        .position(|arg| *arg == AUDIENCE)
        .unwrap();
    bad_audience[at] = "not a url";
    let output = run_with_key(&bad_audience);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "mrtr-guard: --audience (or MRTR_GUARD_AUDIENCE) is not an absolute http(s) URL: \
         give the MCP endpoint's URL the server's codec was built with \
         (e.g. https://mcp.example.com/mcp)\n(`mrtr-guard help` shows the usage)\n"
    );

    // No audience at all: where to give it.
    let mut no_audience = open_args("ada", &token);
    no_audience.retain(|arg| *arg != "--audience" && *arg != AUDIENCE);
    let output = run_with_key(&no_audience);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "mrtr-guard: --audience (or MRTR_GUARD_AUDIENCE) is required: the MCP endpoint's \
         URL the server's codec was built with (e.g. https://mcp.example.com/mcp)\n\
         (`mrtr-guard help` shows the usage)\n"
    );

    for args in [
        vec![
            "open",
            "--target",
            "t",
            "--principal",
            "p",
            "--audience",
            AUDIENCE,
            &token,
        ],
        vec![
            "open",
            "--method",
            "tools/list",
            "--target",
            "t",
            "--anonymous",
            "--audience",
            AUDIENCE,
            &token,
        ],
        vec![
            "open",
            "--method",
            "tools/call",
            "--target",
            "t",
            "--audience",
            AUDIENCE,
            &token,
        ],
        vec![
            "open",
            "--method",
            "tools/call",
            "--target",
            "t",
            "--principal",
            "p",
            "--anonymous",
            "--audience",
            AUDIENCE,
            &token,
        ],
        vec![
            "open",
            "--method",
            "tools/call",
            "--target",
            "t",
            "--principal",
            "p",
            &token,
        ],
        vec![
            "open",
            "--method",
            "tools/call",
            "--target",
            "t",
            "--principal",
            "p",
            "--audience",
            AUDIENCE,
            "--arguments",
            "{",
            &token,
        ],
        vec![
            "open",
            "--method",
            "tools/call",
            "--target",
            "t",
            "--principal",
            "p",
            "--audience",
            AUDIENCE,
        ],
        vec!["open", "--bogus", &token],
        vec!["frobnicate"],
        vec![],
    ] {
        let output = run_with_key(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }

    let help = run(&["help", "inspect"]);
    assert!(help.status.success());
    assert!(stdout(&help).contains("mrtr-guard inspect <TOKEN>"));
}

#[test]
fn anonymous_tokens_open_with_anonymous() {
    let codec = StateCodec::builder(AUDIENCE, MasterKey::from_base64(KEY).unwrap())
        .allow_anonymous()
        .build()
        .unwrap();
    let binding = Binding::anonymous(Method::PromptsGet, "weekly", None);
    let token = codec.start(&binding, &StateContents::new(())).unwrap();
    let output = run_with_key(&[
        "open",
        "--method=prompts/get",
        "--target=weekly",
        "--anonymous",
        "--audience",
        AUDIENCE,
        &token,
    ]);
    assert!(output.status.success(), "{}", stdout(&output));
    let output = cli()
        .env("MRTR_GUARD_KEY", KEY)
        .env("MRTR_GUARD_AUDIENCE", AUDIENCE)
        .args([
            "open",
            "--method",
            "prompts/get",
            "--target",
            "weekly",
            "--principal",
            "ada",
            &token,
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).starts_with("refused: forged: "));
}

/// Every option of each subcommand, as its help must name it.
const OPTIONS: [(&str, &[&str]); 3] = [
    ("keygen", &[]),
    ("inspect", &["<TOKEN>", "standard input"]),
    (
        "open",
        &[
            "--method",
            "--target",
            "--principal",
            "--anonymous",
            "--arguments",
            "--audience",
            "--mode",
            "--at",
            "<TOKEN>",
            "MRTR_GUARD_KEY",
            "MRTR_GUARD_AUDIENCE",
        ],
    ),
];

#[test]
fn help_for_the_program_names_every_subcommand() {
    for args in [&["--help"][..], &["-h"], &["help"]] {
        // With a key in the environment: help never shows it.
        let output = run_with_key(args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        let text = stdout(&output);
        for (name, _) in OPTIONS {
            assert!(text.contains(name), "{args:?} does not name {name}: {text}");
        }
        assert!(
            text.contains("Exit codes: 0 ok, 1 refused, 2 usage error"),
            "{text}"
        );
        assert!(!text.contains(KEY), "{text}");
        assert!(stderr(&output).is_empty(), "{}", stderr(&output));
    }
}

#[test]
fn help_for_every_subcommand_names_its_options() {
    for (name, options) in OPTIONS {
        for args in [[name, "--help"], [name, "-h"], ["help", name]] {
            let output = run_with_key(&args);
            assert_eq!(output.status.code(), Some(0), "{args:?}");
            let text = stdout(&output);
            assert!(text.contains(&format!("mrtr-guard {name}")), "{text}");
            for option in options {
                assert!(
                    text.contains(option),
                    "{args:?} does not name {option}: {text}"
                );
            }
            assert!(!text.contains(KEY), "{text}");
        }
    }
    // `open --help` explains where the key comes from and gives an example.
    let text = stdout(&run(&["open", "--help"]));
    assert!(text.contains("never taken on the command line"), "{text}");
    assert!(text.contains("Example"), "{text}");
}

#[test]
fn version_prints_the_crate_version() {
    for flag in ["--version", "-V"] {
        let output = run(&[flag]);
        assert_eq!(output.status.code(), Some(0), "{flag}");
        assert_eq!(
            stdout(&output),
            format!("mrtr-guard {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

/// `args` as owned strings, for lists that mix literals and built ones.
fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|arg| (*arg).to_owned()).collect()
}

/// `open_args("ada", token)` with `extra` put right after `open`.
fn open_with(extra: &[&str], token: &str) -> Vec<String> {
    let mut args = open_args("ada", token);
    args.splice(1..1, extra.iter().copied());
    owned(&args)
}

/// Runs with the key in the environment and checks for a usage error.
fn usage_error(args: &[String]) -> Output {
    let output = run_with_key(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        output.status.code(),
        Some(2),
        "{args:?}: {}",
        stderr(&output)
    );
    output
}

#[test]
fn more_usage_errors_exit_2() {
    let token = token(Mode::Sealed, OffsetDateTime::now_utc());
    for args in [
        owned(&["keygen", "--bogus"]),
        owned(&["inspect", "--bogus", &token]),
        owned(&["help", "frobnicate"]),
        open_with(&["--mode", "both"], &token),
        open_with(&["--at", "soon"], &token),
        open_with(&["--at", "99999999999999999999"], &token),
        open_with(&["--anonymous=yes"], &token),
        open_with(&["--mode"], &token),
        [open_with(&[], &token), vec![token.clone()]].concat(),
    ] {
        let output = usage_error(&args);
        assert!(stdout(&output).is_empty(), "{args:?}: {}", stdout(&output));
        assert!(!stderr(&output).is_empty(), "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn arguments_that_are_not_utf8_exit_2() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt as _;

    let output = cli()
        .arg("inspect")
        .arg(OsStr::from_bytes(b"A\xffB"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

/// A usage error names the argument, never the text given for it: a key (or
/// a token, or a principal) typed in the wrong place must not reach a log.
#[test]
fn usage_errors_never_echo_what_was_given() {
    let token = token(Mode::Sealed, OffsetDateTime::now_utc());
    for args in [
        owned(&[KEY]),
        owned(&[&token]),
        owned(&["keygen", KEY]),
        owned(&["inspect", &token, KEY]),
        owned(&["help", KEY]),
        open_with(&[&format!("--key={KEY}")], &token),
        open_with(&["--key", KEY], &token),
        open_with(&["--key", KEY, "--bogus"], &token),
        owned(&["open", "--key", KEY]),
        open_with(&["--method", KEY], &token),
        open_with(&["--mode", KEY], &token),
        open_with(&["--at", KEY], &token),
        open_with(&["--arguments", KEY], &token),
        open_with(&[&format!("--anonymous={KEY}")], &token),
        [open_with(&[], &token), vec![KEY.to_owned()]].concat(),
        [open_with(&[], KEY), vec![token.clone()]].concat(),
    ] {
        let output = usage_error(&args);
        let (out, err) = (stdout(&output), stderr(&output));
        for secret in [KEY, token.as_str()] {
            assert!(!err.contains(secret), "{args:?} echoes: {err}");
            assert!(!out.contains(secret), "{args:?} echoes: {out}");
        }
    }
}

/// docs/FORMAT.md 4.1 and the server agree: arguments with a member named
/// twice are refused (serde_json alone keeps the last value, so
/// `{"orderId":1,"orderId":42}` would open a token bound to `{"orderId":42}`).
#[test]
fn open_refuses_arguments_with_a_duplicate_member() {
    let token = token(Mode::Sealed, OffsetDateTime::now_utc());
    let mut args = owned(&open_args("ada", &token));
    let at = args.iter().position(|arg| arg == "--arguments").unwrap() + 1;
    args[at] = r#"{"orderId": 1, "orderId": 42}"#.to_owned();
    let output = usage_error(&args);
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    assert!(
        stderr(&output).contains("--arguments"),
        "{}",
        stderr(&output)
    );
    // The same arguments once each still open.
    args[at] = r#"{"orderId": 42}"#.to_owned();
    let output = run_with_key(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}
