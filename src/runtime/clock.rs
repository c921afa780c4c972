//! Where the runtime's time comes from.

use std::fmt;
use std::sync::{Mutex, PoisonError};

use time::{Duration, OffsetDateTime};

/// A source of the current time.
///
/// The runtime reads it once per mint and once per open; tests inject a
/// [`FixedClock`] to pin TTL, deadline and skew boundaries.
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current time.
    fn now(&self) -> OffsetDateTime;
}

/// The system's clock, in UTC. The default.
///
/// It reads the operating system's clock on a host, WASI's on
/// `wasm32-wasip1`, and JavaScript's `Date` on `wasm32-unknown-unknown` with
/// feature `wasm-js`. On `wasm32-unknown-unknown` without a JavaScript host
/// there is no clock to read (the standard library panics): give the
/// [`Flow`](crate::Flow) a clock of your own with
/// [`Flow::with_clock`](crate::Flow::with_clock), and call the codec's `_at`
/// methods ([`StateCodec::open_at`](crate::StateCodec::open_at) and the like).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }
}

/// A clock that reads what it was set to, for tests.
///
/// ```
/// use mrtr_guard::runtime::{Clock, FixedClock};
/// use time::{Duration, OffsetDateTime};
///
/// let t0 = OffsetDateTime::from_unix_timestamp(1_800_000_000)?;
/// let clock = FixedClock::new(t0);
/// clock.advance(Duration::minutes(11));
/// assert_eq!(clock.now(), t0 + Duration::minutes(11));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FixedClock(Mutex<OffsetDateTime>);

impl FixedClock {
    /// A clock reading `now`.
    #[must_use]
    pub fn new(now: OffsetDateTime) -> Self {
        Self(Mutex::new(now))
    }

    /// Sets the time.
    pub fn set(&self, now: OffsetDateTime) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = now;
    }

    /// Moves the time by `by` (saturating at the supported range).
    pub fn advance(&self, by: Duration) {
        let mut now = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        *now = now.saturating_add(by);
    }
}

impl Clock for FixedClock {
    fn now(&self) -> OffsetDateTime {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
