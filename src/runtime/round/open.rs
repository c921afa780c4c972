//! Opening a round: the call's `requestState` verified against its
//! binding, then the round made of what it carries. [`Flow::round`] and
//! [`Flow::run`] open on the calling thread; an async host opens with
//! [`Flow::open_async`], and on its blocking pool when that says so.

use std::fmt;
use std::sync::OnceLock;

use crate::json::JsonDigest;
use crate::runtime::budget;
use crate::runtime::call::Call;
use crate::runtime::flow::Flow;
use crate::runtime::reply::{RoundEnd, Stop};
use crate::runtime::round::view::{App, Next, Round};
use crate::state::{Binding, Claims, StateContents};
use crate::wire::RpcError;

// `Flow`'s entry points live beside the round they open, so that `flow.rs`
// (the codec and the clock) needs nothing of the round.
impl Flow {
    /// Starts handling one call: verifies its `requestState`, if any, against
    /// the call's principal, method, target and arguments.
    ///
    /// A call without `requestState` is round 1, whatever `inputResponses` it
    /// carries.
    ///
    /// # Errors
    ///
    /// [`RpcError::invalid_request_state`] when the state does not open, for
    /// any reason (forged, bound to another call or user, expired, past the
    /// flow's deadline or round cap, replayed). The client gets that one
    /// error; the reason stays on it for the server
    /// ([`RpcError::state_error`]), and with feature `tracing` the codec
    /// has emitted an event for it.
    ///
    /// ```
    /// # use mrtr_guard::{Call, Flow, KeyRing, MasterKey, Method, StateCodec};
    /// # use mrtr_guard::wire::{CallParams, ClientCapabilities, RequestMeta};
    /// use mrtr_guard::{RpcError, StateError};
    /// # let codec = StateCodec::builder("https://mcp.example.com", KeyRing::new(MasterKey::from_bytes(&[7; 32])?)).build()?;
    /// # let flow = Flow::new(codec);
    /// # let meta = RequestMeta::new("2026-07-28", ClientCapabilities::none());
    /// let call = Call::new(CallParams::new(Method::ToolsCall, "ShipOrder", meta)
    ///     .with_request_state("not-a-token"))
    ///     .with_principal("ada");
    /// let error = flow.round(call).unwrap_err();
    /// assert_eq!(error.state_error(), Some(&StateError::Malformed)); // for your logs
    /// assert_eq!(error.to_json(), RpcError::invalid_request_state().to_json()); // for the client
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn round(&self, call: Call) -> Result<Round<'_>, RpcError> {
        Ok(self.open(call)?.round(self))
    }

    /// Runs a synchronous handler for one call: [`round`](Self::round), the
    /// handler, [`Round::complete`].
    ///
    /// <div class="warning">
    ///
    /// `handler` runs from the top in every round of the flow: once for the
    /// first call, and again for each retry that brings answers. Code before
    /// the asks it depends on runs each time. Keep side effects after the
    /// asks, or run them through [`Round::once`], which runs an effect once
    /// per flow (its exact terms, with and without a replay guard, are in
    /// its docs).
    ///
    /// </div>
    ///
    /// A flow that cannot go on for a reason the user should hear (answers
    /// that kept failing validation, the round cap or the deadline reached
    /// while asking) ends with [`RoundEnd::Aborted`], to send as a tool error.
    ///
    /// # Errors
    ///
    /// As [`round`](Self::round) and [`Round::complete`], and any
    /// [`Stop::Error`] the handler returns.
    pub fn run<T, F>(&self, call: Call, handler: F) -> Result<RoundEnd<T>, RpcError>
    where
        F: FnOnce(&mut Round<'_>) -> Result<T, Stop>,
    {
        let mut round = self.round(call)?;
        let result = handler(&mut round);
        round.complete(result)
    }

    /// Verifies `call`'s `requestState`, if any, on this thread: the first
    /// half of [`round`](Self::round), whose [`Opened`] owns everything and
    /// borrows nothing, so that it can run on another thread.
    ///
    /// Under a replay guard this waits on the guard's store
    /// ([`ReplayGuard::consume`](crate::state::ReplayGuard::consume)):
    /// an async host calls [`open_async`](Self::open_async) instead, and this
    /// only on its blocking pool, when that says the guard can only block.
    ///
    /// # Errors
    ///
    /// As [`round`](Self::round).
    pub fn open(&self, call: Call) -> Result<Opened, RpcError> {
        let Some(token) = call.params().request_state() else {
            return Ok(Opened::without_state(call));
        };
        let digest = arguments_digest(&call);
        let binding = binding(&call, digest);
        let claims = if call.task_run().is_some() {
            self.codec().open_in_task::<App>(token, &binding)?
        } else {
            self.codec()
                .open_at::<App>(token, &binding, self.clock().now())?
        };
        Ok(Opened::with_claims(call, claims, digest))
    }

    /// Verifies `call`'s `requestState`, if any, for an async host: the
    /// replay guard's round trip is awaited through its async face
    /// ([`ReplayGuard::as_async`](crate::state::ReplayGuard::as_async); the
    /// memory and Redis guards have one), never blocking the calling thread.
    ///
    /// Under a guard without an async face, which can only block on its
    /// store, nothing is verified here: [`Opening::Blocking`] hands the call
    /// back, for the host to open with [`open`](Self::open) where blocking
    /// is allowed (tokio's `spawn_blocking`). The runtime itself depends on
    /// no async runtime.
    ///
    /// ```
    /// use std::sync::Arc;
    ///
    /// use mrtr_guard::runtime::Opening;
    /// use mrtr_guard::{Call, Flow, Round, RpcError};
    /// # async fn spawn_blocking<T>(f: impl FnOnce() -> T) -> T { f() }
    ///
    /// async fn round(flow: &Arc<Flow>, call: Call) -> Result<Round<'_>, RpcError> {
    ///     let opened = match flow.open_async(call).await? {
    ///         Opening::Opened(opened) => opened,
    ///         Opening::Blocking(call) => {
    ///             // The host's blocking pool: on tokio, `tokio::task::spawn_blocking`
    ///             // (its `JoinError` an internal error).
    ///             let flow = Arc::clone(flow);
    ///             spawn_blocking(move || flow.open(call)).await?
    ///         }
    ///     };
    ///     Ok(opened.round(flow))
    /// }
    /// # use std::task::{Context, Poll, Waker};
    /// # use mrtr_guard::{KeyRing, MasterKey, Method, StateCodec};
    /// # use mrtr_guard::wire::{CallParams, ClientCapabilities, RequestMeta};
    /// # let codec = StateCodec::builder("https://mcp.example.com", KeyRing::new(MasterKey::from_bytes(&[7; 32])?)).build()?;
    /// # let flow = Arc::new(Flow::new(codec));
    /// # let meta = RequestMeta::new("2026-07-28", ClientCapabilities::none());
    /// # let call = Call::new(CallParams::new(Method::ToolsCall, "ShipOrder", meta)).with_principal("ada");
    /// # let mut opening = std::pin::pin!(round(&flow, call));
    /// # let Poll::Ready(round) = opening.as_mut().poll(&mut Context::from_waker(Waker::noop())) else { unreachable!() };
    /// # assert!(round?.is_first());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`round`](Self::round).
    pub async fn open_async(&self, call: Call) -> Result<Opening, RpcError> {
        let Some(token) = call.params().request_state() else {
            return Ok(Opening::Opened(Opened::without_state(call)));
        };
        // A run inside a task opens its state without the guard (the
        // task's record runs it once): nothing to wait on.
        if call.task_run().is_some() {
            return self.open(call).map(Opening::Opened);
        }
        if self.codec().replay_guard_blocks() {
            return Ok(Opening::Blocking(call));
        }
        let digest = arguments_digest(&call);
        let binding = binding(&call, digest);
        let now = self.clock().now();
        let claims = self
            .codec()
            .open_at_async::<App>(token, &binding, now)
            .await?;
        Ok(Opening::Opened(Opened::with_claims(call, claims, digest)))
    }
}

/// What [`Flow::open_async`] made of a call.
#[derive(Debug)]
#[cfg_attr(
    target_pointer_width = "64",
    expect(
        clippy::large_enum_variant,
        reason = "made once per call and unpacked at once: a box would allocate on every call \
                  (with 32-bit pointers, as on wasm32, the variants differ less)"
    )
)]
pub enum Opening {
    /// The call's state verified (or it carried none): make its round with
    /// [`Opened::round`].
    Opened(Opened),
    /// The call's state goes to a replay guard that can only block on its
    /// store: open it with [`Flow::open`] where blocking is allowed (the
    /// host's blocking pool), then [`Opened::round`].
    Blocking(Call),
}

/// A call whose `requestState`, if any, has been verified: what a [`Round`]
/// is made of ([`round`](Self::round)). It borrows nothing, so the opening
/// (which may wait on a replay guard's store) can run on another thread.
///
/// `Debug` shows the method, target and round number, never the call's
/// arguments, answers or application data.
pub struct Opened {
    call: Call,
    claims: Option<Claims<App>>,
    /// The digest of the call's arguments, when opening the state made it.
    arguments_digest: Option<JsonDigest>,
}

impl Opened {
    /// The round of this call: `flow` is the flow it was opened under.
    #[must_use]
    pub fn round(self, flow: &Flow) -> Round<'_> {
        let Self {
            call,
            claims,
            arguments_digest,
        } = self;
        let (claims, contents) = match claims {
            Some(claims) => {
                let (claims, contents) = claims.into_parts();
                (Some(claims), contents)
            }
            None => (None, StateContents::new(None)),
        };
        let parts = contents.into_parts();
        let answers_len = parts
            .answers
            .iter()
            .map(|(key, proven)| budget::answer_len(key, proven.response()))
            .fold(0, usize::saturating_add);
        // The steps the state carries, and inside a task those its journal
        // recorded since (the journal's result wins).
        let mut steps = parts.steps;
        if let Some(run) = call.task_run() {
            steps.extend(run.steps().clone());
        }
        Round {
            flow,
            steps,
            call,
            claims,
            questions: parts.questions,
            reasks: parts.reasks,
            answers: parts.answers,
            answers_len,
            ran_effects: parts.ran_effects,
            app: parts.app,
            next: Next::default(),
            arguments_digest,
            fresh_id: OnceLock::new(),
        }
    }

    /// A round 1: no state, nothing bound yet.
    fn without_state(call: Call) -> Self {
        Self {
            call,
            claims: None,
            arguments_digest: None,
        }
    }

    /// A call whose state opened for the arguments `digest` names.
    fn with_claims(call: Call, claims: Claims<App>, digest: JsonDigest) -> Self {
        Self {
            call,
            claims: Some(claims),
            arguments_digest: Some(digest),
        }
    }
}

impl fmt::Debug for Opened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params = self.call.params();
        f.debug_struct("Opened")
            .field("method", &params.method())
            .field("target", &params.target())
            .field(
                "number",
                &self
                    .claims
                    .as_ref()
                    .map_or(1, |claims| claims.round().saturating_add(1)),
            )
            .finish_non_exhaustive()
    }
}

/// The call's binding: its principal (or none, anonymous), method, target
/// and arguments digest.
pub(super) fn binding(call: &Call, arguments: JsonDigest) -> Binding<'_> {
    let params = call.params();
    Binding::from_digest(
        call.principal(),
        params.method(),
        params.target(),
        arguments,
    )
}

/// The binding's digest of the call's arguments (canonical form + SHA-256): made at
/// most once per round.
pub(super) fn arguments_digest(call: &Call) -> JsonDigest {
    JsonDigest::of_arguments(call.params().arguments())
}
