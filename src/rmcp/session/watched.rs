//! A response body that outlives its client no longer than it must: the
//! body of a call on a session holds the call's place under the caps, and,
//! dropped before its end (the client closed the stream, the connection
//! died), cancels the call in `rmcp` at once, instead of letting it wait out
//! the answer timeout for a client that is gone.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use ::rmcp::model::ClientJsonRpcMessage;
use ::rmcp::transport::streamable_http_server::session::SessionManager;
use ::rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use http_body::{Body, Frame, SizeHint};
use serde_json::{Value, json};

use super::book::CallTicket;

/// The body of a response served through [`Sessions`](super::Sessions).
#[derive(Debug)]
pub struct Watched<R> {
    inner: R,
    /// The call's place under the caps, given back when the body goes.
    ticket: Option<CallTicket>,
    /// What cancels the call if the body goes before its end.
    cancel: Option<Cancel>,
}

impl<R> Watched<R> {
    /// A body that is not a call's: nothing to count or cancel.
    pub(super) fn plain(inner: R) -> Self {
        Self {
            inner,
            ticket: None,
            cancel: None,
        }
    }

    /// The body of a call in flight, cancelled with `cancel` when dropped
    /// before its end.
    pub(super) fn call(inner: R, ticket: CallTicket, cancel: Option<Cancel>) -> Self {
        Self {
            inner,
            ticket: Some(ticket),
            cancel,
        }
    }
}

impl<R: Body + Unpin> Body for Watched<R> {
    type Data = R::Data;
    type Error = R::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            // The whole answer went out: nothing left to cancel.
            this.cancel = None;
            this.ticket = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl<R> Drop for Watched<R> {
    fn drop(&mut self) {
        if let Some(cancel) = self.cancel.take() {
            cancel.send();
        }
    }
}

/// A `notifications/cancelled` for one request of one session, sent into
/// `rmcp` as if its client had sent it.
#[derive(Debug)]
pub(super) struct Cancel {
    pub(super) manager: Arc<LocalSessionManager>,
    pub(super) session: Arc<str>,
    pub(super) request: Value,
}

impl Cancel {
    fn send(self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let message = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "requestId": self.request,
            "reason": "the client's stream closed before the call ended"}});
        let Ok(message) = serde_json::from_value::<ClientJsonRpcMessage>(message) else {
            return;
        };
        runtime.spawn(async move {
            // A session already gone has nothing left to cancel.
            let _gone = self.manager.accept_message(&self.session, message).await;
        });
    }
}
