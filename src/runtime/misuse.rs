//! Mistakes in a handler's use of the runtime: programming errors, made loud.
//!
//! The client gets the plain internal error (`-32603`); the mistake stays on
//! the error for the server ([`RpcError::misuse`]), and with feature
//! `tracing` an `ERROR` event under the target `mrtr_guard::runtime` names it
//! (`misuse` is [`Misuse::code`], the message its `Display`). Neither holds
//! an answer, application data or the principal.

use std::fmt;

use crate::form::FormError;
use crate::wire::RpcError;

/// A mistake in a handler's use of the runtime, found while ending a round.
///
/// ```
/// use mrtr_guard::runtime::Misuse;
///
/// assert_eq!(Misuse::NothingAsked.code(), "nothing_asked");
/// assert_eq!(
///     Misuse::NothingAsked.to_string(),
///     "the handler stopped to ask (Stop::Ask) but nothing was asked in this round"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Misuse {
    /// The handler returned [`Stop::Ask`](crate::runtime::Stop::Ask) without asking
    /// anything: the client would retry, with nothing to answer, until the
    /// round cap.
    NothingAsked,
    /// Two different questions under one key in one round: the second would
    /// have replaced the first, or an answer would have been read for the
    /// wrong question.
    KeyReused {
        /// The key.
        key: String,
    },
    /// The state's own part (questions asked, re-asks, effect names, step
    /// results, application data) is longer than its share of the claims, so the
    /// state could not carry the answers the flow may accept.
    StateTooLarge {
        /// Its length, in bytes of claims.
        len: usize,
        /// Its share.
        max: usize,
    },
    /// A round was opened from an `rmcp` `ToolCall` over HTTP without the
    /// raw arguments the client sent: the handler is not served behind
    /// `ScreenLayer` (`mrtr_guard::rmcp::McpServer` puts it there), or the
    /// arguments were for another call. Bound to what the tool's
    /// extractors left, the state could be bound to `{}`.
    ArgumentsUnbound,
    /// A form the handler built in the round does not build (`?` on
    /// [`FormBuilder::build`](crate::form::FormBuilder::build) gives this):
    /// the error says which field and why.
    InvalidForm(Box<FormError>),
    /// The handler called [`Round::task`](crate::runtime::Round::task) for a
    /// tool its server did not declare as one that may run as a task
    /// (`McpServerBuilder::task_tool` in `mrtr_guard::rmcp`).
    TaskNotDeclared,
    /// A step's recorded result does not read as what the handler's step
    /// returns now (a deploy changed its type while the task waited):
    /// give the changed step a new name.
    StepChanged {
        /// The step's name.
        name: String,
    },
    /// The handler asked, through [`Round::connect`](crate::runtime::Round::connect),
    /// for a connection its [`Connector`](crate::connect::Connector) was not
    /// built to make.
    UnknownConnection {
        /// The connection's name.
        name: String,
    },
    /// The handler asked for a connection in an anonymous call: a connect
    /// link proves the browser user is the caller, which needs a caller.
    AnonymousConnect,
}

impl Misuse {
    /// A short, stable, snake-case name for logs and metrics.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::NothingAsked => "nothing_asked",
            Self::KeyReused { .. } => "key_reused",
            Self::StateTooLarge { .. } => "state_too_large",
            Self::ArgumentsUnbound => "arguments_unbound",
            Self::InvalidForm(_) => "invalid_form",
            Self::TaskNotDeclared => "task_not_declared",
            Self::StepChanged { .. } => "step_changed",
            Self::UnknownConnection { .. } => "unknown_connection",
            Self::AnonymousConnect => "anonymous_connect",
        }
    }

    /// The error for the client (`-32603`, keeping `self`), after the event
    /// that names the mistake.
    pub(crate) fn into_error(self) -> RpcError {
        self.log();
        RpcError::from(self)
    }

    #[cfg(feature = "tracing")]
    fn log(&self) {
        tracing::error!(
            name: "handler_misuse", target: "mrtr_guard::runtime",
            misuse = self.code(),
            "{self}"
        );
    }

    #[cfg(not(feature = "tracing"))]
    fn log(&self) {}
}

impl fmt::Display for Misuse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NothingAsked => f.write_str(
                "the handler stopped to ask (Stop::Ask) but nothing was asked in this round",
            ),
            Self::KeyReused { key } => write!(
                f,
                "two different questions were asked under the key {key:?} in one round"
            ),
            Self::StateTooLarge { len, max } => write!(
                f,
                "the state's questions, effect names, step results and application data take \
                 {len} bytes of claims, more than their share of {max}"
            ),
            Self::ArgumentsUnbound => f.write_str(
                "the call's raw arguments are not in the request: serve the handler with \
                 mrtr_guard::rmcp::McpServer (or behind mrtr_guard::tower::ScreenLayer), \
                 or open the round with RmcpFlow::tool_round",
            ),
            Self::InvalidForm(error) => write!(f, "a form the handler built is invalid: {error}"),
            Self::TaskNotDeclared => f.write_str(
                "the handler called Round::task for a tool not declared as one that may run \
                 as a task: declare it with McpServerBuilder::task_tool",
            ),
            Self::StepChanged { name } => write!(
                f,
                "the recorded result of the step {name:?} does not read as the step's type: \
                 a step whose result changed needs a new name"
            ),
            Self::UnknownConnection { name } => write!(
                f,
                "the handler asked for the connection {name:?}, which its connector does not \
                 declare: declare it with ConnectorBuilder::secret"
            ),
            Self::AnonymousConnect => f.write_str(
                "the handler asked for a connection (Round::connect) in an anonymous call: \
                 a connect link is bound to the caller, so authenticate the call first",
            ),
        }
    }
}

impl std::error::Error for Misuse {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::InvalidForm(error) => Some(error.as_ref()),
            _ => None,
        }
    }
}

// `wire` names no runtime type: the conversion to the wire error and its
// typed accessor live here; the `RpcError` keeps the `Misuse` as its cause.

impl From<Misuse> for RpcError {
    /// The plain internal error (`-32603`); the mistake stays for the server
    /// ([`misuse`](RpcError::misuse)).
    fn from(misuse: Misuse) -> Self {
        Self::internal_error().with_cause(misuse)
    }
}

impl RpcError {
    /// The handler's mistake, when this internal error reports one: for the
    /// server's logs, never for the client.
    ///
    /// ```
    /// use mrtr_guard::RpcError;
    /// use mrtr_guard::runtime::Misuse;
    ///
    /// let error = RpcError::from(Misuse::NothingAsked);
    /// assert_eq!(error.misuse(), Some(&Misuse::NothingAsked));
    /// assert_eq!(error.to_json(), RpcError::internal_error().to_json());
    /// ```
    pub fn misuse(&self) -> Option<&Misuse> {
        self.cause()
    }
}
