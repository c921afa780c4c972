//! Multiple-choice fields (`type: "array"` whose `items` are an untitled
//! `enum` or titled `anyOf`, `minItems`, `maxItems`): emit, parse and check.

use serde_json::{Map, Value};

use super::keywords::{Keywords, annotation, only, strings, unknown};
use crate::form::error::FormError;
use crate::form::numbers::count;
use crate::form::option::{
    ChoiceOption, check_options, is_titled, offered, parse_titled, titled_json, untitled,
    values_json,
};
use crate::form::report::Reason;
use crate::form::value::Checked;

/// A choice of distinct offered options.
///
/// The profile cannot say `uniqueItems`, so clients send `["a", "a"]`: by
/// default repeated items are removed (the first of each kept); with
/// `refuse_duplicates` they make the answer invalid. Either way the schema is
/// the same, and a parsed schema removes them.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct MultiChoiceKind {
    pub(crate) options: Vec<ChoiceOption>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    pub(crate) refuse_duplicates: bool,
}

impl MultiChoiceKind {
    /// The keywords a multi-choice property may carry.
    const KEYWORDS: &[&str] = &["items", "minItems", "maxItems"];

    pub(crate) fn emit(&self, out: &mut Keywords) {
        out.push(("type", "array".into()));
        let mut items = Map::new();
        if is_titled(&self.options) {
            items.insert("anyOf".into(), titled_json(&self.options));
        } else {
            items.insert("type".into(), "string".into());
            items.insert("enum".into(), values_json(&self.options));
        }
        out.push(("items", Value::Object(items)));
        if let Some(n) = self.min_items {
            out.push(("minItems", n.into()));
        }
        if let Some(n) = self.max_items {
            out.push(("maxItems", n.into()));
        }
    }

    pub(crate) fn parse(name: &str, obj: &Map<String, Value>) -> Result<Self, FormError> {
        // `enum` on the array itself is the usual mistake: say what is expected.
        if unknown(obj, Self::KEYWORDS).is_some_and(|k| k == "enum") {
            return Err(FormError::ArrayNotMultiSelect {
                field: name.to_owned(),
            });
        }
        only(name, obj, Self::KEYWORDS)?;
        let options = parse_items(name, obj.get("items"))?;
        let count = |keyword| {
            obj.get(keyword)
                .map(|v| count(v).ok_or_else(|| FormError::bad(name, keyword)))
                .transpose()
        };
        Ok(Self {
            options,
            min_items: count("minItems")?,
            max_items: count("maxItems")?,
            refuse_duplicates: false,
        })
    }

    /// Checks the definition: `minItems <= maxItems`, then the options.
    pub(crate) fn compile(&self, name: &str) -> Result<(), FormError> {
        match (self.min_items, self.max_items) {
            (Some(lo), Some(hi)) if lo > hi => Err(FormError::MinAboveMax {
                field: name.to_owned(),
                keyword: "minItems",
            }),
            _ => check_options(name, &self.options),
        }
    }

    /// What is wrong, in words a user understands (never the value).
    pub(crate) fn explain(&self, reason: Reason) -> String {
        let options = |n: u64| if n == 1 { "option" } else { "options" };
        match (reason, self.min_items, self.max_items) {
            (Reason::NotOffered, _, _) => "includes a choice that is not one of the options".into(),
            (Reason::DuplicateItem, _, _) => "choose each option at most once".into(),
            (Reason::TooFewItems, Some(lo), _) => format!("choose at least {lo} {}", options(lo)),
            (Reason::TooManyItems, _, Some(hi)) => format!("choose at most {hi} {}", options(hi)),
            _ => "must be a choice of the options".into(),
        }
    }

    /// An array of strings, each an option; repeated items removed or
    /// refused; then the item count (after removal).
    pub(crate) fn check<'v>(&self, v: &'v Value) -> Result<Checked<'v>, Reason> {
        let items = v.as_array().ok_or(Reason::WrongType)?;
        // `picked` never holds more than the form's options, so each item
        // costs at most two scans of the options, whatever the input's length
        // (which the strict parser's byte cap bounds).
        let mut picked = Vec::with_capacity(items.len().min(self.options.len()));
        let mut deduplicated = false;
        for item in items {
            let s = item.as_str().ok_or(Reason::WrongType)?;
            let i = offered(&self.options, s)?;
            if !picked.contains(&i) {
                picked.push(i);
            } else if self.refuse_duplicates {
                return Err(Reason::DuplicateItem);
            } else {
                deduplicated = true;
            }
        }
        let n = u64::try_from(picked.len()).unwrap_or(u64::MAX);
        if self.min_items.is_some_and(|lo| n < lo) {
            return Err(Reason::TooFewItems);
        }
        if self.max_items.is_some_and(|hi| n > hi) {
            return Err(Reason::TooManyItems);
        }
        Ok(Checked::Choices {
            picked,
            deduplicated,
        })
    }
}

/// `items` of a multi-select: `{"type":"string","enum":[..]}` or `{"anyOf":[{const,title}..]}`.
fn parse_items(name: &str, items: Option<&Value>) -> Result<Vec<ChoiceOption>, FormError> {
    let not_multi = || FormError::ArrayNotMultiSelect {
        field: name.to_owned(),
    };
    let items = items.and_then(Value::as_object).ok_or_else(not_multi)?;
    if items.contains_key("$ref") {
        return Err(FormError::Ref {
            field: Some(name.to_owned()),
        });
    }
    let type_ok = items.get("type").map(|t| t.as_str() == Some("string"));
    let (list, allowed) = if items.contains_key("anyOf") {
        if type_ok == Some(false) {
            return Err(not_multi());
        }
        ("anyOf", ["anyOf", "type"])
    } else if items.contains_key("enum") && type_ok == Some(true) {
        ("enum", ["enum", "type"])
    } else {
        return Err(not_multi());
    };
    if let Some(k) = items
        .iter()
        .find(|(k, v)| !allowed.contains(&k.as_str()) && annotation(k, v) != Some(Ok(())))
        .map(|(k, _)| k)
    {
        return Err(FormError::UnsupportedKeyword {
            field: Some(name.to_owned()),
            keyword: format!("items.{k}"),
        });
    }
    if list == "anyOf" {
        parse_titled(name, items.get("anyOf"), "anyOf")
    } else {
        strings(items.get("enum"))
            .map(untitled)
            .ok_or_else(|| FormError::bad(name, "enum"))
    }
}
