//! Feature `tracing`: every refused `requestState` emits one event that names
//! the reason, and no event holds the token, a carried answer, application
//! data or the principal.
//!
//! The events are caught by a small hand-written `tracing::Subscriber`
//! (`Capture`): it needs nothing beyond `tracing` itself.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    reason = "test code: a panic is a failing test"
)]

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use mrtr_guard::json::JsonDigest;
use mrtr_guard::state::{Claims, FlowId, ProvenAnswer, ReplayError, TokenUse};
use mrtr_guard::{
    Binding, KeyRing, MasterKey, MemoryReplayGuard, Method, Mode, Policy, ReplayGuard, RpcError,
    StateCodec, StateContents, StateError,
};
use mrtr_guard_test_support::*;
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber, span};

// ---- the capture ---------------------------------------------------------------

/// One event as the subscriber saw it; the message is the field `message`.
#[derive(Debug, Clone)]
struct Captured {
    name: &'static str,
    target: &'static str,
    level: Level,
    fields: BTreeMap<String, String>,
}

impl Captured {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }

    /// Every piece of text the event carries.
    fn texts(&self) -> Vec<&str> {
        let mut texts = vec![self.name, self.target];
        texts.extend(self.fields.values().map(String::as_str));
        texts
    }
}

/// A subscriber that keeps every event, and ignores spans.
#[derive(Debug, Clone, Default)]
struct Capture(Arc<Mutex<Vec<Captured>>>);

impl Capture {
    fn take(&self) -> Vec<Captured> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Subscriber for Capture {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        // Asked again at each event: other tests' threads run other capturers.
        Interest::sometimes()
    }

    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::TRACE)
    }

    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }

    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}

    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let metadata = event.metadata();
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Captured {
                name: metadata.name(),
                target: metadata.target(),
                level: *metadata.level(),
                fields: fields.0,
            });
    }

    fn enter(&self, _: &span::Id) {}

    fn exit(&self, _: &span::Id) {}
}

#[derive(Default)]
struct Fields(BTreeMap<String, String>);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

/// Runs `f` with a fresh capture as this thread's subscriber; returns what
/// `f` returned and the events it emitted.
fn capture<R>(f: impl FnOnce() -> R) -> (R, Vec<Captured>) {
    let capture = Capture::default();
    let result = tracing::subscriber::with_default(capture.clone(), f);
    (result, capture.take())
}

// ---- what must never appear ------------------------------------------------------

const PRINCIPAL: &str = "principal-7f3a-MARKER";
const OTHER_PRINCIPAL: &str = "mallory-51c2-MARKER";
const ANSWER: &str = "answer-c0ffee-MARKER";
const APP: &str = "appdata-d00d-MARKER";
const ARGUMENT: &str = "argument-9b1e-MARKER";

/// Fails if any event holds a marker or any 12 characters of `token`.
fn assert_no_secrets(events: &[Captured], token: &str) {
    let windows: Vec<&str> = (0..token.len().saturating_sub(11))
        .map(|at| &token[at..at + 12])
        .collect();
    for event in events {
        for text in event.texts() {
            for marker in [PRINCIPAL, OTHER_PRINCIPAL, ANSWER, APP, ARGUMENT] {
                assert!(!text.contains(marker), "{marker} in {event:?}");
            }
            let leaked = windows.iter().find(|window| text.contains(**window));
            assert!(leaked.is_none(), "token text {leaked:?} in {event:?}");
        }
    }
}

/// The one event of a refusal: its target, its reason, and no secrets.
fn the_event<'e>(events: &'e [Captured], token: &str, reason: &str) -> &'e Captured {
    assert_eq!(events.len(), 1, "one event per refusal: {events:?}");
    assert_no_secrets(events, token);
    let event = &events[0];
    assert_eq!(event.target, "mrtr_guard::state");
    assert_eq!(event.field("reason"), Some(reason), "{event:?}");
    event
}

// ---- set-up ----------------------------------------------------------------------

fn now() -> OffsetDateTime {
    t0()
}

fn key() -> MasterKey {
    MasterKey::from_bytes(&[5; 32]).unwrap()
}

fn codec(mode: Mode, guard: Option<Arc<dyn ReplayGuard>>) -> StateCodec {
    let builder = StateCodec::builder("https://mcp.example.com/mcp", KeyRing::new(key()))
        .mode(mode)
        .policy(Policy::default().with_max_rounds(3));
    match guard {
        Some(guard) => builder.replay_guard(guard),
        None => builder,
    }
    .build()
    .unwrap()
}

fn arguments() -> Value {
    json!({"note": ARGUMENT})
}

fn binding<'a>(principal: &'a str, arguments: &'a Value) -> Binding<'a> {
    Binding::new(principal, Method::ToolsCall, "ShipOrder", Some(arguments))
}

/// A token carrying an answer and application data, for `PRINCIPAL`.
fn token(codec: &StateCodec) -> String {
    let response = json!({"action": "accept", "content": {"note": ANSWER}});
    let Value::Object(response) = response else {
        unreachable!("an object literal")
    };
    let question = JsonDigest::of(&json!({"method": "elicitation/create"}));
    let contents = StateContents::new(json!({"note": APP}))
        .answer("ship", ProvenAnswer::new(question, response));
    codec
        .start_at(&binding(PRINCIPAL, &arguments()), &contents, now())
        .unwrap()
}

fn open(codec: &StateCodec, token: &str, principal: &str, at: OffsetDateTime) -> Captures {
    let args = arguments();
    capture(|| codec.open_at::<Value>(token, &binding(principal, &args), at))
}

type Captures = (Result<Claims<Value>, StateError>, Vec<Captured>);

/// The flow id and round of `token`, opened by a codec without a guard.
fn flow_of(mode: Mode, token: &str) -> (FlowId, u32) {
    let claims = codec(mode, None)
        .open_at::<Value>(token, &binding(PRINCIPAL, &arguments()), now())
        .unwrap();
    assert_eq!(
        claims.answers()["ship"].response()["content"]["note"],
        ANSWER
    );
    assert_eq!(claims.app()["note"], APP);
    (claims.flow_id(), claims.round())
}

/// A guard whose store is down.
#[derive(Debug)]
struct DownGuard;

impl ReplayGuard for DownGuard {
    fn consume(&self, _: TokenUse, _: OffsetDateTime) -> Result<(), ReplayError> {
        Err(ReplayError::Unavailable(
            "the store did not answer".to_owned(),
        ))
    }
}

const MODES: [Mode; 2] = [Mode::Sealed, Mode::Signed];

// ---- refusals before the tag verifies ----------------------------------------------

#[test]
fn tampered_token_names_its_key_but_no_flow() {
    for mode in MODES {
        let codec = codec(mode, None);
        let token = token(&codec);
        let mut chars: Vec<char> = token.chars().collect();
        let middle = chars.len() / 2;
        chars[middle] = if chars[middle] == 'A' { 'B' } else { 'A' };
        let tampered: String = chars.into_iter().collect();

        let (opened, events) = open(&codec, &tampered, PRINCIPAL, now());
        assert_eq!(opened.err(), Some(StateError::Forged));
        let event = the_event(&events, &token, "forged");
        assert_no_secrets(&events, &tampered);
        assert_eq!(event.name, "state_refused");
        assert_eq!(event.level, Level::WARN);
        assert_eq!(
            event.field("message"),
            Some(
                "requestState refused: forged, or minted for another user, tool, arguments \
                 or server"
            )
        );
        let key_id = key().id().to_string();
        assert_eq!(event.field("key_id"), Some(key_id.as_str()));
        assert_eq!(
            event.field("flow_id"),
            None,
            "flow id of an unverified token"
        );
        assert_eq!(event.field("round"), None);
    }
}

#[test]
fn wrong_principal_is_forged_and_named_nowhere() {
    for mode in MODES {
        let codec = codec(mode, None);
        let token = token(&codec);
        let (opened, events) = open(&codec, &token, OTHER_PRINCIPAL, now());
        assert_eq!(opened.err(), Some(StateError::Forged));
        let event = the_event(&events, &token, "forged");
        assert_eq!(event.field("flow_id"), None);
    }
}

#[test]
fn malformed_and_unknown_key() {
    let codec = codec(Mode::Sealed, None);
    let (opened, events) = open(&codec, "not a token", PRINCIPAL, now());
    assert_eq!(opened.err(), Some(StateError::Malformed));
    let event = the_event(&events, "not a token", "malformed");
    assert_eq!(event.field("key_id"), None, "no header, no key id");

    let other = StateCodec::builder(
        "https://mcp.example.com/mcp",
        KeyRing::new(MasterKey::from_bytes(&[6; 32]).unwrap()),
    )
    .build()
    .unwrap();
    let token = token(&other);
    let (opened, events) = open(&codec, &token, PRINCIPAL, now());
    assert_eq!(opened.err(), Some(StateError::UnknownKey));
    let event = the_event(&events, &token, "unknown_key");
    let unknown = MasterKey::from_bytes(&[6; 32]).unwrap().id().to_string();
    assert_eq!(event.field("key_id"), Some(unknown.as_str()));
}

#[test]
fn a_server_without_a_principal_is_an_error() {
    let codec = codec(Mode::Sealed, None);
    let token = token(&codec);
    let (opened, events) = open(&codec, &token, "", now());
    assert_eq!(opened.err(), Some(StateError::MissingPrincipal));
    let event = the_event(&events, &token, "missing_principal");
    assert_eq!((event.name, event.level), ("state_refused", Level::ERROR));
    assert_eq!(
        event.field("key_id"),
        None,
        "refused before reading the token"
    );
}

// ---- refusals after it verified ------------------------------------------------------

#[test]
fn expired_token_names_its_flow_and_round() {
    for mode in MODES {
        let codec = codec(mode, None);
        let token = token(&codec);
        let (flow_id, round) = flow_of(mode, &token);
        let (opened, events) = open(&codec, &token, PRINCIPAL, now() + Duration::minutes(10));
        assert_eq!(opened.err(), Some(StateError::Expired));
        let event = the_event(&events, &token, "expired");
        assert_eq!(event.level, Level::WARN);
        assert_eq!(event.field("flow_id"), Some(flow_id.to_string().as_str()));
        assert_eq!(event.field("round"), Some(round.to_string().as_str()));
        assert_eq!(event.field("key_id"), Some(key().id().to_string().as_str()));
    }
}

#[test]
fn a_replay_has_its_own_event() {
    for mode in MODES {
        let codec = codec(mode, Some(Arc::new(MemoryReplayGuard::new(10))));
        let token = token(&codec);
        let (first, events) = open(&codec, &token, PRINCIPAL, now());
        assert!(first.is_ok());
        assert!(
            events.is_empty(),
            "an opened token emits nothing: {events:?}"
        );

        let (again, events) = open(&codec, &token, PRINCIPAL, now());
        assert_eq!(again.err(), Some(StateError::Replayed));
        let event = the_event(&events, &token, "replayed");
        assert_eq!(event.name, "state_replayed");
        assert_eq!(event.level, Level::WARN);
        assert_eq!(event.field("message"), Some("requestState replayed"));
        let (flow_id, _) = flow_of(mode, &token);
        assert_eq!(event.field("flow_id"), Some(flow_id.to_string().as_str()));
        assert_eq!(event.field("guard_error"), None);
    }
}

#[test]
fn a_guard_failure_has_its_own_event() {
    for mode in MODES {
        let codec = codec(mode, Some(Arc::new(DownGuard)));
        let token = token(&codec);
        let (opened, events) = open(&codec, &token, PRINCIPAL, now());
        assert!(matches!(
            opened.err(),
            Some(StateError::ReplayGuard(ReplayError::Unavailable(_)))
        ));
        let event = the_event(&events, &token, "replay_guard_failed");
        assert_eq!(event.name, "replay_guard_failed");
        assert_eq!(event.level, Level::ERROR);
        assert_eq!(
            event.field("message"),
            Some("replay guard failed; requestState refused")
        );
        assert_eq!(
            event.field("guard_error"),
            Some("replay guard unavailable: the store did not answer")
        );
        assert_eq!(event.field("round"), Some("1"));
    }
}

#[test]
fn a_principal_past_its_share_has_its_own_event_naming_nobody() {
    for mode in MODES {
        let guard = MemoryReplayGuard::new(10).with_principal_share(1);
        let codec = codec(mode, Some(Arc::new(guard)));
        let (first, _) = open(&codec, &token(&codec), PRINCIPAL, now());
        assert!(first.is_ok());
        let token = token(&codec);
        let (opened, events) = open(&codec, &token, PRINCIPAL, now());
        assert_eq!(opened.err(), Some(StateError::ReplayShareExceeded));
        let event = the_event(&events, &token, "replay_share_exceeded");
        assert_eq!(event.name, "replay_share_exceeded");
        assert_eq!(event.level, Level::WARN);
        assert_eq!(
            event.field("message"),
            Some("principal holds its whole share of the replay guard; requestState refused")
        );
        assert_eq!(event.field("round"), Some("1"));
        assert!(!format!("{events:?}").contains(PRINCIPAL), "{events:?}");
    }
}

// ---- through the runtime -------------------------------------------------------------

/// A tool asking one form, as the demo's `ShipOrder` does, for one round.
fn run(flow: &mrtr_guard::Flow, req: &Req) -> Result<mrtr_guard::RoundEnd<String>, RpcError> {
    let ship = mrtr_guard::Form::builder("Tracking number?")
        .field(mrtr_guard::Field::string("trackingNumber").required())
        .build()
        .unwrap();
    flow.run(req.call()?, |round| {
        let answers = round.require("ship", &ship)?;
        Ok(answers.str("trackingNumber")?.to_owned())
    })
}

#[test]
fn flow_round_emits_one_event_and_keeps_the_reason() {
    let h = harness();
    let (_, state) = asked(&run(&h.flow, &req("ada-MARKER", "ShipOrder")));
    let answer = json!({"ship": accept(json!({"trackingNumber": "1Z-ANSWER-MARKER"}))});
    let retry = req("mallory-MARKER", "ShipOrder").answer(answer, Some(&state));

    let (result, events) = capture(|| run(&h.flow, &retry));
    let error = result.unwrap_err();
    assert_eq!(error.to_json(), RpcError::invalid_request_state().to_json());
    assert_eq!(error.state_error(), Some(&StateError::Forged));
    let event = the_event(&events, &state, "forged");
    for text in event.texts() {
        assert!(!text.contains("MARKER"), "{event:?}");
    }
}

/// An invalid answer is one `INFO` event under `mrtr_guard::runtime` with
/// its own reason, naming the key, the field and why, never the value; the
/// third in a row ends the flow, and says so.
#[test]
fn an_invalid_answer_is_one_event_naming_the_field_not_the_value() {
    let h = harness();
    let (_, mut state) = asked(&run(&h.flow, &req("ada-MARKER", "ShipOrder")));
    for invalid in 1..=3 {
        let answer = json!({"ship": accept(json!({"trackingNumber": 42, "x": "VALUE-MARKER"}))});
        let retry = req("ada-MARKER", "ShipOrder").answer(answer, Some(&state));
        let (result, events) = capture(|| run(&h.flow, &retry));
        let [event] = &events[..] else {
            panic!("one event: {events:?}")
        };
        assert_eq!(
            (event.name, event.target, event.level),
            ("answer_invalid", "mrtr_guard::runtime", Level::INFO)
        );
        assert_eq!(event.field("reason"), Some("invalid_answer"));
        assert_eq!(event.field("key"), Some("ship"));
        assert_eq!(event.field("issues"), Some("trackingNumber:wrong_type"));
        assert_eq!(event.field("invalid"), Some(invalid.to_string().as_str()));
        assert_eq!(
            event.field("round"),
            Some((invalid + 1).to_string().as_str())
        );
        assert_eq!(event.field("flow_id").map(str::len), Some(32));
        for text in event.texts() {
            assert!(!text.contains("MARKER"), "{event:?}");
        }
        if invalid < 3 {
            assert_eq!(event.field("asked_again"), Some("true"));
            assert_eq!(event.field("message"), Some("answer invalid; asked again"));
            state = asked(&result).1;
        } else {
            assert_eq!(event.field("asked_again"), Some("false"));
            assert_eq!(
                event.field("message"),
                Some("answer invalid too often; flow ended")
            );
            assert!(matches!(
                result,
                Ok(mrtr_guard::RoundEnd::Aborted(
                    mrtr_guard::runtime::AbortReason::InvalidAnswers { .. }
                ))
            ));
        }
    }
}

/// A handler that asks for the same form twice in one round tells of its
/// invalid answer once.
#[test]
fn an_invalid_answer_asked_for_twice_in_a_round_is_told_once() {
    let h = harness();
    let ship = mrtr_guard::Form::builder("Tracking number?")
        .field(mrtr_guard::Field::string("trackingNumber").required())
        .build()
        .unwrap();
    let handler = |round: &mut mrtr_guard::Round<'_>| {
        let _ = round.form("ship", &ship);
        let answers = round.require("ship", &ship)?;
        Ok(answers.str("trackingNumber")?.to_owned())
    };
    let first = h.flow.run(req("ada", "ShipOrder").call().unwrap(), handler);
    let (_, state) = asked(&first);
    let answer = json!({"ship": accept(json!({"trackingNumber": 42}))});
    let retry = req("ada", "ShipOrder").answer(answer, Some(&state));
    let (_, events) = capture(|| h.flow.run(retry.call().unwrap(), handler));
    assert_eq!(events.len(), 1, "{events:?}");
}

/// A handler mistake is an error event under `mrtr_guard::runtime` that
/// names the mistake, and the client gets the plain internal error.
#[test]
fn a_handler_mistake_is_an_error_event_naming_it() {
    let h = harness();
    let (result, events) = capture(|| {
        h.flow.run(req("ada-MARKER", "t").call().unwrap(), |_| {
            Err::<String, _>(mrtr_guard::Stop::Ask)
        })
    });
    let error = result.unwrap_err();
    assert_eq!(error, RpcError::internal_error());
    assert_eq!(
        error.misuse(),
        Some(&mrtr_guard::runtime::Misuse::NothingAsked)
    );
    let [event] = &events[..] else {
        panic!("one event: {events:?}")
    };
    assert_eq!(event.target, "mrtr_guard::runtime");
    assert_eq!(event.level, Level::ERROR);
    assert_eq!(event.field("misuse"), Some("nothing_asked"));
    let message = event.field("message").unwrap();
    assert!(message.contains("nothing was asked"), "{message}");
    for text in event.texts() {
        assert!(!text.contains("MARKER"), "{event:?}");
    }
}

// ---- the leak check itself ---------------------------------------------------------

#[test]
fn the_leak_check_sees_a_marker_or_token_text() {
    let token = token(&codec(Mode::Sealed, None));
    let event = |value: String| Captured {
        name: "state_refused",
        target: "mrtr_guard::state",
        level: Level::WARN,
        fields: BTreeMap::from([("reason".to_owned(), value)]),
    };
    let leaks = [
        format!("for {PRINCIPAL}"),
        format!("carried {ANSWER}"),
        format!("app {APP}"),
        format!("token …{}…", &token[40..52]),
    ];
    for leak in leaks {
        let events = [event(leak.clone())];
        let caught = std::panic::catch_unwind(|| assert_no_secrets(&events, &token));
        assert!(caught.is_err(), "not caught: {leak}");
    }
    assert_no_secrets(&[event("forged".to_owned())], &token);
}

/// `?` on a form that does not build in a handler: one error event naming
/// the mistake, the field and why; the client gets the plain internal error.
#[test]
fn a_form_that_does_not_build_is_an_error_event_with_the_reason() {
    let h = harness();
    let (result, events) = capture(|| {
        h.flow.run(req("ada-MARKER", "t").call().unwrap(), |round| {
            let form = mrtr_guard::Form::builder("Seats?")
                .field(mrtr_guard::Field::integer("seats").minimum(9).maximum(1))
                .build()?;
            round.require("seats", &form)?;
            Ok(String::new())
        })
    });
    assert_eq!(result.unwrap_err(), RpcError::internal_error());
    let [event] = &events[..] else {
        panic!("one event: {events:?}")
    };
    assert_eq!(
        (event.target, event.level),
        ("mrtr_guard::runtime", Level::ERROR)
    );
    assert_eq!(event.field("misuse"), Some("invalid_form"));
    let message = event.field("message").unwrap();
    assert!(
        message.contains("field \"seats\": minimum is above"),
        "{message}"
    );
    for text in event.texts() {
        assert!(!text.contains("MARKER"), "{event:?}");
    }
}
