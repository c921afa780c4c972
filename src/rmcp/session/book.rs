//! The book of open sessions and calls: which principal opened each
//! session, how many calls each principal has in flight on its sessions, and
//! the caps on both.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ::rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use crate::metrics;

/// Who may open sessions and calls in them, and how many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SessionLimits {
    /// Open sessions one principal may hold.
    pub(crate) per_principal: usize,
    /// Open sessions in the whole process.
    pub(crate) total: usize,
    /// How long a session lives without a request (rmcp's keep-alive).
    pub(crate) idle: Duration,
    /// Calls one principal may have in flight on its sessions (each may be
    /// waiting for its client's answer).
    pub(crate) calls_per_principal: usize,
    /// Calls in flight on every session together.
    pub(crate) calls_total: usize,
}

/// The owners of the open sessions, by session id, and the calls in flight.
/// A session's entry outlives it only until the next count, which drops
/// every session the manager no longer has (closed, or idle past its
/// keep-alive).
#[derive(Debug)]
pub(crate) struct SessionBook {
    owners: Mutex<HashMap<String, Arc<str>>>,
    calls: Mutex<Calls>,
    pub(super) manager: Arc<LocalSessionManager>,
    pub(super) limits: SessionLimits,
}

#[derive(Debug, Default)]
struct Calls {
    by_principal: HashMap<Arc<str>, usize>,
    total: usize,
}

impl SessionBook {
    pub(crate) fn new(manager: Arc<LocalSessionManager>, limits: SessionLimits) -> Self {
        Self {
            owners: Mutex::new(HashMap::new()),
            calls: Mutex::new(Calls::default()),
            manager,
            limits,
        }
    }

    pub(super) fn owner(&self, session: &str) -> Option<Arc<str>> {
        self.owners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(session)
            .cloned()
    }

    pub(super) fn forget(&self, session: &str) {
        let mut owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
        owners.remove(session);
        metrics::legacy_sessions_open(owners.len());
    }

    /// Records `principal` as the owner of the new `session`, or names the
    /// cap it would exceed.
    pub(super) async fn open(
        &self,
        session: &str,
        principal: &Arc<str>,
    ) -> Result<(), &'static str> {
        let live: Vec<String> = self
            .manager
            .sessions
            .read()
            .await
            .keys()
            .map(ToString::to_string)
            .collect();
        let mut owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
        owners.retain(|id, _| live.iter().any(|l| l == id));
        metrics::legacy_sessions_open(owners.len());
        // Anonymous sessions (principal "") share the server's total only:
        // a per-principal cap over everyone would be a second, smaller total.
        let held = owners.values().filter(|p| *p == principal).count();
        if !principal.is_empty() && held >= self.limits.per_principal {
            return Err("sessions for this principal");
        }
        if owners.len() >= self.limits.total {
            return Err("sessions on this server");
        }
        owners.insert(session.to_owned(), Arc::clone(principal));
        metrics::legacy_session_opened(owners.len());
        Ok(())
    }

    /// Counts a call of `principal` in flight until the ticket drops, or
    /// names the cap it would exceed.
    pub(super) fn begin_call(
        self: &Arc<Self>,
        principal: &Arc<str>,
    ) -> Result<CallTicket, &'static str> {
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        let held = calls.by_principal.get(principal).copied().unwrap_or(0);
        if !principal.is_empty() && held >= self.limits.calls_per_principal {
            return Err("calls in flight for this principal");
        }
        if calls.total >= self.limits.calls_total {
            return Err("calls in flight on this server");
        }
        calls.total = calls.total.saturating_add(1);
        calls
            .by_principal
            .insert(Arc::clone(principal), held.saturating_add(1));
        Ok(CallTicket {
            book: Arc::clone(self),
            principal: Arc::clone(principal),
        })
    }

    fn end_call(&self, principal: &Arc<str>) {
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        calls.total = calls.total.saturating_sub(1);
        let held = calls.by_principal.get(principal).copied().unwrap_or(0);
        if held <= 1 {
            calls.by_principal.remove(principal);
        } else {
            calls
                .by_principal
                .insert(Arc::clone(principal), held.saturating_sub(1));
        }
    }
}

/// One call in flight, counted against its principal until dropped.
#[derive(Debug)]
pub(super) struct CallTicket {
    book: Arc<SessionBook>,
    principal: Arc<str>,
}

impl Drop for CallTicket {
    fn drop(&mut self) {
        self.book.end_call(&self.principal);
    }
}
