//! The request methods a `requestState` can belong to.

use std::fmt;

/// The request methods that may return `input_required`, and so the only ones
/// a `requestState` can be minted for.
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
    use super::*;

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
