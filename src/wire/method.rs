//! The request methods a `requestState` can belong to.

use std::fmt;

use serde_json::Value;

use crate::wire::error::RpcError;

/// The request methods that may return `input_required`, and so the only ones
/// a `requestState` can be minted for.
///
/// Each call of one names its target, which a state is bound to with the
/// method: [`target_key`](Self::target_key) says what the target is and
/// where the params hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `tools/call`; the target is the tool's name.
    ToolsCall,
    /// `prompts/get`; the target is the prompt's name.
    PromptsGet,
    /// `resources/read`; the target is the resource's URI.
    ResourcesRead,
}

impl Method {
    /// The JSON-RPC method name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ToolsCall => "tools/call",
            Self::PromptsGet => "prompts/get",
            Self::ResourcesRead => "resources/read",
        }
    }

    /// The params member that holds the call's target: `name` for
    /// `tools/call` and `prompts/get` (the tool's or the prompt's name),
    /// `uri` for `resources/read` (the resource's URI).
    ///
    /// ```
    /// use mrtr_guard::Method;
    ///
    /// assert_eq!(Method::ToolsCall.target_key(), "name");
    /// assert_eq!(Method::ResourcesRead.target_key(), "uri");
    /// ```
    pub fn target_key(self) -> &'static str {
        match self {
            Self::ToolsCall | Self::PromptsGet => "name",
            Self::ResourcesRead => "uri",
        }
    }

    /// The target in a call's `params`
    /// ([`target_key`](Self::target_key)), or `-32602` saying that it must
    /// be a string.
    pub(crate) fn target_in(self, params: &Value) -> Result<&str, RpcError> {
        params
            .get(self.target_key())
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RpcError::invalid_params(match self {
                    Self::ToolsCall | Self::PromptsGet => "params.name must be a string",
                    Self::ResourcesRead => "params.uri must be a string",
                })
            })
    }

    /// The method for a JSON-RPC method name, or `None` for every method
    /// that must never return `input_required`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "tools/call" => Some(Self::ToolsCall),
            "prompts/get" => Some(Self::PromptsGet),
            "resources/read" => Some(Self::ResourcesRead),
            _ => None,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_target_is_read_from_the_member_target_key_names() {
        let params = json!({"name": "ShipOrder", "uri": "file:///a"});
        assert_eq!(Method::ToolsCall.target_in(&params).ok(), Some("ShipOrder"));
        assert_eq!(
            Method::PromptsGet.target_in(&params).ok(),
            Some("ShipOrder")
        );
        assert_eq!(
            Method::ResourcesRead.target_in(&params).ok(),
            Some("file:///a")
        );
        let wrong = json!({"name": 1, "uri": null});
        for (method, message) in [
            (Method::ToolsCall, "params.name must be a string"),
            (Method::PromptsGet, "params.name must be a string"),
            (Method::ResourcesRead, "params.uri must be a string"),
        ] {
            let error = method.target_in(&wrong).err();
            assert_eq!(error.as_ref().map(RpcError::message), Some(message));
            assert_eq!(error.map(|e| e.code()), Some(RpcError::INVALID_PARAMS));
        }
    }

    #[test]
    fn method_names_round_trip_and_nothing_else_maps() {
        for method in [Method::ToolsCall, Method::PromptsGet, Method::ResourcesRead] {
            assert_eq!(Method::from_name(method.as_str()), Some(method));
            assert_eq!(method.to_string(), method.as_str());
        }
        for name in [
            "tools/list",
            "prompts/list",
            "resources/list",
            "completion/complete",
            "Tools/Call",
            "",
        ] {
            assert_eq!(Method::from_name(name), None, "{name}");
        }
    }
}
