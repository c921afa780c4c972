//! [`Round::connect`]: a connection asked for through a connect link, the
//! URL-mode ask whose answer the round trusts only when the step the link
//! opened completed for this principal and this link.

use serde_json::{Value, json};

use crate::connect::{Connect, Connection, LinkAsk};
use crate::json::JsonDigest;
use crate::runtime::misuse::Misuse;
use crate::runtime::reply::{Reply, Stop};
use crate::runtime::round::ask::{Found, elicit_response};
use crate::runtime::round::view::Round;
use crate::wire::{
    ClientCapabilities, ElicitAction, ElicitRequest, ElicitResult, InputRequest, RpcError,
};

impl Round<'_> {
    /// The connection `connect` names, made through a connect link under
    /// `key`: the URL-mode ask that cannot be phished.
    ///
    /// On the first ask, the client is sent a link to the connector's own
    /// connect route, sealed and bound to this principal, this flow and
    /// round, this tool and its arguments; it opens for the connector's
    /// link TTL, once. The route proves the browser user is this principal
    /// before it shows anything, and keeps what the step produced, bound to
    /// the principal. On the retry, the round returns the [`Connection`]
    /// only if the step completed for this principal through the very link
    /// this flow sent: the client's `accept` alone is consent, never
    /// completion. An `accept` without completion asks again with a fresh
    /// link, saying what to do.
    ///
    /// # Errors
    ///
    /// [`Stop::Ask`] while the step has not completed;
    /// [`Stop::Declined`] / [`Stop::Cancelled`]; `-32021` naming
    /// `elicitation.url` when the client cannot open URLs; an internal
    /// error when the connector does not declare the connection
    /// ([`Misuse::UnknownConnection`]), when the call is anonymous
    /// ([`Misuse::AnonymousConnect`]: nobody to prove in the browser), or
    /// when its store fails.
    pub fn connect(
        &mut self,
        key: &str,
        message: &str,
        connect: &Connect<'_>,
    ) -> Result<Connection, Stop> {
        let connector = connect.connector;
        if !connector.knows(connect.name, &connect.step) {
            return Err(Stop::Error(
                Misuse::UnknownConnection {
                    name: connect.name.to_owned(),
                }
                .into_error(),
            ));
        }
        if self.principal().is_none() {
            return Err(Stop::Error(Misuse::AnonymousConnect.into_error()));
        }
        // The question, as the state records it: without the link, which is
        // fresh in every round.
        let digest = JsonDigest::of(&json!({
            "connect": connect.name,
            "step": connect.step,
            "message": message,
        }));
        let principal = self.principal().map(str::to_owned);
        let flow = self.flow_id().map_err(Stop::Error)?;
        let arguments = JsonDigest::of_arguments(self.arguments());
        let target = self.target().to_owned();
        let round = self.number();
        let ask = |round| LinkAsk {
            principal: principal.as_deref(),
            flow,
            round,
            key,
            target: &target,
            arguments: &arguments,
            connection: connect.name,
        };
        let now = self.flow.clock().now();
        let stored = || {
            connector
                .connection_at(principal.as_deref(), connect.name, now)
                .map_err(|error| Stop::Error(RpcError::internal_error_because(error.to_string())))
        };
        // What a kept answer is asked again as, were the budget to refuse it
        // (a URL-mode answer carries no content: it always fits).
        let reask =
            |_: &_| InputRequest::Elicitation(ElicitRequest::url(message, connector.route()));
        let action = match self.find(key, &digest, false) {
            Found::Misused => return Err(Stop::Ask),
            Found::Carried => {
                let carried = self
                    .answers
                    .get(key)
                    .map(|proven| proven.response().clone());
                match carried
                    .as_ref()
                    .and_then(|response| elicit_action(&Value::Object(response.clone())))
                {
                    // Completed in an earlier round: the store says whether
                    // it still holds the connection.
                    Some(ElicitAction::Accept) => match stored()? {
                        Some(connection) => return Ok(connection),
                        None => {
                            self.drop_answer(key);
                            None
                        }
                    },
                    Some(ElicitAction::Decline) => {
                        return Err(Stop::Declined {
                            key: key.to_owned(),
                        });
                    }
                    _ => {
                        return Err(Stop::Cancelled {
                            key: key.to_owned(),
                        });
                    }
                }
            }
            Found::Fresh => Some(self.response(key).and_then(elicit_action)),
            Found::Nothing => None,
        };
        let again = match action {
            None => false,
            Some(Some(ElicitAction::Decline)) => {
                let response = elicit_response(ElicitAction::Decline, None);
                let _ = self.keep(key, digest, response, Reply::<()>::Declined, reask);
                return Err(Stop::Declined {
                    key: key.to_owned(),
                });
            }
            Some(Some(ElicitAction::Cancel) | None) => {
                let response = elicit_response(ElicitAction::Cancel, None);
                let _ = self.keep(key, digest, response, Reply::<()>::Cancelled, reask);
                return Err(Stop::Cancelled {
                    key: key.to_owned(),
                });
            }
            Some(Some(ElicitAction::Accept)) => {
                // The link this flow sent: the previous round minted it.
                let sent = round
                    .checked_sub(1)
                    .map(|asked| connector.link_id(&ask(asked)));
                match (stored()?, sent) {
                    (Some(connection), Some(sent)) if connection.link().matches(sent) => {
                        let response = elicit_response(ElicitAction::Accept, None);
                        let _ = self.keep(key, digest, response, Reply::<()>::Accepted(()), reask);
                        return Ok(connection);
                    }
                    // Consent without completion: a fresh link, and what to do.
                    _ => true,
                }
            }
        };
        let message = if again {
            format!(
                "{message} (The step was not completed: open this new link, finish it while \
                 signed in as yourself, then accept.)"
            )
        } else {
            message.to_owned()
        };
        let url = connector
            .link_url(&ask(round), &connect.step, now)
            .ok_or_else(|| Stop::Error(RpcError::internal_error()))?;
        let request = InputRequest::Elicitation(ElicitRequest::url(message, url));
        match self.ask::<()>(key, request, digest) {
            Reply::Unsupported => Err(Stop::Error(RpcError::missing_capability(
                &ClientCapabilities::none().with_elicitation_url(),
            ))),
            _ => Err(Stop::Ask),
        }
    }
}

/// The action of a URL-mode answer; `None` when it is not an
/// `ElicitResult` (a cancel, as an absent action is).
fn elicit_action(response: &Value) -> Option<ElicitAction> {
    serde_json::from_value::<ElicitResult>(response.clone())
        .ok()
        .map(|result| result.action)
}
