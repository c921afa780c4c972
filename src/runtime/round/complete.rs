//! Completing: a round ends with the handler's result, or with its
//! questions and the next state, minted.

use crate::metrics;
use crate::runtime::budget;
use crate::runtime::misuse::Misuse;
use crate::runtime::reply::{AbortReason, RoundEnd, Stop};
use crate::runtime::round::open::{arguments_digest, binding};
use crate::runtime::round::view::Round;
use crate::state::{MintError, SKELETON_LEN, StateContents};
use crate::wire::{InputRequiredResult, RpcError};

impl Round<'_> {
    /// Ends the round with the handler's result.
    ///
    /// - A [`Misuse`] found in this round: an internal error naming it
    ///   (whatever the handler returned).
    /// - [`Stop::Error`]: that error.
    /// - A question whose answers failed validation
    ///   [`MAX_INVALID`](Self::MAX_INVALID) times in a row:
    ///   [`RoundEnd::Aborted`].
    /// - [`Stop::Declined`] / [`Stop::Cancelled`]: the matching response.
    /// - `Ok(value)` with nothing asked in this round: [`RoundEnd::Complete`].
    /// - `Ok(value)` while questions were asked, or [`Stop::Ask`]: the
    ///   questions go out ([`RoundEnd::InputRequired`]); asks are never
    ///   dropped. If the flow may not ask again (its round cap or deadline
    ///   is reached), [`RoundEnd::Aborted`] says which.
    /// - [`Stop::Task`] with nothing asked in this round: [`RoundEnd::Task`],
    ///   with the state the task's first run opens (a round of the flow: the
    ///   round cap and the deadline apply as to an ask). With questions
    ///   asked, they go out first, as for `Ok`.
    /// - [`Stop::Ask`] with no question asked: `-32021` naming what the
    ///   unsupported asks needed, if there were any; otherwise a
    ///   [`Misuse::NothingAsked`].
    ///
    /// # Errors
    ///
    /// A [`Stop::Error`] error; [`RpcError::missing_capability`] (`-32021`)
    /// for a [`Stop::Ask`] when every ask was unsupported; an internal error
    /// for a [`Misuse`] ([`RpcError::misuse`] says which) or when a state
    /// cannot be minted otherwise.
    pub fn complete<T>(self, result: Result<T, Stop>) -> Result<RoundEnd<T>, RpcError> {
        let end = self.end(result);
        if let Some(code) = flow_end(&end) {
            metrics::flow_ended(code);
        }
        end
    }

    fn end<T>(mut self, result: Result<T, Stop>) -> Result<RoundEnd<T>, RpcError> {
        if let Some(misuse) = self.next.misuse.take() {
            return Err(misuse.into_error());
        }
        let result = match result {
            Err(Stop::Error(error)) => return Err(error),
            other => other,
        };
        if let Some(key) = self.next.exhausted.take() {
            return Ok(RoundEnd::Aborted(AbortReason::InvalidAnswers { key }));
        }
        match result {
            Err(Stop::Declined { key }) => Ok(RoundEnd::Declined { key }),
            Err(Stop::Cancelled { key }) => Ok(RoundEnd::Cancelled { key }),
            Ok(value) if self.next.asks.is_empty() => Ok(RoundEnd::Complete(value)),
            Err(Stop::Task) if self.next.asks.is_empty() => self.mint().map(|minted| {
                minted.map_or_else(RoundEnd::Aborted, |request_state| RoundEnd::Task {
                    request_state,
                })
            }),
            Err(_) if self.next.asks.is_empty() => Err(if self.next.missing.is_empty() {
                Misuse::NothingAsked.into_error()
            } else {
                RpcError::missing_capability(&self.next.missing)
            }),
            Ok(_) | Err(_) => self.input_required(),
        }
    }

    fn input_required<T>(mut self) -> Result<RoundEnd<T>, RpcError> {
        let asks = std::mem::take(&mut self.next.asks);
        Ok(match self.mint()? {
            Ok(token) => RoundEnd::InputRequired(InputRequiredResult::new(asks, token)),
            Err(reason) => RoundEnd::Aborted(reason),
        })
    }

    /// The next state: what this round asks and everything the flow
    /// carries, or why the flow may not go on.
    fn mint(self) -> Result<Result<String, AbortReason>, RpcError> {
        let own = budget::own_len(
            &self.next.questions,
            &self.next.reasks,
            (&self.ran_effects, &self.steps),
            &self.app,
        );
        let max = self.flow.budget().own;
        if own > max {
            return Err(Misuse::StateTooLarge { len: own, max }.into_error());
        }
        // The claims take at most this: the token is built in a buffer that
        // needs no growing.
        let claims_len = SKELETON_LEN
            .saturating_add(own)
            .saturating_add(self.answers_len);
        let mut contents = StateContents::new(self.app);
        for (key, digest) in self.next.questions {
            contents = contents.question_digest(key, digest);
        }
        for (key, proven) in self.answers {
            contents = contents.answer(key, proven);
        }
        for (key, reask) in self.next.reasks {
            contents = contents.reask(key, reask);
        }
        for name in self.ran_effects {
            contents = contents.ran_effect(name);
        }
        for (name, result) in self.steps {
            contents = contents.step(name, result);
        }
        let arguments = self
            .arguments_digest
            .unwrap_or_else(|| arguments_digest(&self.call));
        let binding = binding(&self.call, arguments);
        let codec = self.flow.codec();
        let now = self.flow.clock().now();
        let token = match (&self.claims, self.fresh_id.get()) {
            (None, Some(id)) => codec.start_flow_at(*id, &binding, &contents, now, claims_len),
            (None, None) => codec.start_sized_at(&binding, &contents, now, claims_len),
            (Some(claims), _) if self.call.task_run().is_some() => {
                codec.next_in_task_at(&binding, claims, &contents, now, claims_len)
            }
            (Some(claims), _) => codec.next_sized_at(&binding, claims, &contents, now, claims_len),
        };
        match token {
            Ok(token) => Ok(Ok(token)),
            Err(MintError::TooManyRounds { max_rounds }) => {
                Ok(Err(AbortReason::TooManyRounds { max_rounds }))
            }
            Err(MintError::FlowExpired) => Ok(Err(AbortReason::DeadlinePassed)),
            Err(_) => Err(RpcError::internal_error()),
        }
    }
}

/// How `end` ended the flow, as [`FLOWS_ENDED`](crate::metrics::FLOWS_ENDED)
/// names it; `None` for a round that asks, or that hands the call to a task
/// (the flow goes on).
fn flow_end<T>(end: &Result<RoundEnd<T>, RpcError>) -> Option<&'static str> {
    Some(match end {
        Ok(RoundEnd::Complete(_)) => "completed",
        Ok(RoundEnd::InputRequired(_) | RoundEnd::Task { .. }) => return None,
        Ok(RoundEnd::Declined { .. }) => "declined",
        Ok(RoundEnd::Cancelled { .. }) => "cancelled",
        Ok(RoundEnd::Aborted(AbortReason::InvalidAnswers { .. })) => "invalid_answers",
        Ok(RoundEnd::Aborted(AbortReason::TooManyRounds { .. })) => "too_many_rounds",
        Ok(RoundEnd::Aborted(AbortReason::DeadlinePassed)) => "deadline_passed",
        Err(_) => "error",
    })
}
