//! [`Lua`]: a script the client sends by its SHA1 (`EVALSHA`), so that a
//! call carries its keys and arguments and not the script's text (up to
//! 2 KiB: the budgets' scripts). Redis keeps every script it ran, by SHA1,
//! until it restarts, fails over to a replica (a replica's cache is its
//! own) or is told `SCRIPT FLUSH`; a node without it answers `NOSCRIPT`
//! and runs nothing, and the call goes again as `EVAL` with the text, which
//! also leaves the script there for the next call. So a script runs once
//! per call either way. A pipeline that found a script missing sends its
//! text once, in the first call of it that goes again: the calls after it
//! in the same pipeline find it there. (On a cluster, calls that go out at
//! once to one node may each carry the text once after a loss.)

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

use redis::{Cmd, ErrorKind, RedisError, ServerErrorKind};

/// One script, from its parts joined in order (the budgets' shared
/// functions, then a script's own lines); its text and SHA1 made at first
/// use.
pub(crate) struct Lua {
    parts: &'static [&'static str],
    made: OnceLock<Made>,
}

/// A script's text and its SHA1, in lower-case hex as Redis names it.
struct Made {
    text: String,
    sha: String,
}

impl Lua {
    /// The script whose text is `parts`, joined.
    pub(crate) const fn new(parts: &'static [&'static str]) -> Self {
        Self {
            parts,
            made: OnceLock::new(),
        }
    }

    /// `EVALSHA <sha1> <keys>`: the call's keys and arguments follow.
    pub(crate) fn call(&'static self, keys: usize) -> Cmd {
        let mut command = redis::cmd("EVALSHA");
        command.arg(&self.made().sha).arg(keys);
        command
    }

    fn made(&'static self) -> &'static Made {
        self.made.get_or_init(|| {
            let text = self.parts.concat();
            let sha = redis::Script::new(&text).get_hash().to_owned();
            sent()
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(sha.clone(), self);
            Made { text, sha }
        })
    }
}

/// Every script this process has called, by SHA1: what a `NOSCRIPT` reply
/// to one of its calls is answered with.
fn sent() -> &'static Mutex<HashMap<String, &'static Lua>> {
    static SENT: OnceLock<Mutex<HashMap<String, &'static Lua>>> = OnceLock::new();
    SENT.get_or_init(Mutex::default)
}

/// Whether Redis answered that it lacks the script: it ran nothing.
pub(crate) fn is_missing(error: &RedisError) -> bool {
    error.kind() == ErrorKind::Server(ServerErrorKind::NoScript)
}

/// The SHA1 `command` names, when it is an `EVALSHA`.
pub(crate) fn sha_of(command: &Cmd) -> Option<&str> {
    let mut args = command.args_iter().map(bytes_of);
    if !args.next()?.eq_ignore_ascii_case(b"EVALSHA") {
        return None;
    }
    std::str::from_utf8(args.next()?).ok()
}

/// `command` as `EVAL` of its script's text, with the same keys and
/// arguments, when it is a [`Lua::call`] of this process; `None` for any
/// other command.
pub(crate) fn with_text(command: &Cmd) -> Option<Cmd> {
    let sha = sha_of(command)?;
    let args = command.args_iter().map(bytes_of).skip(2);
    let lua = *sent()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(sha)?;
    let mut eval = redis::cmd("EVAL");
    eval.arg(&lua.made().text);
    for arg in args {
        eval.arg(arg);
    }
    Some(eval)
}

/// An argument's bytes (a cursor, which no call here has, as none).
fn bytes_of(arg: redis::Arg<&[u8]>) -> &[u8] {
    match arg {
        redis::Arg::Simple(bytes) => bytes,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SCRIPT: Lua = Lua::new(&["return ", "KEYS[1]"]);

    #[test]
    fn a_call_names_its_script_by_sha1_and_carries_its_text_only_again() {
        let mut call = SCRIPT.call(1);
        call.arg("key").arg(7);
        let args: Vec<Vec<u8>> = call.args_iter().map(|arg| bytes_of(arg).to_vec()).collect();
        assert_eq!(args[0], b"EVALSHA");
        // SHA1 of "return KEYS[1]" (Python's hashlib).
        assert_eq!(args[1], b"4a2267357833227dd98abdedb8cf24b15a986445");
        assert_eq!(&args[2..], [b"1".to_vec(), b"key".to_vec(), b"7".to_vec()]);
        let eval = with_text(&call).expect("a call of this process");
        let again: Vec<Vec<u8>> = eval.args_iter().map(|arg| bytes_of(arg).to_vec()).collect();
        assert_eq!(
            again,
            [
                b"EVAL".to_vec(),
                b"return KEYS[1]".to_vec(),
                b"1".to_vec(),
                b"key".to_vec(),
                b"7".to_vec()
            ]
        );
        let mut other = redis::cmd("EVALSHA");
        other.arg("0000000000000000000000000000000000000000").arg(0);
        assert!(with_text(&other).is_none());
        assert!(with_text(&redis::cmd("PING")).is_none());
    }
}
