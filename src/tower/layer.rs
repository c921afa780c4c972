//! [`ScreenLayer`]: the tower layer and its settings.

use std::sync::Arc;

use tower_layer::Layer;

use super::service::{Config, Screen};
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
