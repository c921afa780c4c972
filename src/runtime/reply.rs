//! What an ask gives the handler, how a handler stops early, and what a round
//! ends with.

use std::fmt;

use crate::form::{AnswerError, BindError, FormError, Report};
use crate::runtime::misuse::Misuse;
use crate::wire::InputRequiredResult;
use crate::wire::RpcError;

/// How many invalid answers in a row end a flow ([`Round::MAX_INVALID`](crate::runtime::Round::MAX_INVALID)).
pub(crate) const MAX_INVALID: u32 = 3;

/// The state of one question in this round.
///
/// Only [`Accepted`](Self::Accepted), [`Declined`](Self::Declined) and
/// [`Cancelled`](Self::Cancelled) are answers; they are final for the flow and
/// carried forward sealed. [`Pending`](Self::Pending) and
/// [`Invalid`](Self::Invalid) mean the question is in this round's
/// `inputRequests`. [`Unsupported`](Self::Unsupported) means the client did
/// not declare the capability the question needs, so nothing was asked.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Reply<T> {
    /// The answer, checked: validated form answers, a URL-mode consent, a
    /// sampled message, the client's roots.
    Accepted(T),
    /// The user explicitly refused (elicitation only).
    Declined,
    /// The user dismissed the request (elicitation only).
    Cancelled,
    /// The answer broke the form's rules, or is too long for the flow to
    /// carry ([`Problem::TooLarge`](crate::form::Problem::TooLarge)): the question
    /// is asked again, saying why. After
    /// [`Round::MAX_INVALID`](crate::runtime::Round::MAX_INVALID) invalid answers in a
    /// row it is not: the round ends with [`RoundEnd::Aborted`], whatever the
    /// handler returns.
    Invalid(Report),
    /// Not answered yet; asked in this round.
    Pending,
    /// The client cannot be asked this; nothing was asked.
    Unsupported,
}

impl<T> Reply<T> {
    /// The accepted answer, if any.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accepted(value) => Some(value),
            _ => None,
        }
    }

    /// Whether the question is in this round's `inputRequests`: pending, or
    /// invalid and asked again (an answer that made
    /// [`Round::MAX_INVALID`](crate::runtime::Round::MAX_INVALID) is not asked again:
    /// the round ends with [`RoundEnd::Aborted`]).
    pub fn is_asked(&self) -> bool {
        matches!(self, Self::Pending | Self::Invalid(_))
    }
}

/// Why a handler stopped before completing; returned with `?`.
///
/// [`Round::require`](crate::runtime::Round::require) produces the first three; errors
/// of answer accessors and binding, and a [`FormError`] (a form built in the
/// handler that does not build), convert into [`Error`](Self::Error).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Stop {
    /// Input is still needed: answer with this round's `inputRequests`.
    /// Returned when nothing was asked (and no ask was unsupported), it is a
    /// handler bug: the round ends with an internal error
    /// ([`Misuse::NothingAsked`](crate::runtime::Misuse::NothingAsked)).
    Ask,
    /// The user declined the question under `key`.
    Declined {
        /// The question's key.
        key: String,
    },
    /// The user cancelled the question under `key`.
    Cancelled {
        /// The question's key.
        key: String,
    },
    /// The call fails with this JSON-RPC error.
    Error(RpcError),
    /// The call runs on as a task from here
    /// ([`Round::task`](crate::runtime::Round::task)): the round ends with
    /// [`RoundEnd::Task`], and the host runs the handler again inside the
    /// task.
    Task,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ask => f.write_str("input is still required"),
            Self::Declined { key } => write!(f, "the user declined {key:?}"),
            Self::Cancelled { key } => write!(f, "the user cancelled {key:?}"),
            Self::Error(error) => write!(f, "the call failed: {error}"),
            Self::Task => f.write_str("the call runs on as a task"),
        }
    }
}

impl std::error::Error for Stop {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Error(error) => Some(error),
            _ => None,
        }
    }
}

impl From<RpcError> for Stop {
    fn from(error: RpcError) -> Self {
        Self::Error(error)
    }
}

impl From<AnswerError> for Stop {
    /// A typed accessor failed on validated answers: a server bug (asking for
    /// a field the form does not have, or of another kind). The client gets
    /// an internal error; nothing else.
    fn from(_: AnswerError) -> Self {
        Self::Error(RpcError::internal_error())
    }
}

impl From<BindError> for Stop {
    /// Validated answers did not fit the server's own type: a server bug.
    fn from(_: BindError) -> Self {
        Self::Error(RpcError::internal_error())
    }
}

impl From<FormError> for Stop {
    /// A form built in the handler does not build: a server bug. The client
    /// gets the plain internal error (`-32603`); the error keeps the reason
    /// for the server ([`RpcError::misuse`] gives
    /// [`Misuse::InvalidForm`], and its `source` the [`FormError`]), and with
    /// feature `tracing` an `ERROR` event names it (`handler_misuse`,
    /// `misuse = "invalid_form"`).
    ///
    /// ```
    /// use mrtr_guard::{Field, Form, RpcError, Stop};
    ///
    /// fn ask() -> Result<Form, Stop> {
    ///     Ok(Form::builder("Seats?").field(Field::integer("seats").minimum(9).maximum(1)).build()?)
    /// }
    /// let Err(Stop::Error(error)) = ask() else { unreachable!() };
    /// let misuse = error.misuse().expect("the reason is kept");
    /// assert_eq!(misuse.code(), "invalid_form");
    /// assert_eq!(
    ///     misuse.to_string(),
    ///     "a form the handler built is invalid: field \"seats\": minimum is above its upper bound"
    /// );
    /// // The client sees the plain internal error.
    /// assert_eq!(error.to_json(), RpcError::internal_error().to_json());
    /// ```
    fn from(error: FormError) -> Self {
        Self::Error(Misuse::InvalidForm(Box::new(error)).into_error())
    }
}

/// What a round ends with (see [`Round::complete`](crate::runtime::Round::complete)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum RoundEnd<T> {
    /// The handler's result; send it with `resultType: "complete"`.
    Complete(T),
    /// Send this `InputRequiredResult`.
    InputRequired(InputRequiredResult),
    /// A required question was declined; the flow ends without error.
    Declined {
        /// The question's key.
        key: String,
    },
    /// A required question was cancelled; the flow ends without error.
    Cancelled {
        /// The question's key.
        key: String,
    },
    /// The flow cannot go on, for a reason the user should hear: send a
    /// tool error (`isError: true`) whose text is the failure's `Display`.
    Aborted(AbortReason),
    /// The call runs on as a task ([`Stop::Task`]): the host creates the
    /// task and runs the handler again inside it, with this state (which
    /// carries the flow's answers and effects so far) as its retry's
    /// `requestState`. The state never goes to the client.
    Task {
        /// The state the task's first run opens.
        request_state: String,
    },
}

/// Why a flow ended without its result, in words for the user: each
/// `Display` is a sentence that can be the text of a tool error.
///
/// ```
/// use mrtr_guard::runtime::AbortReason;
///
/// let failure = AbortReason::TooManyRounds { max_rounds: 10 };
/// assert_eq!(
///     failure.to_string(),
///     "the request needed more than 10 rounds of input and was stopped; start it again"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AbortReason {
    /// The answers to the question under `key` failed validation
    /// [`Round::MAX_INVALID`](crate::runtime::Round::MAX_INVALID) times in a row.
    InvalidAnswers {
        /// The question's key (for the server; not in the text).
        key: String,
    },
    /// The flow needed to ask again but has asked as often as the policy
    /// allows ([`Policy::max_rounds`](crate::state::Policy::max_rounds)).
    TooManyRounds {
        /// The policy's round cap.
        max_rounds: u32,
    },
    /// The flow needed to ask again but its deadline
    /// ([`Policy::flow_ttl`](crate::state::Policy::flow_ttl) after round 1) has
    /// passed.
    DeadlinePassed,
}

impl fmt::Display for AbortReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidAnswers { .. } => write!(
                f,
                "the answer kept failing validation ({} invalid answers in a row) and the \
                 request was stopped; start it again",
                MAX_INVALID
            ),
            Self::TooManyRounds { max_rounds } => write!(
                f,
                "the request needed more than {max_rounds} rounds of input and was stopped; \
                 start it again"
            ),
            Self::DeadlinePassed => {
                f.write_str("the request ran past its time limit and was stopped; start it again")
            }
        }
    }
}
