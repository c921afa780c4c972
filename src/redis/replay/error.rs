//! The client's failure as the replay guard reports it: every
//! [`RedisUnavailable`] becomes [`ReplayError::Unavailable`] here, and only
//! here.

use crate::redis::error::RedisUnavailable;
use crate::state::ReplayError;

/// `why`, for the codec: the token is refused (fails closed).
pub(super) fn failed(why: RedisUnavailable) -> ReplayError {
    ReplayError::Unavailable(why.to_string())
}
