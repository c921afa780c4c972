//! Streamable HTTP request checks: the standard MCP headers against the body.
//!
//! Framework-neutral: the checks take header `(name, value)` pairs and the
//! parsed body, and return the JSON-RPC error to send (with its HTTP status,
//! [`RpcError::http_status`]). `rmcp` runs equivalent checks on its own path;
//! these serve any other host.

use std::borrow::Cow;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::json::{Limits, parse_strict};
use crate::wire::error::RpcError;
use crate::wire::method::Method;
use crate::wire::params::RequestMeta;
use crate::wire::protocol::PROTOCOL_VERSION;

/// Which protocol versions the header check accepts.
///
/// ```
/// use mrtr_guard::wire::HeaderCheck;
/// use serde_json::json;
///
/// let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
///     "name": "ShipOrder",
///     "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
///               "io.modelcontextprotocol/clientCapabilities": {}}}});
/// let headers = [
///     ("MCP-Protocol-Version", "2026-07-28"),
///     ("Mcp-Method", "tools/call"),
///     ("Mcp-Name", "=?base64?U2hpcE9yZGVy?="),   // "ShipOrder"
/// ];
/// assert!(HeaderCheck::default().check(headers, &body).is_ok());
///
/// let wrong = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "Other")];
/// let error = HeaderCheck::default().check(wrong, &body).unwrap_err();
/// assert_eq!((error.code(), error.http_status()), (-32020, 400));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderCheck {
    supported: Vec<String>,
}

impl Default for HeaderCheck {
    /// Accepts [`PROTOCOL_VERSION`] only.
    fn default() -> Self {
        Self {
            supported: vec![PROTOCOL_VERSION.to_owned()],
        }
    }
}

impl HeaderCheck {
    /// Accepts the given versions.
    #[must_use]
    pub fn with_versions<I, S>(versions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            supported: versions.into_iter().map(Into::into).collect(),
        }
    }

    /// Checks one POSTed JSON-RPC message against its headers, in this order:
    /// header syntax (no header twice, no invalid characters), `Mcp-Method`
    /// present and equal to `method`, `MCP-Protocol-Version` present and
    /// supported, `_meta` complete (requests only), `MCP-Protocol-Version`
    /// equal to `_meta`'s version, and `Mcp-Name` (decoded from
    /// `=?base64?...?=` when so wrapped) equal to `params.name`, or
    /// `params.uri` for `resources/read`, on the three methods that carry it.
    ///
    /// Header names are case-insensitive, values case-sensitive.
    ///
    /// # Errors
    ///
    /// [`RpcError::header_mismatch`] (-32020, HTTP 400) for a missing,
    /// duplicated, malformed or mismatched header;
    /// [`RpcError::unsupported_protocol_version`] (-32022, HTTP 400);
    /// [`RpcError::missing_meta`] (-32602, HTTP 400);
    /// [`RpcError::invalid_request`] when the body is not a request;
    /// [`RpcError::invalid_params`] when the name the header must match is
    /// not a string in the body.
    pub fn check<'a, I>(&self, headers: I, body: &Value) -> Result<(), RpcError>
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let headers = Headers::collect(headers)?;
        let method = body
            .get("method")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid_request("the body is not a JSON-RPC request"))?;
        match headers.get("mcp-method") {
            None => {
                return Err(RpcError::header_mismatch(
                    "missing required Mcp-Method header",
                ));
            }
            // Literal, as `rmcp` compares it: a method name never needs the
            // base64 wrapping, and `rmcp` refuses a wrapped one.
            Some(value) if value != method => {
                return Err(RpcError::header_mismatch(
                    "Mcp-Method header does not match the body's method",
                ));
            }
            Some(_) => {}
        }
        let version = headers.get("mcp-protocol-version").ok_or_else(|| {
            RpcError::header_mismatch("missing required MCP-Protocol-Version header")
        })?;
        if !self.supported.iter().any(|v| v == version) {
            return Err(RpcError::unsupported_protocol_version(
                version,
                &self.supported,
            ));
        }
        let null = Value::Null;
        let params = body.get("params").unwrap_or(&null);
        if body.get("id").is_some() && RequestMeta::declared_version(params)? != version {
            return Err(RpcError::header_mismatch(
                "MCP-Protocol-Version header does not match _meta protocolVersion",
            ));
        }
        let Some(method) = Method::from_name(method) else {
            return Ok(());
        };
        let expected = method.target_in(params)?;
        match headers.get("mcp-name") {
            None => Err(RpcError::header_mismatch(
                "missing required Mcp-Name header",
            )),
            Some(value) => match decode_header_value(value) {
                None => Err(RpcError::header_mismatch(
                    "Mcp-Name header is not valid base64 UTF-8",
                )),
                Some(decoded) if decoded != expected => Err(RpcError::header_mismatch(
                    "Mcp-Name header does not match the body",
                )),
                Some(_) => Ok(()),
            },
        }
    }
}

/// [`HeaderCheck::default`]`.check(headers, body)`.
///
/// # Errors
///
/// As [`HeaderCheck::check`].
pub fn check_headers<'a, I>(headers: I, body: &Value) -> Result<(), RpcError>
where
    I: IntoIterator<Item = (&'a str, &'a str)>,
{
    HeaderCheck::default().check(headers, body)
}

/// Decodes an MCP header value: `=?base64?<standard base64 of UTF-8>?=` is
/// decoded (strictly: canonical padding, no stray characters), any other value
/// is literal. `None` for a wrapped value that does not decode.
///
/// ```
/// use mrtr_guard::wire::decode_header_value;
///
/// assert_eq!(decode_header_value("=?base64?SGVsbG8=?=").as_deref(), Some("Hello"));
/// assert_eq!(decode_header_value("=?base64?SGVsbG8?=").as_deref(), None);   // bad padding
/// assert_eq!(decode_header_value("=?base64?SGVsbG8=").as_deref(), Some("=?base64?SGVsbG8="));
/// ```
#[must_use]
pub fn decode_header_value(value: &str) -> Option<Cow<'_, str>> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => {
            let bytes = STANDARD.decode(encoded).ok()?;
            String::from_utf8(bytes).ok().map(Cow::Owned)
        }
        None => Some(Cow::Borrowed(value)),
    }
}

/// Parses a request body strictly before any JSON-RPC library sees it:
/// duplicate keys (which `serde_json` would silently resolve to the last
/// one), trailing data, lone surrogates, more than `limits` allows.
///
/// ```
/// use mrtr_guard::json::Limits;
/// use mrtr_guard::wire::screen_body;
///
/// assert!(screen_body(br#"{"a":1}"#, &Limits::default()).is_ok());
/// let error = screen_body(br#"{"a":1,"a":2}"#, &Limits::default()).unwrap_err();
/// assert_eq!((error.code(), error.http_status()), (-32700, 400));
/// ```
///
/// # Errors
///
/// [`RpcError::parse_error`] (-32700, HTTP 400) naming the rule broken, never
/// the input.
pub fn screen_body(bytes: &[u8], limits: &Limits) -> Result<Value, RpcError> {
    parse_strict(bytes, limits).map_err(|error| RpcError::parse_error(&error.to_string()))
}

/// The request's MCP headers by lower-case name, each at most once.
struct Headers<'a>(Vec<(&'static str, &'a str)>);

/// The headers [`HeaderCheck`] reads, by lower-case name.
const MCP_HEADERS: [&str; 3] = ["mcp-protocol-version", "mcp-method", "mcp-name"];

impl<'a> Headers<'a> {
    fn collect<I>(headers: I) -> Result<Self, RpcError>
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut seen: Vec<(&'static str, &'a str)> = Vec::new();
        for (name, value) in headers {
            let Some(name) = MCP_HEADERS
                .into_iter()
                .find(|known| name.eq_ignore_ascii_case(known))
            else {
                continue;
            };
            let value = value.trim_matches([' ', '\t']);
            if !value
                .bytes()
                .all(|b| b == b' ' || b == b'\t' || (0x21..0x7f).contains(&b))
            {
                return Err(RpcError::header_mismatch(
                    "an MCP header value holds characters outside visible ASCII",
                ));
            }
            if seen.iter().any(|(seen, _)| *seen == name) {
                return Err(RpcError::header_mismatch("an MCP header is sent twice"));
            }
            seen.push((name, value));
        }
        Ok(Self(seen))
    }

    fn get(&self, name: &str) -> Option<&'a str> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn body(method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    }

    fn meta() -> Value {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}})
    }

    fn check(headers: &[(&str, &str)], body: &Value) -> Result<(), RpcError> {
        check_headers(headers.iter().copied(), body)
    }

    #[test]
    fn resources_read_compares_the_uri_and_list_needs_no_name() {
        let read = body(
            "resources/read",
            json!({"uri": "file:///ä", "_meta": meta()}),
        );
        let encoded = format!("=?base64?{}?=", STANDARD.encode("file:///ä".as_bytes()));
        let ok = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "resources/read"),
            ("Mcp-Name", encoded.as_str()),
        ];
        assert_eq!(check(&ok, &read), Ok(()));
        let list = body("tools/list", json!({"_meta": meta()}));
        assert_eq!(
            check(
                &[
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/list")
                ],
                &list
            ),
            Ok(())
        );
    }

    #[test]
    fn header_names_match_in_any_case_and_once() {
        let list = body("tools/list", json!({"_meta": meta()}));
        let mixed = [
            ("mCp-PrOtOcOl-VeRsIoN", "2026-07-28"),
            ("MCP-METHOD", "tools/list"),
        ];
        assert_eq!(check(&mixed, &list), Ok(()));
        let twice = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/list"),
            ("mcp-method", "tools/list"),
        ];
        assert_eq!(
            check(&twice, &list).unwrap_err().code(),
            RpcError::HEADER_MISMATCH
        );
        // Another header in the same spelling is not an MCP one.
        let other = [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/list"),
            ("Mcp-Methods", "x\u{7f}"),
        ];
        assert_eq!(check(&other, &list), Ok(()));
    }

    #[test]
    fn notifications_need_no_meta() {
        let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}});
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "notifications/cancelled"),
        ];
        assert_eq!(check(&headers, &note), Ok(()));
    }

    #[test]
    fn strict_base64() {
        assert_eq!(
            decode_header_value("=?base64?SGVs!!!bG8=?=").as_deref(),
            None
        );
        assert_eq!(
            decode_header_value("=?base64?/w==?=").as_deref(),
            None,
            "not UTF-8"
        );
        assert_eq!(decode_header_value("plain").as_deref(), Some("plain"));
    }
}
