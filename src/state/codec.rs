//! [`StateCodec`], which mints and opens tokens, and its [`CodecBuilder`].
//! The two constructions it mints with are in `sealed.rs` and `signed.rs`.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use time::{Duration, OffsetDateTime};

use crate::metrics::GuardTimer;
use crate::state::audience::is_endpoint_url;
use crate::state::binding::Binding;
use crate::state::buffer::TokenBuffer;
use crate::state::claims::{Claims, FlowId, Meta, StateContents};
use crate::state::error::{ConfigError, MintError, StateError};
use crate::state::events::{self, Seen};
use crate::state::keys::{self, KeyRing};
use crate::state::layout::{self, Mode, NONCE_LEN, RawToken, SplitError};
use crate::state::policy::Policy;
use crate::state::replay::{PrincipalKey, ReplayError, ReplayGuard, TokenUse};
use crate::state::{claims_json, context, sealed, signed};

/// Mints and opens `requestState` tokens.
///
/// Build one per server with [`StateCodec::builder`], keep it for the process'
/// life, share it between threads. Minting starts a flow
/// ([`start_at`](Self::start_at)) or continues one ([`next_at`](Self::next_at));
/// [`open_at`](Self::open_at) verifies a token against the binding of the call
/// that carries it.
///
/// ```
/// use mrtr_guard::{Binding, StateContents, KeyRing, MasterKey, Method, StateCodec, StateError};
/// use serde_json::json;
/// use time::{Duration, OffsetDateTime};
///
/// let key = MasterKey::from_base64("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")?;
/// let codec = StateCodec::builder("https://mcp.example.com", KeyRing::new(key)).build()?;
///
/// let args = json!({"orderId": 42});
/// let binding = Binding::new("user-7", Method::ToolsCall, "ShipOrder", Some(&args));
/// let now = OffsetDateTime::from_unix_timestamp(1_800_000_000)?;
/// let token = codec.start_at(&binding, &StateContents::new(json!({"step": 1})), now)?;
///
/// let claims = codec.open_at::<serde_json::Value>(&token, &binding, now + Duration::minutes(1))?;
/// assert_eq!(claims.app(), &json!({"step": 1}));
///
/// // Another user, or the same token eleven minutes later, is refused.
/// let mallory = Binding::new("mallory", Method::ToolsCall, "ShipOrder", Some(&args));
/// assert_eq!(codec.open_at::<serde_json::Value>(&token, &mallory, now).err(), Some(StateError::Forged));
/// let late = now + Duration::minutes(11);
/// assert_eq!(codec.open_at::<serde_json::Value>(&token, &binding, late).err(), Some(StateError::Expired));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StateCodec {
    keys: KeyRing,
    mode: Mode,
    policy: Policy,
    audience: String,
    anonymous: bool,
    replay: Option<Arc<dyn ReplayGuard>>,
}

impl StateCodec {
    /// Starts building a codec for the server named `audience`, with `keys`:
    /// the MCP endpoint's absolute URL as clients reach it
    /// (`https://mcp.example.com/mcp`; [`build`](CodecBuilder::build)
    /// refuses anything else). Tokens minted for one audience never open for
    /// another, even under the same key.
    pub fn builder(audience: impl Into<String>, keys: impl Into<KeyRing>) -> CodecBuilder {
        CodecBuilder {
            keys: keys.into(),
            mode: Mode::default(),
            policy: Policy::default(),
            audience: audience.into(),
            anonymous: false,
            replay: None,
        }
    }

    /// The mode this codec mints and accepts.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The codec's limits.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The server identity tokens are bound to.
    pub fn audience(&self) -> &str {
        &self.audience
    }

    /// Whether tokens may be minted and opened without a principal
    /// ([`CodecBuilder::allow_anonymous`]).
    pub fn allows_anonymous(&self) -> bool {
        self.anonymous
    }

    /// The key ring (what records a server keeps are sealed with).
    #[cfg_attr(
        not(feature = "server"),
        expect(dead_code, reason = "the task host (feature server) seals its records")
    )]
    pub(crate) fn keys(&self) -> &KeyRing {
        &self.keys
    }

    /// Whether a key of the ring is all zero bytes (a placeholder).
    pub fn has_all_zero_key(&self) -> bool {
        self.keys.has_all_zero_key()
    }

    /// [`start_at`](Self::start_at) with the system clock.
    ///
    /// # Errors
    ///
    /// As [`start_at`](Self::start_at).
    pub fn start<A: Serialize>(
        &self,
        binding: &Binding<'_>,
        contents: &StateContents<A>,
    ) -> Result<String, MintError> {
        self.start_at(binding, contents, OffsetDateTime::now_utc())
    }

    /// Mints the first token of a new flow: a fresh random flow id, round 1,
    /// and a deadline of `now` plus the flow TTL.
    ///
    /// # Errors
    ///
    /// [`MintError::MissingPrincipal`] for an anonymous binding on a codec
    /// that does not allow it; [`MintError::TooLarge`] when the contents make
    /// a token longer than the policy accepts; [`MintError::Serialize`],
    /// [`MintError::Rng`], [`MintError::TimeOutOfRange`] otherwise.
    pub fn start_at<A: Serialize>(
        &self,
        binding: &Binding<'_>,
        contents: &StateContents<A>,
        now: OffsetDateTime,
    ) -> Result<String, MintError> {
        self.start_sized_at(binding, contents, now, CLAIMS_LEN)
    }

    /// [`start_at`](Self::start_at) for claims of at most about
    /// `claims_len` bytes (a round knows their length from its budget): the
    /// token is built in a buffer of that size.
    pub(crate) fn start_sized_at<A: Serialize>(
        &self,
        binding: &Binding<'_>,
        contents: &StateContents<A>,
        now: OffsetDateTime,
        claims_len: usize,
    ) -> Result<String, MintError> {
        // One call to the OS generator for the flow id and the nonce: each
        // call is a system call, which costs as much as sealing 500 bytes.
        let mut random = [0u8; 16 + NONCE_LEN];
        let draw = match self.mode {
            Mode::Sealed => &mut random[..],
            Mode::Signed => &mut random[..16],
        };
        keys::fill_random(draw).map_err(|()| MintError::Rng)?;
        let (flow_id, nonce) = random.split_at(16);
        let flow_id = <[u8; 16]>::try_from(flow_id).map_err(|_| MintError::Rng)?;
        let nonce = match self.mode {
            Mode::Sealed => Some(<[u8; NONCE_LEN]>::try_from(nonce).map_err(|_| MintError::Rng)?),
            Mode::Signed => None,
        };
        let deadline = checked_add(now, self.policy.flow_ttl()).ok_or(MintError::TimeOutOfRange)?;
        self.mint(Mint {
            binding,
            flow_id: FlowId::from_bytes(flow_id),
            round: 1,
            deadline,
            contents,
            now,
            nonce,
            claims_len,
        })
    }

    /// [`start_sized_at`](Self::start_sized_at) for a flow whose id was
    /// drawn before (a round that handed its flow id to the handler before
    /// minting).
    pub(crate) fn start_flow_at<A: Serialize>(
        &self,
        flow_id: FlowId,
        binding: &Binding<'_>,
        contents: &StateContents<A>,
        now: OffsetDateTime,
        claims_len: usize,
    ) -> Result<String, MintError> {
        let deadline = checked_add(now, self.policy.flow_ttl()).ok_or(MintError::TimeOutOfRange)?;
        self.mint(Mint {
            binding,
            flow_id,
            round: 1,
            deadline,
            contents,
            now,
            nonce: None,
            claims_len,
        })
    }

    /// [`next_at`](Self::next_at) with the system clock.
    ///
    /// # Errors
    ///
    /// As [`next_at`](Self::next_at).
    pub fn next<A: Serialize, B>(
        &self,
        binding: &Binding<'_>,
        previous: &Claims<B>,
        contents: &StateContents<A>,
    ) -> Result<String, MintError> {
        self.next_at(binding, previous, contents, OffsetDateTime::now_utc())
    }

    /// Mints the next token of the flow `previous` belongs to: the same flow
    /// id and deadline, the next round.
    ///
    /// `previous` must come from [`open_at`](Self::open_at) under the same
    /// `binding`.
    ///
    /// # Errors
    ///
    /// [`MintError::TooManyRounds`] when the flow already asked
    /// [`Policy::max_rounds`] times; [`MintError::FlowExpired`] when its
    /// deadline has passed; otherwise as [`start_at`](Self::start_at).
    pub fn next_at<A: Serialize, B>(
        &self,
        binding: &Binding<'_>,
        previous: &Claims<B>,
        contents: &StateContents<A>,
        now: OffsetDateTime,
    ) -> Result<String, MintError> {
        self.next_sized_at(binding, previous, contents, now, CLAIMS_LEN)
    }

    /// [`next_at`](Self::next_at) for claims of at most about `claims_len`
    /// bytes, as [`start_sized_at`](Self::start_sized_at).
    pub(crate) fn next_sized_at<A: Serialize, B>(
        &self,
        binding: &Binding<'_>,
        previous: &Claims<B>,
        contents: &StateContents<A>,
        now: OffsetDateTime,
        claims_len: usize,
    ) -> Result<String, MintError> {
        let round = previous
            .round()
            .checked_add(1)
            .filter(|round| *round <= self.policy.max_rounds())
            .ok_or(MintError::TooManyRounds {
                max_rounds: self.policy.max_rounds(),
            })?;
        if now >= previous.deadline() {
            return Err(MintError::FlowExpired);
        }
        self.mint(Mint {
            binding,
            flow_id: previous.flow_id(),
            round,
            deadline: previous.deadline(),
            contents,
            now,
            nonce: None,
            claims_len,
        })
    }

    /// The next state of a flow inside a task, for
    /// [`open_in_task`](Self::open_in_task): the next round, with no round
    /// cap and no deadline (the task's clock bounds it).
    pub(crate) fn next_in_task_at<A: Serialize, B>(
        &self,
        binding: &Binding<'_>,
        previous: &Claims<B>,
        contents: &StateContents<A>,
        now: OffsetDateTime,
        claims_len: usize,
    ) -> Result<String, MintError> {
        self.mint(Mint {
            binding,
            flow_id: previous.flow_id(),
            round: previous.round().saturating_add(1),
            deadline: previous.deadline().max(now),
            contents,
            now,
            nonce: None,
            claims_len,
        })
    }

    /// [`open_at`](Self::open_at) with the system clock.
    ///
    /// # Errors
    ///
    /// As [`open_at`](Self::open_at).
    pub fn open<A: DeserializeOwned>(
        &self,
        token: &str,
        binding: &Binding<'_>,
    ) -> Result<Claims<A>, StateError> {
        self.open_at(token, binding, OffsetDateTime::now_utc())
    }

    /// Verifies `token` for the call described by `binding` at time `now`,
    /// and returns its claims.
    ///
    /// The checks run in this order, and nothing inside the token is read
    /// before its tag verifies: length cap, strict base64url, version and
    /// mode, key id, tag (constant time; covers the binding), claims, issue
    /// time against the skew, flow deadline, expiry, round cap, replay guard.
    ///
    /// # Errors
    ///
    /// The first check that fails, as a [`StateError`]. Send the client
    /// [`RpcError::invalid_request_state`](crate::wire::RpcError::invalid_request_state),
    /// whatever the reason.
    pub fn open_at<A: DeserializeOwned>(
        &self,
        token: &str,
        binding: &Binding<'_>,
        now: OffsetDateTime,
    ) -> Result<Claims<A>, StateError> {
        let mut seen = Seen::default();
        let opened = self
            .verify_seen(token, binding, Some(now), &mut seen)
            .and_then(|(claims, principal)| {
                if let Some((guard, token)) = self.replay_entry(principal, &claims)? {
                    let timer = GuardTimer::start();
                    let consumed = guard.consume(token, now);
                    events::guard_called(timer, &consumed);
                    consumed.map_err(StateError::from_replay)?;
                }
                Ok(claims)
            });
        if let Err(error) = &opened {
            seen.refused(error);
        }
        opened
    }

    /// Opens a state a task keeps in its sealed record, for a run of the
    /// task's handler: everything [`open_at`](Self::open_at) checks (the
    /// key, the seal or signature, the audience, the binding to principal,
    /// method, target and arguments) but the times, the round cap and the
    /// replay guard. A task's states never leave the server (no
    /// `requestState` is on a task's wire); the task's own clock bounds
    /// them (its TTL, each question's timeout), and its record, changed by
    /// compare and replace, is what runs each of them once.
    pub(crate) fn open_in_task<A: DeserializeOwned>(
        &self,
        token: &str,
        binding: &Binding<'_>,
    ) -> Result<Claims<A>, StateError> {
        let mut seen = Seen::default();
        let opened = self
            .verify_seen(token, binding, None, &mut seen)
            .map(|(claims, _)| claims);
        if let Err(error) = &opened {
            seen.refused(error);
        }
        opened
    }

    /// [`open_at`](Self::open_at) up to the replay guard (the times checked
    /// at `now`; `None`: not checked, for [`open_in_task`](Self::open_in_task)), noting in `seen`
    /// what a refusal's log event may name: the key id once the header
    /// splits, the flow id and round once the tag verified and the claims
    /// parsed. Returns the claims and, under a replay guard, the key it
    /// counts the principal under (the caller consumes).
    fn verify_seen<A: DeserializeOwned>(
        &self,
        token: &str,
        binding: &Binding<'_>,
        now: Option<OffsetDateTime>,
        seen: &mut Seen,
    ) -> Result<(Claims<A>, Option<PrincipalKey>), StateError> {
        if !self.principal_ok(binding) {
            return Err(StateError::MissingPrincipal);
        }
        if token.len() > self.policy.max_token_len() {
            return Err(StateError::TooLarge);
        }
        let bytes = layout::decode_token(token).ok_or(StateError::Malformed)?;
        let raw = RawToken::split(&bytes).map_err(|error| match error {
            SplitError::UnknownVersion => StateError::UnsupportedVersion,
            SplitError::Truncated => StateError::Malformed,
        })?;
        seen.key_id = Some(raw.key_id);
        if raw.mode != self.mode {
            return Err(StateError::UnsupportedVersion);
        }
        let key = self.keys.find(raw.key_id).ok_or(StateError::UnknownKey)?;
        let context = context::context(raw.mode, raw.header, &self.audience, binding);
        let claims: Claims<A> = match raw.mode {
            Mode::Sealed => {
                let parts = sealed::Parts::of(&raw)?;
                sealed::open(key, &context, parts, bytes, claims_json::decode)?
            }
            Mode::Signed => signed::open(key, &context, &raw, claims_json::decode)?,
        };
        seen.flow = Some((claims.flow_id(), claims.round()));
        match now {
            Some(now) => self.check_times(&claims, now)?,
            None if claims.round() == 0 => return Err(StateError::TooManyRounds),
            None => {}
        }
        // The guard's name for the principal: one HMAC, only when a guard
        // will use it.
        let principal = self
            .replay
            .as_ref()
            .map(|_| PrincipalKey::of(key, &self.audience, binding));
        Ok((claims, principal))
    }

    /// How long a replay guard must remember the token: its expiry plus the
    /// skew. An instance whose clock runs up to the skew behind the one that
    /// consumed it still opens the token until then.
    fn retain_until<A>(&self, claims: &Claims<A>) -> Result<OffsetDateTime, StateError> {
        checked_add(claims.expires_at(), self.policy.skew()).ok_or(StateError::BadClaims)
    }

    fn check_times<A>(&self, claims: &Claims<A>, now: OffsetDateTime) -> Result<(), StateError> {
        let latest_issue = checked_add(now, self.policy.skew()).ok_or(StateError::NotYetValid)?;
        if claims.issued_at() > latest_issue {
            return Err(StateError::NotYetValid);
        }
        if now >= claims.deadline() {
            return Err(StateError::FlowExpired);
        }
        // A TTL lowered since minting applies at once. An end beyond the time
        // range fails this step, as every overflow fails its own step.
        let ttl_end =
            checked_add(claims.issued_at(), self.policy.ttl()).ok_or(StateError::Expired)?;
        if now >= claims.expires_at().min(ttl_end) {
            return Err(StateError::Expired);
        }
        if claims.round() == 0 || claims.round() > self.policy.max_rounds() {
            return Err(StateError::TooManyRounds);
        }
        Ok(())
    }

    fn principal_ok(&self, binding: &Binding<'_>) -> bool {
        match binding.principal() {
            Some(principal) => !principal.is_empty(),
            None => self.anonymous,
        }
    }

    /// Mints a token from its parts: the one path every minting call takes.
    fn mint<A: Serialize>(&self, parts: Mint<'_, A>) -> Result<String, MintError> {
        let Mint {
            binding,
            flow_id,
            round,
            deadline,
            contents,
            now,
            nonce,
            claims_len,
        } = parts;
        let issued_at = truncate_to_second(now).ok_or(MintError::TimeOutOfRange)?;
        let ttl_end = checked_add(issued_at, self.policy.ttl()).ok_or(MintError::TimeOutOfRange)?;
        let meta = Meta {
            issued_at,
            expires_at: ttl_end.min(deadline),
            deadline: truncate_to_second(deadline).ok_or(MintError::TimeOutOfRange)?,
            round,
            flow_id,
            // The memory the guard will be asked to consume the token in.
            generation: self
                .replay
                .as_ref()
                .and_then(|guard| guard.generation(flow_id)),
        };
        self.mint_sized(binding, &meta, contents, nonce, claims_len)
    }

    /// Mints a token of complete claims. Crate-private so the known-answer
    /// vectors can fix every input, the nonce included.
    #[cfg(test)]
    pub(crate) fn mint_claims<A: Serialize>(
        &self,
        binding: &Binding<'_>,
        meta: &Meta,
        contents: &StateContents<A>,
        nonce: Option<[u8; NONCE_LEN]>,
    ) -> Result<String, MintError> {
        self.mint_sized(binding, meta, contents, nonce, CLAIMS_LEN)
    }

    /// [`mint_claims`](Self::mint_claims) in a buffer with room for
    /// `claims_len` bytes of claims.
    fn mint_sized<A: Serialize>(
        &self,
        binding: &Binding<'_>,
        meta: &Meta,
        contents: &StateContents<A>,
        nonce: Option<[u8; NONCE_LEN]>,
        claims_len: usize,
    ) -> Result<String, MintError> {
        let mut buffer = TokenBuffer::new(self.mode, claims_len);
        claims_json::encode_into(meta, contents, &mut buffer).map_err(MintError::Serialize)?;
        self.mint_in_place(binding, buffer, nonce)
    }

    /// Mints a token of claim bytes as they are. The known-answer vectors use
    /// it directly to make authentic tokens whose claims do not parse.
    #[cfg(test)]
    pub(crate) fn mint_bytes(
        &self,
        binding: &Binding<'_>,
        plain: &[u8],
        nonce: Option<[u8; NONCE_LEN]>,
    ) -> Result<String, MintError> {
        let mut buffer = TokenBuffer::new(self.mode, plain.len());
        buffer.extend_from_slice(plain);
        self.mint_in_place(binding, buffer, nonce)
    }

    /// Mints the token of `buffer`: room for the header, then the claims.
    /// The header is written over the room, the claims are encrypted in
    /// place (sealed) or stay as they are (signed), the tag is appended.
    fn mint_in_place(
        &self,
        binding: &Binding<'_>,
        mut buffer: TokenBuffer,
        nonce: Option<[u8; NONCE_LEN]>,
    ) -> Result<String, MintError> {
        if !self.principal_ok(binding) {
            return Err(MintError::MissingPrincipal);
        }
        let key = self.keys.active();
        let nonce = match (self.mode, nonce) {
            (Mode::Sealed, None) => {
                let mut fresh = [0u8; NONCE_LEN];
                keys::fill_random(&mut fresh).map_err(|()| MintError::Rng)?;
                Some(fresh)
            }
            (Mode::Sealed, Some(nonce)) => Some(nonce),
            (Mode::Signed, _) => None,
        };
        let header = layout::header(self.mode, key.id(), nonce.as_ref());
        let (room, body) = buffer
            .as_mut_slice()
            .split_at_mut_checked(header.len())
            .ok_or(MintError::Encrypt)?;
        room.copy_from_slice(&header);
        let context = context::context(self.mode, &header, &self.audience, binding);
        match nonce {
            Some(nonce) => {
                let tag = sealed::seal(key, nonce, &context, body)?;
                buffer.extend_from_slice(&tag);
            }
            None => {
                let tag = signed::sign(key, &context, body);
                buffer.extend_from_slice(&tag);
            }
        }
        let bytes = buffer.into_minted();
        let token = layout::encode_token(&bytes);
        if token.len() > self.policy.max_token_len() {
            return Err(MintError::TooLarge {
                len: token.len(),
                max: self.policy.max_token_len(),
            });
        }
        Ok(token)
    }
}

impl fmt::Debug for StateCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateCodec")
            .field("keys", &self.keys)
            .field("mode", &self.mode)
            .field("policy", &self.policy)
            .field("audience", &self.audience)
            .field("anonymous", &self.anonymous)
            .field("replay", &self.replay)
            .finish()
    }
}

/// Settings for a [`StateCodec`]; see [`StateCodec::builder`].
#[derive(Debug)]
#[must_use]
pub struct CodecBuilder {
    keys: KeyRing,
    mode: Mode,
    policy: Policy,
    audience: String,
    anonymous: bool,
    replay: Option<Arc<dyn ReplayGuard>>,
}

impl CodecBuilder {
    /// Chooses the construction: [`Mode::Sealed`] (the default) or
    /// [`Mode::Signed`].
    ///
    /// <div class="warning">A signed token's claims (carried answers and
    /// application data) are readable by the client. Use sealed mode unless
    /// every byte of them may be shown to the user.</div>
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Replaces the default [`Policy`].
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Lets bindings without a principal mint and open tokens.
    ///
    /// <div class="warning">An anonymous token belongs to whoever holds it. Use
    /// this only for tools that need no authentication.</div>
    pub fn allow_anonymous(mut self) -> Self {
        self.anonymous = true;
        self
    }

    /// Makes every token single-use: [`StateCodec::open_at`] consumes its
    /// (flow id, round) in `guard`.
    pub fn replay_guard(mut self, guard: Arc<dyn ReplayGuard>) -> Self {
        self.replay = Some(guard);
        self
    }

    /// Checks the settings and builds the codec.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the first setting out of range: an audience
    /// that is not an absolute `http://` or `https://` URL with a host
    /// ([`ConfigError::InvalidAudience`]), or a [`Policy`] value.
    pub fn build(self) -> Result<StateCodec, ConfigError> {
        if self.audience.is_empty() {
            return Err(ConfigError::EmptyAudience);
        }
        if !is_endpoint_url(&self.audience) {
            return Err(ConfigError::InvalidAudience);
        }
        self.policy.check()?;
        let policy = self.policy.whole_seconds();
        Ok(StateCodec {
            keys: self.keys,
            mode: self.mode,
            policy,
            audience: self.audience,
            anonymous: self.anonymous,
            replay: self.replay,
        })
    }
}

fn checked_add(at: OffsetDateTime, by: Duration) -> Option<OffsetDateTime> {
    at.checked_add(by)
}

/// What one token is minted from.
struct Mint<'a, A> {
    binding: &'a Binding<'a>,
    flow_id: FlowId,
    round: u32,
    /// The flow's absolute deadline; the token expires by it at the latest.
    deadline: OffsetDateTime,
    contents: &'a StateContents<A>,
    now: OffsetDateTime,
    /// Fixed only by the known-answer vectors; drawn from the OS otherwise.
    nonce: Option<[u8; NONCE_LEN]>,
    /// About how long the claims are: the room the token is built in.
    claims_len: usize,
}

/// The room for claims when their length is not known: about 800 bytes of
/// application data beside a question or two.
const CLAIMS_LEN: usize = 1024;

fn truncate_to_second(at: OffsetDateTime) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp(at.unix_timestamp()).ok()
}

/// The codec's side of the guard: what [`StateCodec::open_at`] and
/// [`StateCodec::open_at_async`] do once a token verified.
impl StateCodec {
    /// [`open_at_async`](Self::open_at_async) with the system clock.
    ///
    /// # Errors
    ///
    /// As [`open_at`](Self::open_at).
    pub async fn open_async<A: DeserializeOwned>(
        &self,
        token: &str,
        binding: &Binding<'_>,
    ) -> Result<Claims<A>, StateError> {
        self.open_at_async(token, binding, OffsetDateTime::now_utc())
            .await
    }

    /// [`open_at`](Self::open_at), with the replay guard's round trip
    /// awaited instead of blocking: through the guard's
    /// [`as_async`](ReplayGuard::as_async) face when it has one (the memory
    /// and Redis guards do). A guard without one is called in place, and
    /// may block the calling thread.
    ///
    /// # Errors
    ///
    /// As [`open_at`](Self::open_at).
    pub async fn open_at_async<A: DeserializeOwned>(
        &self,
        token: &str,
        binding: &Binding<'_>,
        now: OffsetDateTime,
    ) -> Result<Claims<A>, StateError> {
        let mut seen = Seen::default();
        let opened = match self.verify_seen(token, binding, Some(now), &mut seen) {
            Err(error) => Err(error),
            Ok((claims, principal)) => match self.replay_entry(principal, &claims) {
                Err(error) => Err(error),
                Ok(None) => Ok(claims),
                Ok(Some((guard, token))) => {
                    let timer = GuardTimer::start();
                    let consumed = match guard.as_async() {
                        Some(guard) => guard.consume(token, now).await,
                        None => guard.consume(token, now),
                    };
                    events::guard_called(timer, &consumed);
                    consumed.map(|()| claims).map_err(StateError::from_replay)
                }
            },
        };
        if let Err(error) = &opened {
            seen.refused(error);
        }
        opened
    }

    /// What the replay guard records of a verified token: the guard and the
    /// token's use (its principal's key, flow, round, issue time, how long
    /// the guard keeps the use, and the guard generation it was minted
    /// under); `None` without a guard. Under a guard
    /// a missing principal key fails closed.
    fn replay_entry<A>(
        &self,
        principal: Option<PrincipalKey>,
        claims: &Claims<A>,
    ) -> Result<Option<(&dyn ReplayGuard, TokenUse)>, StateError> {
        let Some(guard) = &self.replay else {
            return Ok(None);
        };
        let principal = principal.ok_or_else(no_principal_key)?;
        let token = TokenUse::new(
            principal,
            claims.flow_id(),
            claims.round(),
            claims.issued_at(),
            self.policy.skew(),
            self.retain_until(claims)?,
        )
        .with_generation(claims.generation());
        Ok(Some((guard.as_ref(), token)))
    }

    /// Whether opening may block a thread on the replay guard's store: a
    /// guard without an async face.
    #[cfg_attr(
        not(feature = "server"),
        expect(
            dead_code,
            reason = "the task host (feature server) remembers answers under a guard"
        )
    )]
    pub(crate) fn has_replay_guard(&self) -> bool {
        self.replay.is_some()
    }

    pub(crate) fn replay_guard_blocks(&self) -> bool {
        self.replay
            .as_ref()
            .is_some_and(|guard| guard.as_async().is_none())
    }
}

/// Under a guard, verifying always names the principal; were it not to,
/// the token is refused rather than left unrecorded.
fn no_principal_key() -> StateError {
    StateError::ReplayGuard(ReplayError::Unavailable(
        "no principal key for the replay guard".to_owned(),
    ))
}
