//! How long what the client writes lives: every key is written with a
//! relative `PX`, from this instance's clock, so Redis' clock plays no part.

use time::OffsetDateTime;

/// Milliseconds from `now` until `retain_until` (for `PX`), rounded up so that the
/// entry never disappears early, and at least 1: `PX 0` is an error in Redis
/// (a contract only writes what has not expired).
pub(crate) fn time_to_live_ms(retain_until: OffsetDateTime, now: OffsetDateTime) -> u64 {
    let nanos = retain_until
        .unix_timestamp_nanos()
        .saturating_sub(now.unix_timestamp_nanos());
    let ms = nanos
        .saturating_add(999_999)
        .checked_div(1_000_000)
        .unwrap_or(1);
    u64::try_from(ms.max(1)).unwrap_or(u64::MAX)
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::arithmetic_side_effects,
    reason = "test code: a panic is a failing test"
)]
mod tests {
    use time::Duration;

    use super::*;

    fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000 + seconds).unwrap()
    }

    #[test]
    fn ttl_is_milliseconds_until_expiry_and_never_zero() {
        assert_eq!(time_to_live_ms(at(600), at(0)), 600_000);
        assert_eq!(
            time_to_live_ms(at(0) + Duration::milliseconds(1500), at(0)),
            1500
        );
        assert_eq!(
            time_to_live_ms(at(0) + Duration::nanoseconds(1_000_001), at(0)),
            2,
            "rounded up"
        );
        assert_eq!(time_to_live_ms(at(0), at(0)), 1);
        assert_eq!(time_to_live_ms(at(0), at(5)), 1);
    }
}
