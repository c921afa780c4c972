//! Safe MCP **Multi Round-Trip Requests** for servers.
//!
//! Since MCP `2026-07-28` (SEP-2322) a tool that needs input returns
//! `resultType: "input_required"` with `inputRequests` and an opaque
//! `requestState`; the client asks the user and retries the same call with
//! `inputResponses` and the echoed `requestState`. Every retry is a new
//! stateless request, and everything in it comes from the client. This crate
//! is what a server puts between that untrusted retry and its tools.
//!
//! # What is protected
//!
//! - **Integrity of `requestState`.** A token is XChaCha20-Poly1305-sealed
//!   ([`Mode::Sealed`], the default) or HMAC-SHA256-signed ([`Mode::Signed`]).
//!   Any change to any byte, and any token not minted with a key in the
//!   server's [`KeyRing`], is refused before its contents are read.
//! - **Confidentiality** of carried answers and application data, in sealed
//!   mode only.
//! - **Binding.** A token opens only for the principal, method, target
//!   (tool, prompt or resource), arguments (a canonical digest that keeps
//!   every number's exact value) and
//!   audience (the server) it was minted for. These are supplied by the
//!   verifier, never read from the token.
//! - **Time.** Each round's token expires (10 minutes by default); a flow has an
//!   absolute deadline set at round 1 (30 minutes) and a round cap (10).
//! - **Single use**, with a [`ReplayGuard`]: each token opens once.
//! - **Denial of service on the token path.** Length is capped (8 KiB) before
//!   any decoding; base64 has one spelling; arithmetic is checked; no input
//!   panics.
//! - **No oracle.** Whatever the reason a token failed ([`StateError::reason`],
//!   for your logs; [`RpcError::state_error`] from the runtime), the client
//!   gets the one error [`RpcError::invalid_request_state`].
//! - **Timing.** Tags are compared in constant time, a wrong binding fails at
//!   the same check after the same work as a wrong tag, and master-key text
//!   is decoded without a table lookup or a branch on any character. A dudect
//!   test (`benches/peers`, README "Cost") measures it.
//!
//! # What is not protected
//!
//! - **Replay within the TTL without a replay guard.** The binding and TTL
//!   bound replay; only a [`ReplayGuard`] prevents it, and one process' guard
//!   does not see another's (several instances share `RedisReplayGuard`,
//!   feature `redis`).
//! - **Revocation.** A token stays valid until it expires; rotate the key
//!   (drop it from the ring) to kill every token minted with it.
//! - **A leaked master key.** Whoever holds it mints tokens for anyone.
//! - **Authentication.** The principal is whatever your authentication layer
//!   says it is; the crate binds to it, it does not establish it.
//! - **Signed-mode privacy.** A signed token's claims are readable by the
//!   client. Use sealed mode unless that is fine.
//! - **Secrets in forms.** Form-mode elicitation must not collect passwords or
//!   API keys (the MCP spec forbids it); use URL mode for those.
//!
//! # Quick start
//!
//! ```
//! use mrtr_guard::{Binding, Contents, KeyRing, MasterKey, Method, Mode, RpcError, StateCodec};
//! use serde_json::json;
//!
//! // Once per process: the key comes from your secret store.
//! let key = MasterKey::from_base64("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")?;
//! let codec = StateCodec::builder("https://mcp.example.com/mcp", KeyRing::new(key)).build()?;
//!
//! // Round 1: the tool needs input. Bind the state to this user and this call.
//! let args = json!({"orderId": 42});
//! let binding = Binding::new("user-7", Method::ToolsCall, "ShipOrder", Some(&args));
//! let request_state = codec.start(&binding, &Contents::new(json!({"cart": 17})))?;
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
//! and the forms into a handler written once: see the [`Round`] docs and the
//! README. The handler runs again from the top in every round; an effect that
//! must happen once per flow goes through [`Round::once`]. Invalid answers are
//! asked again saying why, and a flow whose answers keep failing, or that
//! reaches its round cap or deadline while asking, ends with
//! [`Response::Failed`] (a tool error); the answers a flow carries share
//! [`Flow::answer_budget`], so an accepted answer never makes a later state
//! too long to mint. Feature `rmcp` adds `mrtr_guard::rmcp`, the adapter
//! to the official Rust SDK.
//!
//! # How a call ends
//!
//! Four enums, one job each. [`Reply`] is the state of one question in a
//! round (answered, declined, still pending, invalid…): the handler matches
//! it to decide what to do next. [`Stop`] is the handler's early exit, made
//! by `?` ([`Round::require`] asks and stops; a binding error fails).
//! [`Response`] is how the whole round ended, the value the adapter puts on
//! the wire: complete, input required, or failed. [`form::Outcome`] is the
//! standalone validator's verdict on one `ElicitResult`, for code that checks
//! forms without the runtime; a runtime user never sees it, so it stays in
//! [`form`].
//!
//! # Where things are
//!
//! The crate root holds what a server author touches. The rest is in four
//! modules: [`state`] (the `requestState` codec's parts: [`state::Claims`],
//! [`state::TokenInfo`], key and policy errors), [`form`] (field kinds,
//! reports, the strict JSON parser, the standalone validator), [`wire`] (the
//! MCP 2026-07-28 types, the Streamable HTTP header checks
//! [`wire::check_headers`], [`RpcError`] and the handler's [`wire::Misuse`])
//! and [`runtime`] (clocks, [`runtime::Failure`]).
//!
//! # Operations
//!
//! Feature `redis` adds `RedisReplayGuard`, single use across the instances of
//! a server through one Redis or a Redis Cluster (TLS with `rediss://`), async,
//! failing closed, and refusing a Redis that may evict.
//! Feature `cli` builds `mrtr-guard`, the operator's tool (its arguments
//! parsed by `clap`; `mrtr-guard help` shows the usage): `keygen`, `inspect` (a token's
//! structure, with no key: [`state::TokenInfo`]) and `open` (why a token does or does
//! not open for a call).
//!
//! Feature `tracing` emits one event (target `mrtr_guard::state`) for every
//! `requestState` that does not open: its `reason`, the header's `key_id`,
//! and the `flow_id` and `round` once the tag verified. A replay
//! (`requestState replayed`) and a replay guard failure (`replay guard
//! failed`, with the guard's error) have their own events. Refusals the
//! client caused are `WARN`, the server's own failures (guard, missing
//! principal) `ERROR`. No event holds token text, claims, carried answers,
//! application data or the principal. A handler's mistake ([`wire::Misuse`]) is an
//! `ERROR` event under `mrtr_guard::runtime`. Without the feature nothing is
//! logged; [`RpcError::state_error`] and [`RpcError::misuse`] still give the
//! reason.
//!
//! The byte format is specified in `docs/FORMAT.md`, with known-answer vectors
//! in `tests/vectors/`; the threat model and key handling are in `SECURITY.md`.
#![forbid(unsafe_code)]

pub mod form;
pub mod runtime;
pub mod state;
pub mod wire;

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

// ---- Public API: what a server author touches ----------------------------
// Everything else is in its module: `state` (the token codec's parts),
// `form` (field kinds, reports, the standalone validator), `wire` (MCP
// 2026-07-28 types, header checks, the handler's `Misuse`), `runtime` (clocks).
//
// The requestState codec: keys, policy, what a token binds to and carries.
pub use state::{
    Binding, Contents, KeyRing, MasterKey, MemoryReplayGuard, Method, Mode, Policy, ReplayGuard,
    StateCodec, StateError,
};
// Single use across instances, through Redis (feature `redis`).
#[cfg(feature = "redis")]
pub use state::RedisReplayGuard;
// The write-once multi-round handler and how a call ends.
pub use runtime::{Call, Flow, Reply, Response, Round, Stop};
// Forms: the questions, and the answers once validated.
pub use form::{Answers, Field, Form, FormChoice, FormFields, Report};
// `#[derive(FormFields, FormChoice)]`, named like the traits (feature `derive`).
#[cfg(feature = "derive")]
pub use mrtr_guard_derive::{FormChoice, FormFields};
// The JSON-RPC error every failure becomes on the wire.
pub use wire::RpcError;
