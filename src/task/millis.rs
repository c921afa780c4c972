//! Times as the task records and the Redis store keep them: Unix
//! milliseconds.

use time::OffsetDateTime;

/// `at` in Unix milliseconds.
pub(crate) fn millis(at: OffsetDateTime) -> i64 {
    i64::try_from(at.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

/// Unix milliseconds as a time (the epoch when out of range).
pub(crate) fn from_millis(ms: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms).saturating_mul(1_000_000))
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

/// `at` to the millisecond, as a store keeps the times it indexes.
pub(crate) fn to_the_millisecond(at: OffsetDateTime) -> OffsetDateTime {
    from_millis(millis(at))
}
