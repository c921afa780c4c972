//! `mrtr-guard`: an operator's tool for `requestState` tokens (feature `cli`).
//!
//! ```text
//! mrtr-guard keygen
//! mrtr-guard inspect <TOKEN>
//! mrtr-guard open --method <METHOD> --target <TARGET> <--principal <PRINCIPAL>|--anonymous>
//!                 [--arguments <JSON>] [--audience <AUDIENCE>] [--mode <MODE>]
//!                 [--at <UNIX_SECONDS>] <TOKEN>
//! mrtr-guard help [COMMAND]    (or --help after any command; --version)
//! ```
//!
//! `inspect` needs no key and shows only structural facts. `open` takes the
//! master key from the environment (`MRTR_GUARD_KEY`, base64), never from the
//! command line, and prints the claims' times, round, flow id and replay-guard
//! generation (never the carried answers or application data) or the reason
//! the token is refused.
//! A token given as `-` is read from standard input.
//!
//! Exit codes: 0 ok (and help, version), 1 refused, 2 usage error. A usage
//! error names the argument at fault, never the text given for it.

use std::convert::Infallible;
use std::io::Read as _;
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, Parser, Subcommand, ValueEnum};
use mrtr_guard::json::{Limits, parse_strict};
use mrtr_guard::state::{Claims, ConfigError, TokenInfo};
use mrtr_guard::{Binding, KeyRing, MasterKey, Method, Mode, StateCodec, StateError};
use serde_json::Value;
use time::OffsetDateTime;
use zeroize::Zeroizing;

const KEY_VAR: &str = "MRTR_GUARD_KEY";
const AUDIENCE_VAR: &str = "MRTR_GUARD_AUDIENCE";
/// The exit code of every usage error (clap's own default is the same).
const USAGE: u8 = 2;

const AFTER_HELP: &str = "\
A token given as - is read from standard input.
Exit codes: 0 ok, 1 refused, 2 usage error.";

const KEYGEN_AFTER_HELP: &str = "\
The key goes to standard output only: put it straight into your secret store.";

const INSPECT_AFTER_HELP: &str = "\
Example:
  mrtr-guard inspect \"$TOKEN\"
  printf '%s\\n' \"$TOKEN\" | mrtr-guard inspect -

Exit codes: 0 a well-formed token, 1 refused (the reason is printed), 2 usage error.";

const OPEN_AFTER_HELP: &str = "\
Environment:
  MRTR_GUARD_KEY       the base64 master key (required; never taken on the command line)
  MRTR_GUARD_AUDIENCE  the audience when --audience is not given

Example:
  export MRTR_GUARD_KEY=...   # from your secret store
  mrtr-guard open --method tools/call --target ShipOrder --principal user-7 \\
      --arguments '{\"orderId\":42}' --audience https://mcp.example.com/mcp \"$TOKEN\"

Exit codes: 0 the token opens, 1 refused (the reason is printed), 2 usage error.";

/// Make keys and look at requestState tokens (MCP Multi Round-Trip Requests).
#[derive(Debug, Parser)]
#[command(name = "mrtr-guard", version, after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a new random master key (base64) and its key id.
    #[command(after_help = KEYGEN_AFTER_HELP)]
    Keygen,
    /// Print a token's version, mode, key id and lengths; needs no key,
    /// decrypts nothing.
    #[command(after_help = INSPECT_AFTER_HELP)]
    Inspect {
        /// The token, or - to read it from standard input.
        token: String,
    },
    /// Open a token for the call described, with the key in MRTR_GUARD_KEY,
    /// and print its times, round, flow id and guard generation, or why it
    /// is refused.
    #[command(after_help = OPEN_AFTER_HELP)]
    Open(OpenArgs),
}

/// The options of `open`. A value may start with `-` (a target or a
/// principal may).
#[derive(Debug, Args)]
struct OpenArgs {
    /// The call's method: tools/call, prompts/get or resources/read.
    #[arg(long, value_parser = method, allow_hyphen_values = true)]
    method: Method,
    /// The call's target: the tool's or the prompt's name, or the resource's
    /// URI.
    #[arg(long, allow_hyphen_values = true)]
    target: String,
    #[command(flatten)]
    caller: Caller,
    /// The call's arguments, as JSON (compared in canonical form, so key
    /// order and number spelling do not matter).
    #[arg(long, value_name = "JSON", value_parser = json, allow_hyphen_values = true)]
    arguments: Option<Value>,
    /// The audience the codec was built with (the server's URL); defaults to
    /// MRTR_GUARD_AUDIENCE.
    #[arg(long, allow_hyphen_values = true)]
    audience: Option<String>,
    /// The codec's mode; defaults to the mode the token names.
    #[arg(long, value_enum)]
    mode: Option<ModeArg>,
    /// Judge the token at this time (Unix seconds) instead of now.
    #[arg(long, value_name = "UNIX_SECONDS", value_parser = unix_time, allow_hyphen_values = true)]
    at: Option<OffsetDateTime>,
    /// Refused: a key on the command line would show in the process list and
    /// the shell history. Its text is dropped as it is parsed.
    #[arg(long, hide = true, num_args = 0..=1, value_parser = drop_key, allow_hyphen_values = true)]
    key: Option<Option<KeyOnCommandLine>>,
    /// The token, or - to read it from standard input.
    token: String,
}

/// Who the token was minted for: exactly one of the two.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
struct Caller {
    /// The authenticated principal the call is made by.
    #[arg(long, allow_hyphen_values = true)]
    principal: Option<String>,
    /// The call is anonymous (the token was minted with no principal).
    #[arg(long)]
    anonymous: bool,
}

/// The codec modes, as `--mode` spells them.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ModeArg {
    /// XChaCha20-Poly1305: the claims are encrypted.
    Sealed,
    /// HMAC-SHA256: the claims are readable, not changeable.
    Signed,
}

impl From<ModeArg> for Mode {
    fn from(mode: ModeArg) -> Self {
        match mode {
            ModeArg::Sealed => Self::Sealed,
            ModeArg::Signed => Self::Signed,
        }
    }
}

/// What `--key`'s value becomes: nothing of its text.
///
/// The value parsers below never quote their input in an error.
#[derive(Debug, Clone, Copy)]
struct KeyOnCommandLine;

fn drop_key(_: &str) -> Result<KeyOnCommandLine, Infallible> {
    Ok(KeyOnCommandLine)
}

fn method(text: &str) -> Result<Method, &'static str> {
    Method::from_name(text).ok_or("must be tools/call, prompts/get or resources/read")
}

/// Parsed as the server screens a body (docs/FORMAT.md 4.1): duplicate
/// member names, lone surrogates and trailing data are refused, never
/// resolved to the last value.
fn json(text: &str) -> Result<Value, String> {
    parse_strict(text.as_bytes(), &Limits::default())
        .map_err(|error| format!("is not strict JSON: {error}"))
}

fn unix_time(text: &str) -> Result<OffsetDateTime, &'static str> {
    text.parse::<i64>()
        .ok()
        .and_then(|seconds| OffsetDateTime::from_unix_timestamp(seconds).ok())
        .ok_or("must be a Unix time in seconds")
}

fn main() -> ExitCode {
    match Cli::try_parse() {
        Ok(cli) => match cli.command {
            Command::Keygen => keygen(),
            Command::Inspect { token } => inspect(&token),
            Command::Open(args) => open(&args),
        },
        Err(error)
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) =>
        {
            // Help and version text are ours alone.
            print!("{error}");
            ExitCode::SUCCESS
        }
        Err(error) => usage_error(&parse_error(&error)),
    }
}

/// A parse error in words of our own and the argument's definition: never
/// clap's rendering, which quotes what was typed (it may be a key or a token).
fn parse_error(error: &clap::Error) -> String {
    let message = what_went_wrong(error);
    match error.get(ContextKind::Usage) {
        // Built from the definitions of the arguments given, not their values.
        Some(ContextValue::StyledStr(usage)) => format!("{message}\n{usage}"),
        _ => message,
    }
}

fn what_went_wrong(error: &clap::Error) -> String {
    // The definition's name, except for an unknown argument: the text typed.
    let arg = context(error, ContextKind::InvalidArg);
    match error.kind() {
        ErrorKind::UnknownArgument => {
            match arg.split_once('=').map_or(arg.as_str(), |(name, _)| name) {
                option if option.starts_with('-') => format!("unknown option {option}"),
                _ => "unexpected argument (its text is not shown)".to_owned(),
            }
        }
        ErrorKind::InvalidSubcommand => "unknown command (its text is not shown)".to_owned(),
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            "a command is required".to_owned()
        }
        ErrorKind::MissingRequiredArgument => format!("required: {arg}"),
        ErrorKind::ArgumentConflict => {
            let other = context(error, ContextKind::PriorArg);
            format!("give {arg} or {other}, not both")
        }
        ErrorKind::InvalidValue => match context(error, ContextKind::ValidValue) {
            valid if valid.is_empty() => format!("{arg} needs a value"),
            valid => format!("{arg} must be one of: {valid}"),
        },
        // The reason is one of our value parsers' messages (`method`, `json`, `unix_time`).
        ErrorKind::ValueValidation => match std::error::Error::source(error) {
            Some(reason) => format!("{arg} {reason}"),
            None => format!("{arg} is not valid"),
        },
        ErrorKind::TooManyValues => format!("{arg} takes no value here"),
        ErrorKind::InvalidUtf8 => "arguments must be UTF-8".to_owned(),
        kind => format!("{}: {arg}", kind.as_str().unwrap_or("invalid arguments")),
    }
}

/// One piece of a parse error's context, as text (empty when absent). Only
/// for the pieces clap fills from definitions; see `what_went_wrong`.
fn context(error: &clap::Error, kind: ContextKind) -> String {
    match error.get(kind) {
        Some(ContextValue::String(text)) => text.clone(),
        Some(ContextValue::Strings(texts)) => texts.join(", "),
        _ => String::new(),
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("mrtr-guard: {message}\n(`mrtr-guard help` shows the usage)");
    ExitCode::from(USAGE)
}

fn refused(error: &StateError) -> ExitCode {
    println!("refused: {}: {error}", error.reason());
    ExitCode::from(1)
}

fn keygen() -> ExitCode {
    let text = match MasterKey::generate_base64() {
        Ok(text) => text,
        Err(error) => {
            eprintln!("mrtr-guard: {error}");
            return ExitCode::from(1);
        }
    };
    match MasterKey::from_base64(&text) {
        Ok(key) => {
            println!("key:    {}", text.as_str());
            println!("key id: {}", key.id());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("mrtr-guard: {error}");
            ExitCode::from(1)
        }
    }
}

fn inspect(token: &str) -> ExitCode {
    let token = match read_token(token) {
        Ok(token) => token,
        Err(message) => return usage_error(&message),
    };
    match TokenInfo::parse(&token) {
        Ok(info) => {
            println!("version: 0x{:02x}", info.version());
            println!("mode:    {}", mode_name(info.mode()));
            println!("key id:  {}", info.key_id());
            println!(
                "length:  {} characters, {} bytes (header {}, body {}, tag {})",
                token.len(),
                info.byte_len(),
                info.header_len(),
                info.body_len(),
                info.tag_len()
            );
            // The generation is a claim: read only once the tag verified.
            println!("generation: in the claims, read by `open` (which checks the tag)");
            ExitCode::SUCCESS
        }
        Err(error) => refused(&error),
    }
}

fn open(args: &OpenArgs) -> ExitCode {
    if args.key.is_some() {
        return usage_error(&format!(
            "refusing a key on the command line (it would show in the process \
             list and the shell history); set {KEY_VAR} instead"
        ));
    }
    let token = match read_token(&args.token) {
        Ok(token) => token,
        Err(message) => return usage_error(&message),
    };
    let key = match std::env::var(KEY_VAR).map(Zeroizing::new) {
        Ok(text) if !text.trim().is_empty() => match MasterKey::from_base64(&text) {
            Ok(key) => key,
            Err(error) => return usage_error(&format!("{KEY_VAR}: {error}")),
        },
        _ => {
            return usage_error(&format!(
                "{KEY_VAR} is not set: put the base64 master key in the environment \
                 (it is never taken on the command line)"
            ));
        }
    };
    let key_id = key.id();
    let audience = match args
        .audience
        .clone()
        .or_else(|| std::env::var(AUDIENCE_VAR).ok())
    {
        Some(audience) if !audience.is_empty() => audience,
        _ => {
            return usage_error(&format!(
                "--audience (or {AUDIENCE_VAR}) is required: the MCP endpoint's URL the \
                 server's codec was built with (e.g. https://mcp.example.com/mcp)"
            ));
        }
    };
    let info = TokenInfo::parse(&token).ok();
    // The codec accepts one mode; by default, the one the token says it has.
    let mode = args
        .mode
        .map(Mode::from)
        .or(info.map(|info| info.mode()))
        .unwrap_or_default();
    let mut builder = StateCodec::builder(audience, KeyRing::new(key)).mode(mode);
    if args.caller.principal.is_none() {
        builder = builder.allow_anonymous();
    }
    let codec = match builder.build() {
        Ok(codec) => codec,
        Err(ConfigError::InvalidAudience) => {
            return usage_error(&format!(
                "--audience (or {AUDIENCE_VAR}) is not an absolute http(s) URL: give the MCP \
                 endpoint's URL the server's codec was built with \
                 (e.g. https://mcp.example.com/mcp)"
            ));
        }
        Err(error) => return usage_error(&error.to_string()),
    };
    let binding = match &args.caller.principal {
        Some(principal) => Binding::new(
            principal,
            args.method,
            &args.target,
            args.arguments.as_ref(),
        ),
        None => Binding::anonymous(args.method, &args.target, args.arguments.as_ref()),
    };
    let now = args.at.unwrap_or_else(OffsetDateTime::now_utc);
    match codec.open_at::<Value>(&token, &binding, now) {
        Ok(claims) => {
            print_claims(mode, key_id, &claims);
            ExitCode::SUCCESS
        }
        Err(error) => {
            let code = refused(&error);
            if let (StateError::UnknownKey, Some(info)) = (&error, info) {
                println!(
                    "the token names key {}; {KEY_VAR} holds key {key_id}",
                    info.key_id()
                );
            }
            code
        }
    }
}

fn print_claims(mode: Mode, key_id: mrtr_guard::state::KeyId, claims: &Claims<Value>) {
    println!("ok: the token opens for this call");
    println!("mode:          {}", mode_name(mode));
    println!("key id:        {key_id}");
    println!("round:         {}", claims.round());
    println!("flow id:       {}", claims.flow_id());
    match claims.generation() {
        Some(generation) => println!("generation:    {generation} (of the replay guard's memory)"),
        None => println!(
            "generation:    none (minted without a replay guard, or by an older version: \
             a guard refuses it)"
        ),
    }
    println!("issued at:     {}", utc(claims.issued_at()));
    println!("expires at:    {}", utc(claims.expires_at()));
    println!("flow deadline: {}", utc(claims.deadline()));
    println!(
        "carries:       {} outstanding question(s), {} answer(s), application data \
         (contents not shown)",
        claims.questions().len(),
        claims.answers().len()
    );
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Sealed => "sealed (XChaCha20-Poly1305)",
        Mode::Signed => "signed (HMAC-SHA256)",
        _ => "unknown",
    }
}

/// `2027-01-15T08:00:00Z (1800000000)`, without `time`'s formatting feature.
fn utc(at: OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z ({})",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.unix_timestamp()
    )
}

/// The token itself, or standard input's first line for `-`.
fn read_token(arg: &str) -> Result<String, String> {
    if arg != "-" {
        return Ok(arg.to_owned());
    }
    let mut text = String::new();
    std::io::stdin()
        .take(1 << 20)
        .read_to_string(&mut text)
        .map_err(|_| "standard input is not readable UTF-8 text".to_owned())?;
    Ok(text.trim().to_owned())
}
