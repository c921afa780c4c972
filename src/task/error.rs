//! [`TaskStoreError`]: why a task store did not do what it was asked.

use std::error::Error;
use std::fmt;

/// Why a [`TaskStore`](crate::task::TaskStore) refused or failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The principal holds as many tasks as it may
    /// ([`TaskLimits::per_principal`](crate::task::TaskLimits)).
    PrincipalFull,
    /// The store holds as many tasks as it may
    /// ([`TaskLimits::total`](crate::task::TaskLimits)).
    Full,
    /// The principal's tasks and remembered answers take as many bytes as
    /// they may
    /// ([`TaskLimits::bytes_per_principal`](crate::task::TaskLimits)).
    PrincipalOverBudget,
    /// The store holds as many bytes as it may
    /// ([`TaskLimits::bytes_total`](crate::task::TaskLimits)).
    OverBudget,
    /// The store could not be reached or answered something else than it
    /// should: nothing is assumed, the request fails.
    Unavailable(Box<dyn Error + Send + Sync>),
}

impl TaskStoreError {
    /// A short, stable, snake-case name for logs and metrics.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::PrincipalFull => "principal_full",
            Self::Full => "full",
            Self::PrincipalOverBudget => "principal_over_budget",
            Self::OverBudget => "over_budget",
            Self::Unavailable(_) => "unavailable",
        }
    }
}

impl fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PrincipalFull => f.write_str(
                "the principal holds as many tasks as it may; let some end and expire, or raise \
                 the per-principal cap (McpServerBuilder::task_limits)",
            ),
            Self::Full => f.write_str(
                "the task store holds as many tasks as it may; raise the total cap \
                 (McpServerBuilder::task_limits)",
            ),
            Self::PrincipalOverBudget => f.write_str(
                "the principal's tasks take as many bytes as they may; let some expire (an \
                 ended task's result is held until its TTL), or raise the per-principal budget \
                 (McpServerBuilder::task_budget)",
            ),
            Self::OverBudget => f.write_str(
                "the task store holds as many bytes as it may; raise the total budget \
                 (McpServerBuilder::task_budget)",
            ),
            Self::Unavailable(error) => write!(f, "the task store failed: {error}"),
        }
    }
}

impl Error for TaskStoreError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::Unavailable(error) => Some(error.as_ref()),
            _ => None,
        }
    }
}
