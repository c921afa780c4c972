//! SSE priming events kept from the clients whose revision predates them.
//!
//! `rmcp` 3.11 opens each SSE stream of a session with a priming event
//! (SEP-1699, in revision `2025-11-25`): an event with empty `data`, an `id`
//! and a `retry`. A client of an earlier revision reads every event's data
//! as a JSON-RPC message; the TypeScript SDK 1.22 logs "Unexpected end of
//! JSON input" for each. `rmcp` writes them in three places, each set for
//! the whole server, not per session: the `initialize` response and the
//! standalone `GET` stream (`StreamableHttpServerConfig::sse_retry`, in
//! `transport/streamable_http_server/tower.rs`) and each request's stream
//! (`SessionConfig::sse_retry`, in `session/local.rs`). So they are taken
//! out on the way out of [`Sessions`](super::Sessions), for the
//! requests of a client below `2025-11-25`.
//!
//! Which revision a request speaks: its `MCP-Protocol-Version` header,
//! which every client from `2025-06-18` sends on each request after
//! `initialize`; a request on a session without one is from `2025-03-26` or
//! earlier. An `initialize` has neither: its response names the revision,
//! so a priming event before it is held until that result is read.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::HeaderMap;
use http_body::{Body, Frame, SizeHint};
use serde_json::Value;

/// The first revision that defines priming events.
const PRIMING_SINCE: &str = "2025-11-25";

/// What a response does with priming events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Priming {
    /// Passes them: the client's revision knows them.
    Keep,
    /// Drops them.
    Drop,
    /// Holds the first until the response's first message names the
    /// revision (an `initialize` result), then passes or drops it.
    UntilKnown,
}

impl Priming {
    /// What the response to a request with `headers` does with them.
    pub(crate) fn for_request(headers: &HeaderMap, on_session: bool) -> Self {
        match headers
            .get("mcp-protocol-version")
            .and_then(|v| v.to_str().ok())
        {
            Some(revision) => Self::knows(revision),
            None if on_session => Self::Drop,
            None => Self::UntilKnown,
        }
    }

    fn knows(revision: &str) -> Self {
        if revision >= PRIMING_SINCE {
            Self::Keep
        } else {
            Self::Drop
        }
    }
}

/// The body of a response of [`Sessions`](super::Sessions): the service's
/// own, with SSE priming events taken out for a client whose revision
/// predates them (`2025-11-25`). Every other frame passes as it came.
#[derive(Debug)]
pub struct PrimingFilter<B> {
    inner: B,
    priming: Priming,
    /// A priming event held while the revision is not known.
    held: Option<Bytes>,
    /// The frame that follows a released held event.
    next: Option<Frame<Bytes>>,
}

impl<B> PrimingFilter<B> {
    pub(crate) fn new(inner: B, priming: Priming) -> Self {
        Self {
            inner,
            priming,
            held: None,
            next: None,
        }
    }
}

impl<B> Body for PrimingFilter<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        loop {
            if let Some(frame) = this.next.take() {
                return Poll::Ready(Some(Ok(frame)));
            }
            let frame = match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => frame,
                // A held event with nothing after it is dropped.
                other => return other,
            };
            let Some(event) = frame.data_ref() else {
                return Poll::Ready(Some(Ok(frame)));
            };
            if this.priming == Priming::Keep {
                return Poll::Ready(Some(Ok(frame)));
            }
            if is_priming(event) {
                if this.priming == Priming::UntilKnown && this.held.is_none() {
                    this.held = Some(event.clone());
                }
                continue;
            }
            if this.priming == Priming::UntilKnown
                && let Some(revision) = message_data(event)
            {
                this.priming = revision_of(&revision).map_or(Priming::Keep, Priming::knows);
                if let Some(held) = this.held.take()
                    && this.priming == Priming::Keep
                {
                    this.next = Some(frame);
                    return Poll::Ready(Some(Ok(Frame::data(held))));
                }
            }
            return Poll::Ready(Some(Ok(frame)));
        }
    }

    fn is_end_stream(&self) -> bool {
        self.next.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        match self.priming {
            Priming::Keep if self.next.is_none() => self.inner.size_hint(),
            _ => SizeHint::default(),
        }
    }
}

/// Whether `event` (one SSE event, as `rmcp` writes one per frame) is a
/// priming event: its data is empty.
fn is_priming(event: &[u8]) -> bool {
    event.starts_with(b"data: \n") || event.starts_with(b"data:\n")
}

/// The JSON-RPC message an SSE event carries, if it carries one.
fn message_data(event: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(event).ok()?;
    let data = text.lines().find_map(|line| line.strip_prefix("data:"))?;
    serde_json::from_str(data.trim()).ok()
}

/// The revision an `initialize` result names (none for any other message).
fn revision_of(message: &Value) -> Option<&str> {
    message.get("result")?.get("protocolVersion")?.as_str()
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::panic,
        reason = "test code: a panic is a failing test"
    )]

    use std::collections::VecDeque;
    use std::convert::Infallible;
    use std::task::Waker;

    use super::*;

    const PRIMING: &[u8] = b"data: \nid: 0\nretry: 3000\n\n";
    const KEEP_ALIVE: &[u8] = b":\n\n";

    /// A body of ready frames.
    struct Frames(VecDeque<Bytes>);

    impl Body for Frames {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            Poll::Ready(self.get_mut().0.pop_front().map(|b| Ok(Frame::data(b))))
        }
    }

    fn init_result(revision: &str) -> Bytes {
        Bytes::from(format!(
            "data: {{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"protocolVersion\":\"{revision}\"}}}}\n\n"
        ))
    }

    fn through(priming: Priming, frames: &[&Bytes]) -> Vec<Bytes> {
        let frames = frames.iter().map(|b| (*b).clone()).collect();
        let mut filtered = PrimingFilter::new(Frames(frames), priming);
        let mut cx = Context::from_waker(Waker::noop());
        let mut out = Vec::new();
        loop {
            match Pin::new(&mut filtered).poll_frame(&mut cx) {
                Poll::Ready(Some(frame)) => out.push(frame.unwrap().into_data().unwrap()),
                Poll::Ready(None) => return out,
                Poll::Pending => panic!("ready frames only"),
            }
        }
    }

    #[test]
    fn priming_goes_only_to_a_revision_that_knows_it() {
        let priming = Bytes::from_static(PRIMING);
        let alive = Bytes::from_static(KEEP_ALIVE);
        let old = init_result("2025-06-18");
        let new = init_result("2025-11-25");
        let all = [&priming, &alive, &new];
        assert_eq!(through(Priming::Keep, &all), [&priming, &alive, &new]);
        assert_eq!(through(Priming::Drop, &all), [&alive, &new]);
        assert_eq!(
            through(Priming::UntilKnown, &[&priming, &alive, &old]),
            [&alive, &old]
        );
        assert_eq!(
            through(Priming::UntilKnown, &[&priming, &alive, &new]),
            [&alive, &priming, &new]
        );
        // Known after the first message: a later priming event follows it.
        assert_eq!(
            through(Priming::UntilKnown, &[&old, &priming, &old]),
            [&old, &old]
        );
        // Nothing names the revision: the held event is dropped at the end.
        assert_eq!(
            through(Priming::UntilKnown, &[&priming]),
            Vec::<Bytes>::new()
        );
    }

    #[test]
    fn the_revision_comes_from_the_header_or_the_session() {
        let mut headers = HeaderMap::new();
        assert_eq!(Priming::for_request(&headers, false), Priming::UntilKnown);
        assert_eq!(Priming::for_request(&headers, true), Priming::Drop);
        for (revision, priming) in [
            ("2025-06-18", Priming::Drop),
            ("2025-11-25", Priming::Keep),
            ("2026-07-28", Priming::Keep),
        ] {
            headers.insert("mcp-protocol-version", revision.parse().unwrap());
            assert_eq!(Priming::for_request(&headers, true), priming, "{revision}");
        }
    }
}
