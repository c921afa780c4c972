//! Constant-time evidence: dudect-style Welch t-tests on `StateCodec::open_at`.
//!
//! `cargo bench -p mrtr-guard-peers --bench ct [-- FILTER]`
//!
//! Each test times one call per measurement, the two input classes drawn at
//! random and interleaved, and reports the largest |t| over the uncropped
//! and 100 percentile-cropped sample sets (dudect-bencher's `max t`). A
//! |t| above 4.5 is the usual threshold for "these two classes take
//! different times". `CT_MEASUREMENTS` sets the measurements per test
//! (default 1,000,000, split at random between the classes).
//!
//! - `signed_tag_first_vs_last_byte`: a signed token whose tag differs from
//!   the right one in its first byte, against one that differs in its last.
//!   An early-exit comparison would return sooner for the first.
//! - `sealed_wrong_binding_vs_wrong_tag`: an authentic sealed token opened
//!   under another user's binding, against the same token with its last
//!   tag byte flipped, opened under the right binding. Both must fail at the
//!   same tag check, after the same work.
//! - `signed_wrong_binding_vs_wrong_tag`: the same pair in signed mode.
//! - `sealed_tag_first_vs_last_byte`: the first test in sealed mode.
//! - `control_naive_eq_first_vs_last_byte`: a positive control that must
//!   fail: `==` on two 4 KiB slices differing in the first byte against the
//!   last. It shows the harness sees a leak on this machine.
//! - `control_early_exit_tag_first_vs_last_byte`: a positive control at the
//!   scale of a tag check: HMAC-SHA256 over 850 bytes, then an early-exit
//!   comparison of the 32-byte tags (1 byte compared against 32).
//! - `control_same_inputs_in_both_classes`: the null control: both classes
//!   open the same forged sealed tokens, so its |t| is the noise floor of
//!   the machine and the harness.
//! - `diag_*`: diagnostics that split `signed_tag_first_vs_last_byte` into
//!   its parts: the token's base64 decode and layout split alone
//!   (`TokenInfo::parse`), the `base64` crate's decode by itself, the HMAC
//!   tag check alone, and the same tag byte wrong by different bits.
//!
//! Tokens are built through the public API only: `start_at`, then bytes of
//! the base64url-decoded token flipped and re-encoded with the same strict
//! unpadded URL-safe alphabet.
//!
//! The harness itself must not tell the classes apart: the whole plan
//! (class and input of every measurement) is drawn first, and before each
//! measurement the input is written into one shared buffer by [`blend`],
//! which reads both classes' inputs and selects bytes with a mask. Both
//! mattered on this machine: a `match` on the class before the timer, or
//! copying the chosen input from where it lies, each gave |t| well above
//! 4.5 to classes with identical bytes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    missing_docs,
    reason = "benchmark code (the workspace lints are for the library): a panic is a failed run"
)]

use std::hint::black_box;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use dudect_bencher::ctbench::{BenchMetadata, BenchName, BenchOpts, run_benches_console};
use dudect_bencher::rand::RngExt as _;
use dudect_bencher::{BenchRng, Class, CtRunner};
use mrtr_guard::state::TokenInfo;
use mrtr_guard::{Binding, MasterKey, Method, Mode, StateCodec, StateContents, StateError};
use mrtr_guard_peers::app_data;
use serde_json::{Value, json};
use time::OffsetDateTime;

const AUDIENCE: &str = "https://mcp.example.com/mcp";

fn measurements() -> usize {
    std::env::var("CT_MEASUREMENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000)
}

/// The measurement plan: each measurement's class, the side of the input
/// table it reads (0 for `Left`, 1 for `Right`) and which of that side's
/// `TOKENS` inputs, all drawn before the first measurement. Between one timed
/// call and the next, nothing then depends on the class but which bytes are
/// copied: no branch on it and no random draw runs there (a class-dependent
/// branch just before the timer starts was enough to move the null control's
/// |t| to 3.3-5.2, always with the same sign).
fn plan(rng: &mut BenchRng) -> Vec<(Class, usize, usize)> {
    (0..measurements())
        .map(|_| {
            let i = rng.random_range(0..TOKENS);
            if rng.random::<bool>() {
                (Class::Left, 0, i)
            } else {
                (Class::Right, 1, i)
            }
        })
        .collect()
}

fn codec(mode: Mode) -> StateCodec {
    StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&[7; 32]).expect("key"))
        .mode(mode)
        .build()
        .expect("codec")
}

/// `token` with byte `at` of its decoded bytes (from the end when negative)
/// XORed with `0x01`, re-encoded.
fn flip(token: &str, at: isize) -> String {
    let mut bytes = URL_SAFE_NO_PAD.decode(token).expect("base64");
    let at = if at < 0 {
        bytes.len() - at.unsigned_abs()
    } else {
        at.unsigned_abs()
    };
    bytes[at] ^= 0x01;
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Writes `pair[side]` into `out`, reading both inputs in full and in the
/// same order whichever side is chosen, and selecting each byte with a mask:
/// before a measurement, the memory accesses are then the same for both
/// classes and only the bytes written differ. (Copying the chosen input
/// from where it lies was enough, for short operations, to give two
/// classes with identical bytes |t| = 17-25.)
fn blend(out: &mut Vec<u8>, pair: [&[u8]; 2], side: usize) {
    assert_eq!(
        pair[0].len(),
        pair[1].len(),
        "both classes' inputs have one length"
    );
    out.resize(pair[0].len(), 0);
    let mask = 0u8.wrapping_sub(side as u8);
    for ((o, a), b) in out.iter_mut().zip(pair[0]).zip(pair[1]) {
        *o = a ^ ((a ^ b) & mask);
    }
}

/// How many distinct tokens each class draws from.
const TOKENS: usize = 64;

/// Times `open_at` on the two classes' (token, principal) pairs, all of
/// which must be refused as forged. Each measurement takes a pair at random
/// from its class, reads its token from one shared buffer (after reading the
/// other class's token there too) and builds its binding from one shared
/// principal buffer: the classes differ in content only, not in where their
/// bytes lie or in which lines the caches hold.
fn open_forged(
    runner: &mut CtRunner,
    rng: &mut BenchRng,
    codec: &StateCodec,
    left: &[(String, &str)],
    right: &[(String, &str)],
    now: OffsetDateTime,
) {
    let args = arguments();
    for (token, principal) in left.iter().chain(right) {
        assert_eq!(
            codec
                .open_at::<Value>(token, &binding(principal, &args), now)
                .err(),
            Some(StateError::Forged)
        );
    }
    let mut text = Vec::new();
    let mut principal = Vec::new();
    for (class, side, i) in plan(rng) {
        blend(
            &mut text,
            [left[i].0.as_bytes(), right[i].0.as_bytes()],
            side,
        );
        blend(
            &mut principal,
            [left[i].1.as_bytes(), right[i].1.as_bytes()],
            side,
        );
        let text = std::str::from_utf8(&text).expect("ascii");
        let binding = binding(std::str::from_utf8(&principal).expect("ascii"), &args);
        runner.run_one(class, || {
            codec.open_at::<Value>(black_box(text), black_box(&binding), now)
        });
    }
}

fn arguments() -> Value {
    json!({"orderId": 42})
}

fn binding<'a>(principal: &'a str, args: &Value) -> Binding<'a> {
    Binding::new(principal, Method::ToolsCall, "ShipOrder", Some(args))
}

/// `TOKENS` fresh tokens, each with its own flow id (and nonce, sealed).
fn tokens(codec: &StateCodec, binding: &Binding<'_>, now: OffsetDateTime) -> Vec<String> {
    (0..TOKENS)
        .map(|_| {
            codec
                .start_at(binding, &StateContents::new(app_data(512)), now)
                .expect("mint")
        })
        .collect()
}

fn tag_first_vs_last_byte(runner: &mut CtRunner, rng: &mut BenchRng, mode: Mode) {
    let args = arguments();
    let now = OffsetDateTime::now_utc();
    let codec = codec(mode);
    let tokens = tokens(&codec, &binding("user-7", &args), now);
    // The tag is the last 32 bytes (signed) or 16 bytes (sealed).
    let tag_len: isize = if mode == Mode::Signed { 32 } else { 16 };
    let first: Vec<_> = tokens
        .iter()
        .map(|t| (flip(t, -tag_len), "user-7"))
        .collect();
    let last: Vec<_> = tokens.iter().map(|t| (flip(t, -1), "user-7")).collect();
    open_forged(runner, rng, &codec, &first, &last, now);
}

fn signed_tag_first_vs_last_byte(runner: &mut CtRunner, rng: &mut BenchRng) {
    tag_first_vs_last_byte(runner, rng, Mode::Signed);
}

fn sealed_tag_first_vs_last_byte(runner: &mut CtRunner, rng: &mut BenchRng) {
    tag_first_vs_last_byte(runner, rng, Mode::Sealed);
}

fn wrong_binding_vs_wrong_tag(runner: &mut CtRunner, rng: &mut BenchRng, mode: Mode) {
    let now = OffsetDateTime::now_utc();
    let codec = codec(mode);
    let tokens = tokens(&codec, &binding("user-7", &arguments()), now);
    // Another user of the same length: the context has the same size, only
    // the MAC differs.
    let wrong_binding: Vec<_> = tokens.iter().map(|t| (t.clone(), "user-8")).collect();
    let wrong_tag: Vec<_> = tokens.iter().map(|t| (flip(t, -1), "user-7")).collect();
    open_forged(runner, rng, &codec, &wrong_binding, &wrong_tag, now);
}

fn sealed_wrong_binding_vs_wrong_tag(runner: &mut CtRunner, rng: &mut BenchRng) {
    wrong_binding_vs_wrong_tag(runner, rng, Mode::Sealed);
}

fn signed_wrong_binding_vs_wrong_tag(runner: &mut CtRunner, rng: &mut BenchRng) {
    wrong_binding_vs_wrong_tag(runner, rng, Mode::Signed);
}

/// Diagnostic: the same byte (the tag's last) wrong in both classes, by a
/// different bit. The tag matches in as many bytes either way; only the
/// token's text differs.
fn diag_signed_last_byte_bit0_vs_bit1(runner: &mut CtRunner, rng: &mut BenchRng) {
    let now = OffsetDateTime::now_utc();
    let codec = codec(Mode::Signed);
    let tokens = tokens(&codec, &binding("user-7", &arguments()), now);
    let flip_bit = |t: &str, bit: u8| {
        let mut bytes = URL_SAFE_NO_PAD.decode(t).expect("base64");
        if let Some(last) = bytes.last_mut() {
            *last ^= bit;
        }
        (URL_SAFE_NO_PAD.encode(bytes), "user-7")
    };
    let bit0: Vec<_> = tokens.iter().map(|t| flip_bit(t, 0x01)).collect();
    let bit1: Vec<_> = tokens.iter().map(|t| flip_bit(t, 0x40)).collect();
    open_forged(runner, rng, &codec, &bit0, &bit1, now);
}

/// Diagnostic: HMAC-SHA256 `verify_slice` alone on decoded bytes, the tag
/// wrong in its first against its last byte: the tag check without base64.
/// An HMAC-SHA256 tag check over 850 bytes, the tag wrong in its first
/// against its last byte, compared with `equal`.
fn hmac_first_vs_last_byte(
    runner: &mut CtRunner,
    rng: &mut BenchRng,
    equal: impl Fn(&[u8], &[u8]) -> bool,
) {
    use hmac::{Hmac, KeyInit, Mac};
    let keyed = <Hmac<sha2::Sha256> as KeyInit>::new_from_slice(&[7; 32]).expect("key");
    let msg = vec![0x61u8; 850];
    let tag = keyed.clone().chain_update(&msg).finalize().into_bytes();
    let mut first = tag.to_vec();
    first[0] ^= 1;
    let mut last = tag.to_vec();
    last[31] ^= 1;
    let mut slot = Vec::new();
    for (class, side, _) in plan(rng) {
        blend(&mut slot, [&first, &last], side);
        runner.run_one(class, || {
            let computed = keyed.clone().chain_update(black_box(&msg)).finalize();
            equal(&computed.into_bytes(), &slot)
        });
    }
}

/// Diagnostic: the HMAC check alone, through `subtle` (`ct_eq`).
fn diag_bare_hmac_first_vs_last_byte(runner: &mut CtRunner, rng: &mut BenchRng) {
    use subtle::ConstantTimeEq as _;
    hmac_first_vs_last_byte(runner, rng, |a, b| a.ct_eq(b).into());
}

/// Positive control at the scale that matters: the same HMAC check with an
/// early-exit byte comparison, which returns after one byte for the first
/// class and after 32 for the second. The harness must see it.
fn control_early_exit_tag_first_vs_last_byte(runner: &mut CtRunner, rng: &mut BenchRng) {
    hmac_first_vs_last_byte(runner, rng, |a, b| {
        a.iter().zip(b).all(|(x, y)| black_box(x) == black_box(y))
    });
}

/// Times `decode` alone on the signed token texts of
/// `signed_tag_first_vs_last_byte` (tags wrong in their first against their
/// last byte), through the same shared buffer.
fn base64_first_vs_last_byte(
    runner: &mut CtRunner,
    rng: &mut BenchRng,
    decode: impl Fn(&str) -> bool,
) {
    let now = OffsetDateTime::now_utc();
    let codec = codec(Mode::Signed);
    let tokens = tokens(&codec, &binding("user-7", &arguments()), now);
    let first: Vec<_> = tokens.iter().map(|t| flip(t, -32)).collect();
    let last: Vec<_> = tokens.iter().map(|t| flip(t, -1)).collect();
    let mut text = Vec::new();
    for (class, side, i) in plan(rng) {
        blend(&mut text, [first[i].as_bytes(), last[i].as_bytes()], side);
        let text = std::str::from_utf8(&text).expect("ascii");
        runner.run_one(class, || decode(black_box(text)));
    }
}

/// The crate's token decode (`TokenInfo::parse` is the strict base64url
/// decode and the layout split, nothing else).
fn diag_signed_base64_first_vs_last_byte(runner: &mut CtRunner, rng: &mut BenchRng) {
    base64_first_vs_last_byte(runner, rng, |text| TokenInfo::parse(text).is_ok());
}

/// The `base64` crate's decoder alone on the same texts (the crate decodes
/// token text with it), to separate the decode from the layout split.
fn diag_base64_crate_first_vs_last_byte(runner: &mut CtRunner, rng: &mut BenchRng) {
    base64_first_vs_last_byte(runner, rng, |text| URL_SAFE_NO_PAD.decode(text).is_ok());
}

/// The null control: both classes open the very same forged tokens. Any
/// |t| it shows comes from the machine and the harness, not from the code.
fn control_same_inputs_in_both_classes(runner: &mut CtRunner, rng: &mut BenchRng) {
    let now = OffsetDateTime::now_utc();
    let codec = codec(Mode::Sealed);
    let forged: Vec<_> = tokens(&codec, &binding("user-7", &arguments()), now)
        .iter()
        .map(|t| (flip(t, -1), "user-7"))
        .collect();
    open_forged(runner, rng, &codec, &forged, &forged, now);
}

fn control_naive_eq_first_vs_last_byte(runner: &mut CtRunner, rng: &mut BenchRng) {
    let reference = vec![0x5au8; 4096];
    let mut first = reference.clone();
    first[0] ^= 1;
    let mut last = reference.clone();
    last[4095] ^= 1;
    let sides = [&first, &last];
    for (class, side, _) in plan(rng) {
        let other = sides[side];
        runner.run_one(class, || black_box(&reference[..]) == black_box(&other[..]));
    }
}

/// dudect-bencher's own `main` refuses the `--bench` flag that `cargo bench`
/// passes: take a plain filter argument, ignore flags.
fn main() -> std::io::Result<()> {
    let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let benches: [(&'static str, dudect_bencher::ctbench::BenchFn); 11] = [
        (
            "diag_signed_base64_first_vs_last_byte",
            diag_signed_base64_first_vs_last_byte,
        ),
        (
            "diag_base64_crate_first_vs_last_byte",
            diag_base64_crate_first_vs_last_byte,
        ),
        (
            "diag_signed_last_byte_bit0_vs_bit1",
            diag_signed_last_byte_bit0_vs_bit1,
        ),
        (
            "diag_bare_hmac_first_vs_last_byte",
            diag_bare_hmac_first_vs_last_byte,
        ),
        (
            "signed_tag_first_vs_last_byte",
            signed_tag_first_vs_last_byte,
        ),
        (
            "sealed_tag_first_vs_last_byte",
            sealed_tag_first_vs_last_byte,
        ),
        (
            "sealed_wrong_binding_vs_wrong_tag",
            sealed_wrong_binding_vs_wrong_tag,
        ),
        (
            "signed_wrong_binding_vs_wrong_tag",
            signed_wrong_binding_vs_wrong_tag,
        ),
        (
            "control_naive_eq_first_vs_last_byte",
            control_naive_eq_first_vs_last_byte,
        ),
        (
            "control_early_exit_tag_first_vs_last_byte",
            control_early_exit_tag_first_vs_last_byte,
        ),
        (
            "control_same_inputs_in_both_classes",
            control_same_inputs_in_both_classes,
        ),
    ];
    let benches = benches
        .into_iter()
        .map(|(name, benchfn)| BenchMetadata {
            name: BenchName(name),
            seed: None,
            benchfn,
        })
        .collect();
    let opts = BenchOpts {
        filter,
        ..BenchOpts::default()
    };
    run_benches_console(opts, benches)
}
