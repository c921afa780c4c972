//! Safe MCP **Multi Round-Trip Requests** for servers.
//!
//! Since MCP `2026-07-28` (SEP-2322) a tool that needs input returns
//! `resultType: "input_required"` with `inputRequests` and an opaque
//! `requestState`; the client asks the user and retries the same call with
//! `inputResponses` and the echoed `requestState`. Every retry is a new
//! stateless request, and everything in it comes from the client. This crate
//! is what a server puts between that untrusted retry and its tools.
//!
//! # What is protected, and what is not
//!
//! Protected: the state's integrity (any changed byte, any foreign key:
//! refused before its contents are read), its confidentiality in sealed mode,
//! its binding to the principal, method, target, arguments and audience it
//! was minted for, its expiry, flow deadline and round cap, single use with a
//! [`ReplayGuard`], and one error for every refusal. Not protected: replay
//! without a guard, revocation before expiry, a leaked master key,
//! authentication, privacy in signed mode, secrets in forms. The threat
//! model, each guarantee and the defaults:
//! [`SECURITY.md`](https://docs.rs/crate/mrtr-guard/latest/source/SECURITY.md).
//!
//! # Quick start
//!
//! ```
//! use mrtr_guard::{Binding, KeyRing, MasterKey, Method, Mode, RpcError, StateCodec, StateContents};
//! use serde_json::json;
//!
//! // Once per process: the key comes from your secret store.
//! let key = MasterKey::from_base64("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")?;
//! let codec = StateCodec::builder("https://mcp.example.com/mcp", KeyRing::new(key)).build()?;
//!
//! // Round 1: the tool needs input. Bind the state to this user and this call.
//! let args = json!({"orderId": 42});
//! let binding = Binding::new("user-7", Method::ToolsCall, "ShipOrder", Some(&args));
//! let request_state = codec.start(&binding, &StateContents::new(json!({"cart": 17})))?;
//!
//! // Round 2: the client echoes requestState on its retry. Rebuild the binding
//! // from the retry (its authenticated user, its tool name and arguments) and open.
//! match codec.open::<serde_json::Value>(&request_state, &binding) {
//!     Ok(claims) => assert_eq!(claims.app(), &json!({"cart": 17})),
//!     Err(reason) => {
//!         eprintln!("requestState refused: {}", reason.reason()); // for your logs
//!         let _wire_error = RpcError::from(reason).to_json(); // the same for every reason
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Multi-round tools
//!
//! [`Flow`] (once per server) and [`Round`] (once per call) turn the codec
//! and the forms into a handler written once: see the [`Round`] docs and
//! docs/GUIDE.md. The handler runs again from the top in every round; an effect that
//! must happen once per flow goes through [`Round::once`], and
//! [`Round::flow_id`] gives the flow's identifier for idempotency keys where
//! `once` is not enough (a replayed state, without a replay guard). Invalid
//! answers are asked again saying why, and a flow whose answers keep failing, or that
//! reaches its round cap or deadline while asking, ends with
//! [`RoundEnd::Aborted`] (a tool error); the answers a flow carries share
//! [`Flow::answer_budget`], so an accepted answer never makes a later state
//! too long to mint. Feature `rmcp` adds `mrtr_guard::rmcp`, the adapter
//! to the official Rust SDK.
//!
//! An invalid optional answer is asked again in a round, unless its field
//! [drops invalid values](Field::drop_if_invalid). A form that does not build
//! inside a handler is a server bug: `?` turns its [`FormError`] into an
//! internal error that keeps the reason ([`runtime::Misuse::InvalidForm`]).
//!
//! # How a call ends
//!
//! Each type is named for its job. [`Reply`] is what one question got in
//! this round (accepted, declined, pending, invalid…). [`Stop`] is the
//! handler's early exit by `?`: ask ([`Round::require`]), a decline, or
//! [`Stop::Error`], a JSON-RPC error (an application failure:
//! [`RpcError::internal_error_because`], whose reason reaches the logs and
//! never the wire). [`RoundEnd`] is how the round ended,
//! what the adapter puts on the wire: complete, input required, declined, or
//! [`RoundEnd::Aborted`] with a [`runtime::AbortReason`] the user is told in a
//! tool error. [`form::Verdict`] is the standalone validator's verdict on one
//! `ElicitResult`, for code that checks forms without the runtime.
//!
//! # Where things are
//!
//! The crate root holds what a server author touches. The rest is in these
//! modules, each built only on those before it:
//!
//! 1. [`json`], the input floor: the strict parser for untrusted bytes
//!    ([`json::parse_strict`], [`json::check_strict`] that refuses the same
//!    without building a tree, [`json::Limits`]), canonical JSON and the
//!    digest a token binds JSON with ([`json::JsonDigest`]);
//! 2. [`wire`], the protocol's words: the MCP 2026-07-28 types, [`Method`],
//!    [`RpcError`], the Streamable HTTP header checks ([`wire::check_headers`]);
//! 3. [`state`] (the `requestState` codec's parts: [`state::Claims`],
//!    [`state::TokenInfo`], key and policy errors) and [`form`] (field kinds,
//!    reports, the standalone validator);
//! 4. [`task`], where tasks are kept (the [`task::TaskStore`] contract and
//!    the in-process store), and [`connect`], URL-mode connect links that
//!    cannot be phished (the [`connect::Connector`], connections and their
//!    store; the connect route with feature `connect`, third-party OAuth
//!    with `connect-oauth`: [`docs/CONNECT.md`](https://docs.rs/crate/mrtr-guard/latest/source/docs/CONNECT.md)),
//!    beside [`runtime`] ([`Flow`], [`Round`], clocks,
//!    [`runtime::AbortReason`], the handler's [`runtime::Misuse`], and
//!    [`runtime::TaskPhase`]);
//! 5. `redis` (feature `redis`), one Redis client and the contracts it
//!    implements for a server of several instances: the replay guard and the
//!    task store;
//! 6. `rmcp` and `tower` (features of the same names), the adapters; `rmcp`'s
//!    `McpServer` serves tools as tasks too (the Tasks extension:
//!    [`docs/TASKS.md`](https://docs.rs/crate/mrtr-guard/latest/source/docs/TASKS.md)).
//!
//! A layer above adds what ties it to one below in its own files: `state`
//! turns a [`StateError`] into an [`RpcError`] and reads it back
//! ([`RpcError::state_error`]), `runtime` does the same for a
//! [`runtime::Misuse`] ([`RpcError::misuse`]). `tests/layers.rs` checks the
//! order for every file.
//!
//! # Operations
//!
//! Feature `redis` adds `RedisReplayGuard`, single use across the instances of
//! a server through one Redis or a Redis Cluster (TLS with `rediss://`:
//! feature `redis-tls`, which adds rustls to feature `redis`), async,
//! failing closed, and refusing a Redis that may evict; and
//! `redis::RedisTaskStore`, the task store every instance shares, on the same
//! client (`redis::RedisConfigError` says why either could not start).
//! Feature `cli` builds `mrtr-guard`, the operator's tool (its arguments
//! parsed by `clap`; `mrtr-guard help` shows the usage): `keygen`, `inspect` (a token's
//! structure, with no key: [`state::TokenInfo`]) and `open` (why a token does or does
//! not open for a call).
//!
//! Feature `tracing` (on by default) emits one event for every refused
//! `requestState`, every invalid answer and every handler mistake, never
//! with a secret or a submitted value; what each event holds:
//! [`docs/GUIDE.md`](https://docs.rs/crate/mrtr-guard/latest/source/docs/GUIDE.md), "Logging".
//! Feature `metrics` counts them through the `metrics` facade, with the
//! replay guard's latency and the legacy sessions: [`metrics`] names each.
//!
//! Feature `wasm-js` is for `wasm32-unknown-unknown` in a JavaScript host:
//! randomness from the Web Crypto API and the time from `Date`. The codec,
//! the forms and the runtime build for that target and for `wasm32-wasip1`;
//! which features work there:
//! [`docs/WASM.md`](https://docs.rs/crate/mrtr-guard/latest/source/docs/WASM.md).
//!
//! # Start-up errors
//!
//! A key, codec, guard or server that cannot work is refused when it is
//! built, and the error's `Display` names the setting and what to give
//! instead ([`state::KeyError`], [`state::ConfigError`],
//! `redis::RedisConfigError`, `rmcp::ServerConfigError`). A `main` that returns
//! `Result<(), Box<dyn Error>>` prints the `Debug` text (`Error: HexText`);
//! print the message instead:
//!
//! ```no_run
//! use std::process::ExitCode;
//!
//! use mrtr_guard::{KeyRing, MasterKey, StateCodec};
//!
//! fn main() -> ExitCode {
//!     match start() {
//!         Ok(()) => ExitCode::SUCCESS,
//!         Err(error) => {
//!             // "error: MRTR_GUARD_KEY: the master key is hexadecimal text; give base64, ..."
//!             eprintln!("error: {error}");
//!             ExitCode::FAILURE
//!         }
//!     }
//! }
//!
//! fn start() -> Result<(), Box<dyn std::error::Error>> {
//!     let text = std::env::var("MRTR_GUARD_KEY").map_err(|_| "MRTR_GUARD_KEY is not set")?;
//!     let key = MasterKey::from_base64(&text).map_err(|e| format!("MRTR_GUARD_KEY: {e}"))?;
//!     let _codec = StateCodec::builder("https://mcp.example.com/mcp", KeyRing::new(key)).build()?;
//!     Ok(())
//! }
//! ```
//!
//! The audience is the MCP endpoint's absolute URL, as clients reach it
//! (`https://` or `http://`, with a host); anything else is
//! [`state::ConfigError::InvalidAudience`].
//!
//! The byte format is specified in `docs/FORMAT.md`, with known-answer vectors
//! in `tests/vectors/`.
#![forbid(unsafe_code)]
// docs.rs (`--cfg docsrs`, nightly): every feature-gated item is marked with
// its feature (`doc_cfg` reads the `#[cfg]`s; it took in `doc_auto_cfg`).
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod connect;
pub mod form;
// What the mount's layers hand each other (the principal, the raw
// arguments, the call id, the task offer): crate-private.
#[cfg(any(feature = "tower", feature = "rmcp"))]
#[cfg_attr(
    not(feature = "server"),
    expect(
        dead_code,
        reason = "the screen (tower) hands down what rmcp's adapter reads: with one of them alone, \
                  the other half is unused"
    )
)]
mod handoff;
pub mod json;
pub mod metrics;
pub mod runtime;
pub mod state;
pub mod task;
pub mod wire;

#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "rmcp")]
pub mod rmcp;
#[cfg(feature = "tower")]
pub mod tower;

#[doc(hidden)]
#[path = "derive_support.rs"]
pub mod __private;

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// docs/GUIDE.md's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/GUIDE.md")]
struct GuideDoctests;

/// docs/RMCP.md's code blocks are `ignore`d (the demo's tests run them:
/// examples/tests/demo/rmcp_adapter/readme.rs); included so that a runnable
/// block added there runs.
#[cfg(doctest)]
#[doc = include_str!("../docs/RMCP.md")]
struct RmcpDoctests;

// ---- Public API: what a server author touches ----------------------------
// Everything else is in its module: `json` (strict parser, digest), `wire`
// (MCP 2026-07-28 types, header checks), `state` (the token codec's parts),
// `form` (field kinds, reports, the standalone validator), `runtime` (clocks,
// the handler's `Misuse`).
//
// The requestState codec: keys, policy, what a token binds to and carries.
pub use state::{
    Binding, KeyRing, MasterKey, MemoryReplayGuard, Mode, Policy, ReplayGuard, StateCodec,
    StateContents, StateError,
};
// The request methods a token can be minted for.
pub use wire::Method;
// Single use across instances, through Redis (feature `redis`).
#[cfg(feature = "redis")]
pub use crate::redis::RedisReplayGuard;
// The write-once multi-round handler and how a call ends.
pub use runtime::{Call, Flow, Reply, Round, RoundEnd, Stop};
// Forms: the questions, why one cannot be built, and the answers once
// validated.
pub use form::{Answers, Field, Form, FormChoice, FormError, FormFields, Report};
// `#[derive(FormFields, FormChoice)]`, named like the traits (feature `derive`).
/// Feature `derive`: `#[derive(FormChoice)]`, the [`form::FormChoice`]
/// options of an enum.
///
#[cfg(feature = "derive")]
pub use mrtr_guard_derive::FormChoice;
/// Feature `derive`: `#[derive(FormFields)]`, the [`form::FormFields`]
/// form of a struct.
///
#[cfg(feature = "derive")]
pub use mrtr_guard_derive::FormFields;
// The JSON-RPC error every failure becomes on the wire.
pub use wire::RpcError;
