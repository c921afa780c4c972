//! [`ScreenLayer`]: the tower layer and its settings.

use std::sync::Arc;
use std::time::Duration;

use tower_layer::Layer;

use super::service::{Authentication, Config, Screen};
use crate::json::Limits;
use crate::wire::HeaderCheck;

/// A tower [`Layer`] that screens request bodies (see the
/// [module](crate::tower)).
///
/// Cheap to clone; the settings are shared by the services it makes.
#[derive(Debug, Clone, Default)]
pub struct ScreenLayer {
    config: Arc<Config>,
}

impl ScreenLayer {
    /// Default [`Limits`] (1 MiB, depth 32), no header check.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the byte cap and the depth cap.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        Arc::make_mut(&mut self.config).limits = limits;
        self
    }

    /// Refuses a request body that takes longer than `limit` to arrive
    /// (HTTP 408), so that a client trickling bytes cannot hold the
    /// connection. Needs tokio's timer (`rmcp`'s server runs on it).
    #[must_use]
    pub fn with_read_timeout(mut self, limit: Duration) -> Self {
        Arc::make_mut(&mut self.config).read_timeout = Some(limit);
        self
    }

    /// The most bytes of a JSON response the layer buffers to put forms'
    /// fields back in their declared order (4 MiB by default); a longer
    /// response becomes an internal error.
    #[must_use]
    pub fn with_max_response_bytes(mut self, max: usize) -> Self {
        Arc::make_mut(&mut self.config).max_response_bytes = max;
        self
    }

    /// Derives every request's principal once, through the `rmcp` server
    /// builder's function, and hands it down to the layers behind; refuses
    /// (HTTP 401) a request without one when `authentication.required` (a
    /// codec that refuses anonymous states).
    #[cfg_attr(
        not(feature = "server"),
        expect(dead_code, reason = "used by the rmcp server builder")
    )]
    #[must_use]
    pub(crate) fn with_authentication(mut self, authentication: Authentication) -> Self {
        Arc::make_mut(&mut self.config).authentication = Some(authentication);
        self
    }

    /// Also checks the standard MCP headers against the body (for a service
    /// that does not; `rmcp` does).
    #[must_use]
    pub fn with_header_check(mut self, check: HeaderCheck) -> Self {
        Arc::make_mut(&mut self.config).headers = Some(check);
        self
    }
}

impl<S> Layer<S> for ScreenLayer {
    type Service = Screen<S>;

    fn layer(&self, inner: S) -> Screen<S> {
        Screen::new(inner, Arc::clone(&self.config))
    }
}
