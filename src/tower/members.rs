//! The members of a request body the screen reads, found by one strict
//! scan ([`scan_strict`]) that builds no tree: each is read from its own
//! bytes, and only when a check needs it.

use std::ops::Range;

use serde_json::{Map, Value};

use crate::json::{Limits, parse_strict, scan_strict};
use crate::wire::{Method, RpcError};

/// A member the screen reads.
#[derive(Clone, Copy)]
pub(super) enum Member {
    Id,
    Method,
    Params,
    Name,
    Uri,
    RequestState,
    InputResponses,
    Arguments,
    Meta,
}

/// Each [`Member`]'s path, in its order.
const PATHS: [&[&str]; 9] = [
    &["id"],
    &["method"],
    &["params"],
    &["params", "name"],
    &["params", "uri"],
    &["params", "requestState"],
    &["params", "inputResponses"],
    &["params", "arguments"],
    &["params", "_meta"],
];

/// A strictly checked body and where its members are.
pub(super) struct Members<'a> {
    bytes: &'a [u8],
    found: [Option<Range<usize>>; PATHS.len()],
}

impl<'a> Members<'a> {
    /// Checks `bytes` strictly (a parse error, as the screen refuses it)
    /// and finds the members.
    pub(super) fn scan(bytes: &'a [u8], limits: &Limits) -> Result<Self, RpcError> {
        let mut found = [const { None }; PATHS.len()];
        scan_strict(bytes, limits, &PATHS, &mut found)
            .map_err(|error| RpcError::parse_error(&error.to_string()))?;
        Ok(Self { bytes, found })
    }

    /// The member's bytes, if the body has it.
    fn raw(&self, member: Member) -> Option<&'a [u8]> {
        self.raw_at(member as usize)
    }

    /// The bytes of the member whose path is `PATHS[index]`, if the body
    /// has it.
    fn raw_at(&self, index: usize) -> Option<&'a [u8]> {
        let range = self.found.get(index)?.clone()?;
        self.bytes.get(range)
    }

    /// The member's value, if the body has it.
    pub(super) fn value(&self, member: Member) -> Option<Value> {
        decode(self.raw(member)?)
    }

    /// The member's text, if it is a string.
    fn text(&self, member: Member) -> Option<String> {
        match self.value(member)? {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    /// The request's id, if it has one (for a refusal).
    pub(super) fn id(&self) -> Option<Value> {
        self.value(Member::Id)
    }

    /// The method of a `tools/call`, `prompts/get` or `resources/read`
    /// whose params are an object: the calls that carry retry fields.
    pub(super) fn call_method(&self) -> Option<Method> {
        let params = self.raw(Member::Params)?;
        if params.first() != Some(&b'{') {
            return None;
        }
        Method::from_name(&self.text(Member::Method)?)
    }

    /// The call's target (`params.name`, or `params.uri` of a
    /// `resources/read`), if it is a string.
    pub(super) fn target(&self, method: Method) -> Option<String> {
        let member = match method.target_key() {
            "uri" => Member::Uri,
            _ => Member::Name,
        };
        self.text(member)
    }

    /// The params' retry fields (`requestState`, `inputResponses`), as
    /// the client sent them, for `retry_fields`.
    pub(super) fn retry_fields(&self) -> Map<String, Value> {
        self.members(&[
            ("requestState", Member::RequestState),
            ("inputResponses", Member::InputResponses),
        ])
    }

    /// The body the MCP header check reads: its method, id, and the params'
    /// target and `_meta`.
    pub(super) fn for_header_check(&self) -> Value {
        let mut body = self.members(&[("id", Member::Id), ("method", Member::Method)]);
        if self.raw(Member::Params).is_some() {
            let params = self.members(&[
                ("name", Member::Name),
                ("uri", Member::Uri),
                ("_meta", Member::Meta),
            ]);
            body.insert("params".to_owned(), Value::Object(params));
        }
        Value::Object(body)
    }

    /// The params' `arguments` object, if it is one.
    pub(super) fn arguments(&self) -> Option<Map<String, Value>> {
        match self.value(Member::Arguments)? {
            Value::Object(arguments) => Some(arguments),
            _ => None,
        }
    }

    /// The named members the body has, as an object.
    fn members(&self, named: &[(&str, Member)]) -> Map<String, Value> {
        named
            .iter()
            .filter_map(|&(name, member)| Some((name.to_owned(), self.value(member)?)))
            .collect()
    }
}

/// A member's bytes read as `parse_strict` reads them, within these caps:
/// the scan has checked them within the body's.
const CHECKED: Limits = Limits::new()
    .with_max_bytes(usize::MAX)
    .with_max_depth(usize::MAX);

/// A member's value from its bytes, as `parse_strict`'s tree of the whole
/// body has it: every object key a plain key. `serde_json`'s own `Value`
/// reads an object whose first key is its private raw-value token as the
/// JSON text inside: `"arguments":{"$serde_json::private::RawValue":"{}"}`
/// would bind as `{}` while the tool's extractors read the one-member
/// object, and a `requestState` object would pass as a string.
fn decode(raw: &[u8]) -> Option<Value> {
    parse_strict(raw, &CHECKED).ok()
}

/// A member's path (`["params", "name"]`) and the value the screen read
/// there, `None` where the body has none.
#[cfg(fuzzing)]
pub type ScreenedMember = (&'static [&'static str], Option<Value>);

/// Every member the screen reads from `bytes`, as the screen reads it. For
/// the `screen_members` fuzz target, which reads the same paths from
/// `parse_strict`'s tree of the same bytes: only `cargo fuzz` builds it
/// (`--cfg fuzzing`).
///
/// # Errors
///
/// The parse error the screen refuses the body with, where it is not
/// strict JSON within `limits`.
#[cfg(fuzzing)]
pub fn screened_members(bytes: &[u8], limits: &Limits) -> Result<Vec<ScreenedMember>, RpcError> {
    let members = Members::scan(bytes, limits)?;
    Ok(PATHS
        .iter()
        .enumerate()
        .map(|(index, path)| (*path, members.raw_at(index).and_then(decode)))
        .collect())
}
