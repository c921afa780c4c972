//! [`TaskPolls`]: a task's poll (`tasks/get`) answered from its head in
//! front of `rmcp`'s Streamable HTTP service, which would otherwise parse
//! the request into its types, start a service for it and type the task's
//! questions again, costing a poll more than the head it reads.
//!
//! Only a plain poll is answered here: a stateless `2026-07-28` request in
//! exactly the shape `rmcp` accepts (its Host, media types, protocol
//! version and standard headers as `rmcp` checks them), of a task the
//! caller may see, that needs nothing done (not past its time, its run
//! not lost). Everything else, an unknown or another principal's task
//! included, goes on to `rmcp` and the task host's route, which answer it
//! as they always did: there is one answer to each request, whichever way
//! it takes.

use std::convert::Infallible;
use std::sync::Arc;

use ::rmcp::model::{ClientCapabilities, ProtocolVersion};
use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderName, ORIGIN};
use http::request::Parts;
use http::{HeaderMap, HeaderValue, Method, Request, Response};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Either, Full};
use serde::Deserialize;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use super::host::{Access, TaskHost, lapsed, overdue};
use super::view::Polled;
use crate::handoff::Principal;
use crate::rmcp::session::Serve;
use crate::task::TaskId;
use crate::tower::service::ScreenedBody;

/// The service that answers a plain poll from the task's head, in front
/// of `S` (`rmcp`'s Streamable HTTP service), which serves every other
/// request. [`McpServer`](crate::rmcp::McpServer) builds it.
pub struct TaskPolls<S> {
    inner: S,
    host: Arc<TaskHost>,
    /// The Host values `rmcp`'s service allows (its DNS rebinding check):
    /// empty, any.
    allowed_hosts: Vec<String>,
}

impl<S> TaskPolls<S> {
    pub(crate) fn new(inner: S, host: Arc<TaskHost>, allowed_hosts: Vec<String>) -> Self {
        Self {
            inner,
            host,
            allowed_hosts,
        }
    }
}

impl<S> std::fmt::Debug for TaskPolls<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskPolls")
            .field("allowed_hosts", &self.allowed_hosts)
            .finish_non_exhaustive()
    }
}

impl<S, B> Serve<ScreenedBody<B>> for TaskPolls<S>
where
    S: Serve<ScreenedBody<B>, Body = BoxBody<Bytes, Infallible>>,
    B: Send + 'static,
{
    type Body = BoxBody<Bytes, Infallible>;

    async fn serve(&self, request: Request<ScreenedBody<B>>) -> Response<Self::Body> {
        let (parts, body) = request.into_parts();
        let body = match body {
            // A screened POST: its bytes, at hand.
            Either::Left(full) if parts.method == Method::POST => {
                let Ok(bytes) = full.collect().await.map(|all| all.to_bytes());
                if let Some(answer) = self.answer(&parts, &bytes).await {
                    return answer;
                }
                Either::Left(Full::new(bytes))
            }
            other => other,
        };
        self.inner.serve(Request::from_parts(parts, body)).await
    }
}

impl<S> TaskPolls<S> {
    /// The answer to `body` if it is a plain poll this service answers;
    /// `None`: `rmcp` serves it.
    async fn answer(
        &self,
        parts: &Parts,
        body: &[u8],
    ) -> Option<Response<BoxBody<Bytes, Infallible>>> {
        // Every request passes here: its headers turn away all but polls.
        if !plain_headers(&parts.headers, &self.allowed_hosts) {
            return None;
        }
        // The first poll goes through the route, which starts the sweep.
        self.host.sweeping.get()?;
        let poll = Poll::plain(&parts.headers, body)?;
        let id = TaskId::parse(poll.params.task_id)?;
        let caller = Principal::of(parts).and_then(Principal::as_deref);
        let head = self.host.seen_head(&id, Access::Owner(caller)).await?;
        let now = self.host.now();
        if overdue(&head, now).is_some() || lapsed(&head, now) || !Polled::plain(&head) {
            return None;
        }
        let reply = Reply {
            id: &poll.id,
            result: Polled::new(&id, &head),
        };
        let bytes = serde_json::to_vec(&reply).ok()?;
        let mut response = Response::new(Full::new(Bytes::from(bytes)).boxed());
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        Some(response)
    }
}

/// The JSON-RPC response, as `rmcp` writes one (`jsonrpc`, `id`,
/// `result`), or sorted, as `ScreenLayer` writes again one whose result
/// hints an order.
struct Reply<'a> {
    id: &'a Value,
    result: Polled<'a>,
}

impl Serialize for Reply<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        if self.result.rewritten {
            map.serialize_entry("id", self.id)?;
            map.serialize_entry("jsonrpc", "2.0")?;
        } else {
            map.serialize_entry("jsonrpc", "2.0")?;
            map.serialize_entry("id", self.id)?;
        }
        map.serialize_entry("result", &self.result)?;
        map.end()
    }
}

/// The `tasks/get` request this service answers: these members and no
/// other, each as `rmcp` reads it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Poll<'a> {
    jsonrpc: &'a str,
    id: Value,
    method: &'a str,
    #[serde(borrow)]
    params: PollParams<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PollParams<'a> {
    #[serde(rename = "taskId")]
    task_id: &'a str,
    #[serde(rename = "_meta", borrow)]
    meta: PollMeta<'a>,
}

/// The request's `_meta`: the two members `2026-07-28` requires, well
/// formed (others are the client's, as `rmcp` leaves them).
#[derive(Deserialize)]
struct PollMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: &'a str,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    #[allow(
        dead_code,
        reason = "read to check it is well formed, as rmcp reads it"
    )]
    client_capabilities: ClientCapabilities,
}

impl<'a> Poll<'a> {
    /// `body` as a plain poll whose `Mcp-Name` header says what it says
    /// (`plain_headers` checked `Mcp-Method`); `None` otherwise.
    fn plain(headers: &HeaderMap, body: &'a [u8]) -> Option<Self> {
        let poll: Self = serde_json::from_slice(body).ok()?;
        let id_is_plain = match &poll.id {
            Value::String(_) => true,
            Value::Number(number) => number.is_i64(),
            _ => false,
        };
        let plain = poll.jsonrpc == "2.0"
            && id_is_plain
            && poll.method == "tasks/get"
            && poll.params.meta.protocol_version == ProtocolVersion::V_2026_07_28.as_str()
            && sole(headers, &MCP_NAME) == Some(poll.params.task_id);
        plain.then_some(poll)
    }
}

/// Whether the request's headers say `tasks/get` (first: it turns away
/// every other request at once) and are ones `rmcp` serves a stateless
/// `2026-07-28` request on without a doubt: no session, no `Origin` (a
/// browser's request: `rmcp` checks it), a Host it allows, JSON in, both
/// JSON and an event stream accepted, and the protocol version.
fn plain_headers(headers: &HeaderMap, allowed_hosts: &[String]) -> bool {
    sole(headers, &MCP_METHOD) == Some("tasks/get")
        && !headers.contains_key("mcp-session-id")
        && !headers.contains_key(ORIGIN)
        && sole(headers, &HOST).is_some_and(|host| host_allowed(host, allowed_hosts))
        && sole(headers, &CONTENT_TYPE).is_some_and(|value| {
            value.eq_ignore_ascii_case("application/json")
                || value.eq_ignore_ascii_case("application/json; charset=utf-8")
        })
        && sole(headers, &ACCEPT).is_some_and(accepts_both)
        && sole(headers, &MCP_PROTOCOL_VERSION) == Some(ProtocolVersion::V_2026_07_28.as_str())
}

/// The standard headers a poll must send, named once (a name given as
/// text is parsed again on every lookup, and every request looks).
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// The header's one value, as text: `None` when it is absent, repeated,
/// or not visible ASCII.
fn sole<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Option<&'h str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

/// Whether `host` (a Host header: a name or address, and maybe a port) is
/// one of `allowed` (a name, or a name and port), as `rmcp` compares them.
fn host_allowed(host: &str, allowed: &[String]) -> bool {
    if allowed.is_empty() {
        return true;
    }
    let Ok(host) = http::uri::Authority::try_from(host) else {
        return false;
    };
    let name = normal(host.host());
    allowed.iter().any(|entry| {
        match http::uri::Authority::try_from(entry.trim()) {
            Ok(entry) => {
                normal(entry.host()) == name
                    && entry
                        .port_u16()
                        .is_none_or(|port| host.port_u16() == Some(port))
            }
            // An entry `rmcp` reads as a bare name.
            Err(_) => normal(entry.trim()) == name,
        }
    })
}

/// A host name as `rmcp` compares it: no IPv6 brackets, lower case.
fn normal(host: &str) -> String {
    host.trim_matches('[')
        .trim_matches(']')
        .to_ascii_lowercase()
}

/// Whether an `Accept` value lists `application/json` and
/// `text/event-stream`, with no parameters and nothing else that might
/// weigh them (`rmcp` then accepts it).
fn accepts_both(accept: &str) -> bool {
    let mut json = false;
    let mut stream = false;
    for entry in accept.split(',').map(str::trim) {
        match entry {
            "application/json" => json = true,
            "text/event-stream" => stream = true,
            _ if entry.contains(['"', ';']) => return false,
            _ => {}
        }
    }
    json && stream
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    const PLAIN: [(&str, &str); 6] = [
        ("host", "127.0.0.1:8080"),
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tasks/get"),
        ("mcp-name", "t1"),
    ];

    const BODY: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"t1","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}"#;

    fn local() -> Vec<String> {
        vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]
    }

    #[test]
    fn a_plain_poll_is_answered_here() {
        let plain = headers(&PLAIN);
        assert!(plain_headers(&plain, &local()));
        let poll = Poll::plain(&plain, BODY.as_bytes()).unwrap();
        assert_eq!(poll.params.task_id, "t1");
        assert_eq!(poll.id, Value::from(3));
    }

    #[test]
    fn anything_rmcp_might_refuse_goes_to_rmcp() {
        let with = |name: &'static str, value: &'static str| {
            let mut pairs: Vec<_> = PLAIN.iter().filter(|(n, _)| *n != name).copied().collect();
            if !value.is_empty() {
                pairs.push((name, value));
            }
            headers(&pairs)
        };
        for (name, value) in [
            ("host", "evil.example"),
            ("host", "127.0.0.1.evil.example:80"),
            ("host", ""),
            ("content-type", "text/plain"),
            ("accept", "application/json"),
            ("accept", "application/json;q=0, text/event-stream"),
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-protocol-version", ""),
            ("mcp-method", "tasks/update"),
            ("mcp-method", ""),
        ] {
            assert!(
                !plain_headers(&with(name, value), &local()),
                "{name}: {value}"
            );
        }
        let mut sessioned = headers(&PLAIN);
        sessioned.insert("mcp-session-id", HeaderValue::from_static("s"));
        assert!(!plain_headers(&sessioned, &local()));
        let mut browser = headers(&PLAIN);
        browser.insert(ORIGIN, HeaderValue::from_static("http://127.0.0.1:8080"));
        assert!(!plain_headers(&browser, &local()));
        let mut twice = headers(&PLAIN);
        twice.append(HOST, HeaderValue::from_static("127.0.0.1:8080"));
        assert!(!plain_headers(&twice, &local()));
        // The standard headers must say what the body says.
        for (name, value) in [("mcp-name", "t2"), ("mcp-name", "")] {
            assert!(
                Poll::plain(&with(name, value), BODY.as_bytes()).is_none(),
                "{name}: {value}"
            );
        }
        // A body in any other shape.
        let plain = headers(&PLAIN);
        for body in [
            BODY.replace(r#""id":3"#, r#""id":3.5"#),
            BODY.replace(r#""id":3"#, r#""id":null"#),
            BODY.replace(r#""2.0""#, r#""1.0""#),
            BODY.replace(r#""taskId":"t1""#, r#""taskId":"t1","extra":1"#),
            BODY.replace(r#""method":"tasks/get","#, r#""method":"tasks/get","more":1,"#),
            BODY.replace("2026-07-28", "2025-11-25"),
            BODY.replace(r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#, "5"),
            BODY.replace(r#","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#, ""),
        ] {
            assert!(Poll::plain(&plain, body.as_bytes()).is_none(), "{body}");
        }
    }

    #[test]
    fn hosts_compare_as_rmcp_compares_them() {
        let allowed = vec!["example.com".to_owned(), "api.example.com:8443".to_owned()];
        assert!(host_allowed("EXAMPLE.com", &allowed));
        assert!(host_allowed("example.com:9000", &allowed));
        assert!(host_allowed("api.example.com:8443", &allowed));
        assert!(!host_allowed("api.example.com:8444", &allowed));
        assert!(!host_allowed("api.example.com", &allowed));
        assert!(!host_allowed("other.example", &allowed));
        assert!(host_allowed("[::1]:80", &local()));
        assert!(host_allowed("anything", &[]));
    }
}
