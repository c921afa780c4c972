//! The sweep: a task whose run was lost (its instance died, its lease
//! lapsed) is resumed by the next request that reads it, and, when nobody
//! polls it, by the sweep. Each instance that serves tasks looks at the
//! store's due tasks ([`TaskStore::due`](crate::task::TaskStore::due): those
//! whose lease may have lapsed) every third of the lease, at most
//! [`SWEEP_BATCH`] a look, and resumes each that lapsed through the one
//! claim every resume takes (compare and replace: one instance wins).
//!
//! A swept run has no request: its context is made on the peer of the
//! request that started the sweep, with the task's owner as its principal
//! and nothing else of that request (no header, no extension).

use std::sync::{Arc, Weak};
use std::time::Duration;

use ::rmcp::ServerHandler;
use ::rmcp::model::NumberOrString;
use ::rmcp::service::{Peer, RequestContext, RoleServer};

use super::host::{Access, TaskHost, store_failed};
use crate::handoff::Principal;
use crate::task::Due;

/// The most due tasks one look of the sweep takes (the rest wait for the
/// next look).
pub(crate) const SWEEP_BATCH: usize = 64;

/// The shortest time between two looks of the sweep, whatever the lease.
const SHORTEST_LOOK: Duration = Duration::from_millis(50);

/// Where a resumed run's context comes from: the request that resumed it
/// (same principal), or the sweep's peer.
#[derive(Clone, Copy)]
pub(crate) enum RunFrom<'a> {
    Request(&'a RequestContext<RoleServer>),
    Sweep(&'a Peer<RoleServer>),
}

impl TaskHost {
    /// Starts this instance's sweep, once, on the peer of `cx` (the first
    /// request the instance serves to a task route), on the runtime that
    /// serves it. It runs as long as the host does.
    pub(crate) fn sweep_from<H: ServerHandler>(
        self: &Arc<Self>,
        inner: &Arc<H>,
        cx: &RequestContext<RoleServer>,
    ) {
        if self.sweeping.set(()).is_err() {
            return;
        }
        let host: Weak<Self> = Arc::downgrade(self);
        let inner = Arc::clone(inner);
        let peer = cx.peer.clone();
        let every = self
            .settings
            .lease
            .checked_div(3)
            .unwrap_or_default()
            .max(SHORTEST_LOOK);
        tokio::spawn(async move {
            let mut look = tokio::time::interval(every);
            look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                look.tick().await;
                let Some(host) = host.upgrade() else {
                    return;
                };
                host.sweep(&inner, &peer).await;
            }
        });
    }

    /// One look: each due task resumed if its run was lost, then moved to
    /// the end of its lease as it now stands (or dropped: it ended, waits
    /// for an answer, or is gone).
    async fn sweep<H: ServerHandler>(self: &Arc<Self>, inner: &Arc<H>, peer: &Peer<RoleServer>) {
        let store = &self.settings.store;
        let due = match store.due(self.now(), SWEEP_BATCH).await {
            Ok(due) => due,
            Err(error) => {
                let _ = store_failed(error);
                return;
            }
        };
        for due in due {
            let next = match self
                .resume(inner, &due.id, Access::Host, RunFrom::Sweep(peer))
                .await
            {
                Ok(head) => head.and_then(|head| head.due()),
                // Logged where it failed; the next look tries again.
                Err(_) => continue,
            };
            let Due { id, at } = due;
            if next != Some(at)
                && let Err(error) = store.reschedule(Due { id, at }, next).await
            {
                let _ = store_failed(error);
            }
        }
    }
}

/// The context of a run the sweep resumed: on `peer`, its principal the
/// task's `owner`, with no request's headers or extensions.
pub(crate) fn swept_context(
    peer: &Peer<RoleServer>,
    owner: Option<&str>,
) -> RequestContext<RoleServer> {
    let mut cx = RequestContext::new(NumberOrString::Number(0), peer.clone());
    let (mut parts, ()) = http::Request::new(()).into_parts();
    parts.extensions.insert(Principal::named(owner));
    cx.extensions.insert(parts);
    cx
}
