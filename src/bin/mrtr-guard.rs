//! `mrtr-guard`: an operator's tool for `requestState` tokens (feature `cli`).
//!
//! ```text
//! mrtr-guard keygen
//! mrtr-guard inspect <token>
//! mrtr-guard open --method M --target T (--principal P | --anonymous)
//!                 [--arguments JSON] [--audience A] [--mode sealed|signed]
//!                 [--at UNIX_SECONDS] <token>
//! ```
//!
//! `inspect` needs no key and shows only structural facts. `open` takes the
//! master key from the environment (`MRTR_GUARD_KEY`, base64), never from the
//! command line, and prints the claims' times, round and flow id (never the
//! carried answers or application data) or the reason the token is refused.
//! A token given as `-` is read from standard input.
//!
//! Exit codes: 0 ok, 1 refused, 2 usage error.

use std::io::Read as _;
use std::process::ExitCode;

use mrtr_guard::{
    Binding, Claims, KeyRing, MasterKey, Method, Mode, StateCodec, StateError, TokenInfo,
};
use serde_json::Value;
use time::OffsetDateTime;

const USAGE: &str = "\
usage:
  mrtr-guard keygen
      prints a new random master key (base64) and its key id
  mrtr-guard inspect <token>
      prints a token's version, mode, key id and lengths; needs no key, decrypts nothing
  mrtr-guard open --method M --target T (--principal P | --anonymous)
                  [--arguments JSON] [--audience A] [--mode sealed|signed]
                  [--at UNIX_SECONDS] <token>
      opens a token for the call described, with the key in MRTR_GUARD_KEY,
      and prints its times, round and flow id, or why it is refused
      (--audience defaults to MRTR_GUARD_AUDIENCE; --mode to the token's own)

A token given as - is read from standard input.
Exit codes: 0 ok, 1 refused, 2 usage error.";

const KEY_VAR: &str = "MRTR_GUARD_KEY";
const AUDIENCE_VAR: &str = "MRTR_GUARD_AUDIENCE";

fn main() -> ExitCode {
    let mut args = Vec::new();
    for arg in std::env::args_os().skip(1) {
        match arg.into_string() {
            Ok(arg) => args.push(arg),
            Err(_) => return usage_error("arguments must be UTF-8"),
        }
    }
    let (command, rest) = match args.split_first() {
        Some((command, rest)) => (command.as_str(), rest),
        None => return usage_error("a command is required"),
    };
    match command {
        "keygen" if rest.is_empty() => keygen(),
        "keygen" => usage_error("keygen takes no arguments"),
        "inspect" => match rest {
            [token] => inspect(token),
            _ => usage_error("inspect takes exactly one token"),
        },
        "open" => match OpenArgs::parse(rest) {
            Ok(open_args) => open(&open_args),
            Err(message) => usage_error(&message),
        },
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        other => usage_error(&format!("unknown command {other:?}")),
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("mrtr-guard: {message}\n(`mrtr-guard help` shows the usage)");
    ExitCode::from(2)
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
            ExitCode::SUCCESS
        }
        Err(error) => refused(&error),
    }
}

fn open(args: &OpenArgs) -> ExitCode {
    let token = match read_token(&args.token) {
        Ok(token) => token,
        Err(message) => return usage_error(&message),
    };
    let key = match std::env::var(KEY_VAR) {
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
        _ => return usage_error(&format!("--audience (or {AUDIENCE_VAR}) is required")),
    };
    let info = TokenInfo::parse(&token).ok();
    // The codec accepts one mode; by default, the one the token says it has.
    let mode = args
        .mode
        .or(info.map(|info| info.mode()))
        .unwrap_or_default();
    let mut builder = StateCodec::builder(audience, KeyRing::new(key)).mode(mode);
    if args.principal.is_none() {
        builder = builder.allow_anonymous();
    }
    let codec = match builder.build() {
        Ok(codec) => codec,
        Err(error) => return usage_error(&error.to_string()),
    };
    let binding = match &args.principal {
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

fn print_claims(mode: Mode, key_id: mrtr_guard::KeyId, claims: &Claims<Value>) {
    println!("ok: the token opens for this call");
    println!("mode:          {}", mode_name(mode));
    println!("key id:        {key_id}");
    println!("round:         {}", claims.round());
    println!("flow id:       {}", claims.flow_id());
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

/// The options of `open`.
#[derive(Debug)]
struct OpenArgs {
    method: Method,
    target: String,
    principal: Option<String>,
    arguments: Option<Value>,
    audience: Option<String>,
    mode: Option<Mode>,
    at: Option<OffsetDateTime>,
    token: String,
}

impl OpenArgs {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut method = None;
        let mut target = None;
        let mut principal = None;
        let mut anonymous = false;
        let mut arguments = None;
        let mut audience = None;
        let mut mode = None;
        let mut at = None;
        let mut token = None;
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((name, value)) if name.starts_with("--") => (name, Some(value.to_owned())),
                _ => (arg.as_str(), None),
            };
            let mut value = || {
                inline
                    .clone()
                    .or_else(|| rest.next().cloned())
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match name {
                "--method" => {
                    let text = value()?;
                    method = Some(Method::from_name(&text).ok_or_else(|| {
                        format!(
                            "--method must be tools/call, prompts/get or resources/read, not {text:?}"
                        )
                    })?);
                }
                "--target" => target = Some(value()?),
                "--principal" => principal = Some(value()?),
                "--anonymous" if inline.is_none() => anonymous = true,
                "--arguments" => {
                    let text = value()?;
                    let parsed = serde_json::from_str::<Value>(&text)
                        .map_err(|error| format!("--arguments is not JSON: {error}"))?;
                    arguments = Some(parsed);
                }
                "--audience" => audience = Some(value()?),
                "--mode" => {
                    mode = Some(match value()?.as_str() {
                        "sealed" => Mode::Sealed,
                        "signed" => Mode::Signed,
                        _ => return Err("--mode must be sealed or signed".to_owned()),
                    });
                }
                "--at" => {
                    let text = value()?;
                    let seconds = text
                        .parse::<i64>()
                        .ok()
                        .and_then(|s| OffsetDateTime::from_unix_timestamp(s).ok())
                        .ok_or_else(|| "--at must be a Unix time in seconds".to_owned())?;
                    at = Some(seconds);
                }
                "--key" => {
                    return Err(format!(
                        "refusing a key on the command line (it would show in the process \
                         list and the shell history); set {KEY_VAR} instead"
                    ));
                }
                _ if name.starts_with("--") => return Err(format!("unknown option {name}")),
                _ if token.is_none() => token = Some(arg.clone()),
                _ => return Err("open takes exactly one token".to_owned()),
            }
        }
        if principal.is_some() && anonymous {
            return Err("give --principal or --anonymous, not both".to_owned());
        }
        if principal.is_none() && !anonymous {
            return Err("--principal P (or --anonymous) is required".to_owned());
        }
        Ok(Self {
            method: method.ok_or("--method is required")?,
            target: target.ok_or("--target is required")?,
            principal,
            arguments,
            audience,
            mode,
            at,
            token: token.ok_or("a token is required")?,
        })
    }
}
