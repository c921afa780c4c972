//! Single-choice fields (`type: "string"` with `enum`, titled `oneOf`, or the
//! deprecated `enum` + `enumNames`): emit, parse and check.

use serde_json::{Map, Value};

use super::keywords::{Keywords, only, strings};
use crate::form::error::FormError;
use crate::form::option::{
    ChoiceOption, check_options, is_titled, offered, parse_titled, titled_json, untitled,
    values_json,
};
use crate::form::report::Reason;
use crate::form::value::Checked;

/// A single choice among offered options.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ChoiceKind {
    pub(crate) options: Vec<ChoiceOption>,
}

impl ChoiceKind {
    /// Whether a `type: "string"` property is a choice (told by key presence).
    pub(crate) fn is_choice(obj: &Map<String, Value>) -> bool {
        ["enumNames", "enum", "oneOf"]
            .iter()
            .any(|k| obj.contains_key(*k))
    }

    pub(crate) fn emit(&self, out: &mut Keywords) {
        out.push(("type", "string".into()));
        if is_titled(&self.options) {
            out.push(("oneOf", titled_json(&self.options)));
        } else {
            out.push(("enum", values_json(&self.options)));
        }
    }

    /// The shape is told by key presence: `enumNames` (legacy, titled),
    /// `enum` (untitled), `oneOf` (titled).
    pub(crate) fn parse(name: &str, obj: &Map<String, Value>) -> Result<Self, FormError> {
        let bad = |keyword| FormError::bad(name, keyword);
        let options = if obj.contains_key("enumNames") {
            only(name, obj, &["enum", "enumNames"])?;
            let values = strings(obj.get("enum")).ok_or_else(|| bad("enum"))?;
            let titles = strings(obj.get("enumNames")).ok_or_else(|| bad("enumNames"))?;
            if values.len() != titles.len() {
                return Err(bad("enumNames"));
            }
            values
                .into_iter()
                .zip(titles)
                .map(|(value, title)| ChoiceOption {
                    value,
                    title: Some(title),
                })
                .collect()
        } else if obj.contains_key("enum") {
            only(name, obj, &["enum"])?;
            untitled(strings(obj.get("enum")).ok_or_else(|| bad("enum"))?)
        } else {
            only(name, obj, &["oneOf"])?;
            parse_titled(name, obj.get("oneOf"), "oneOf")?
        };
        Ok(Self { options })
    }

    /// Checks the definition: the options.
    pub(crate) fn compile(&self, name: &str) -> Result<(), FormError> {
        check_options(name, &self.options)
    }

    /// What is wrong, in words a user understands (never the value).
    pub(crate) fn explain(&self, reason: Reason) -> String {
        match reason {
            Reason::NotOffered => "not one of the options".into(),
            _ => "must be one of the options".into(),
        }
    }

    /// A string, then one of the options.
    pub(crate) fn check<'v>(&self, v: &'v Value) -> Result<Checked<'v>, Reason> {
        let s = v.as_str().ok_or(Reason::WrongType)?;
        offered(&self.options, s).map(Checked::Choice)
    }
}
