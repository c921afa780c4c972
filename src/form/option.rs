//! The offered options of a single or multiple choice: checked once at build,
//! emitted as `enum` or as titled `{const, title}` entries, parsed back, and
//! matched against an answer.

use serde_json::{Map, Value};

use crate::form::error::FormError;
use crate::form::report::Reason;

/// One offered value of a choice, with an optional display title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChoiceOption {
    pub(crate) value: String,
    pub(crate) title: Option<String>,
}

/// Options must be non-empty, distinct, non-blank when titled, and all titled
/// or all untitled.
pub(crate) fn check_options(name: &str, options: &[ChoiceOption]) -> Result<(), FormError> {
    let field = || name.to_owned();
    let Some(first) = options.first() else {
        return Err(FormError::NoOptions { field: field() });
    };
    let titled = first.title.is_some();
    for (i, c) in options.iter().enumerate() {
        if c.value.is_empty() {
            return Err(FormError::EmptyOption { field: field() });
        }
        if c.title.is_some() != titled {
            return Err(FormError::MixedOptions { field: field() });
        }
        if c.title.as_deref().is_some_and(|t| t.trim().is_empty()) {
            return Err(FormError::BlankOptionTitle {
                field: field(),
                option: c.value.clone(),
            });
        }
        if options.iter().take(i).any(|p| p.value == c.value) {
            return Err(FormError::DuplicateOption {
                field: field(),
                option: c.value.clone(),
            });
        }
    }
    Ok(())
}

/// The index of the option whose value is exactly `s` (code point for code point).
pub(crate) fn offered(options: &[ChoiceOption], s: &str) -> Result<usize, Reason> {
    options
        .iter()
        .position(|c| c.value == s)
        .ok_or(Reason::NotOffered)
}

/// The value of option `i` (`""` cannot happen for a checked index).
pub(crate) fn option_value(options: &[ChoiceOption], i: usize) -> &str {
    options.get(i).map_or("", |c| c.value.as_str())
}

/// Whether the options carry titles (they are all titled or all untitled).
pub(crate) fn is_titled(options: &[ChoiceOption]) -> bool {
    options.first().is_some_and(|c| c.title.is_some())
}

/// `["a", "b"]`.
pub(crate) fn values_json(options: &[ChoiceOption]) -> Value {
    options
        .iter()
        .map(|c| Value::from(c.value.as_str()))
        .collect()
}

/// `[{"const": "a", "title": "A"}, ..]`.
pub(crate) fn titled_json(options: &[ChoiceOption]) -> Value {
    options
        .iter()
        .map(|c| {
            let mut m = Map::new();
            m.insert("const".into(), c.value.as_str().into());
            m.insert(
                "title".into(),
                c.title.as_deref().unwrap_or_default().into(),
            );
            Value::Object(m)
        })
        .collect()
}

/// Untitled options from their values.
pub(crate) fn untitled(values: Vec<String>) -> Vec<ChoiceOption> {
    values
        .into_iter()
        .map(|value| ChoiceOption { value, title: None })
        .collect()
}

/// Parses `[{"const": "..", "title": ".."}, ..]`, both keys required, nothing else.
pub(crate) fn parse_titled(
    name: &str,
    list: Option<&Value>,
    keyword: &'static str,
) -> Result<Vec<ChoiceOption>, FormError> {
    let bad = || FormError::bad(name, keyword);
    let list = list.and_then(Value::as_array).ok_or_else(bad)?;
    list.iter()
        .map(|entry| {
            let obj = entry.as_object().ok_or_else(bad)?;
            if let Some(k) = obj
                .keys()
                .find(|k| !matches!(k.as_str(), "const" | "title"))
            {
                return Err(FormError::UnsupportedKeyword {
                    field: Some(name.to_owned()),
                    keyword: format!("{keyword}.{k}"),
                });
            }
            let value = obj.get("const").and_then(Value::as_str).ok_or_else(bad)?;
            let title = obj.get("title").and_then(Value::as_str).ok_or_else(bad)?;
            Ok(ChoiceOption {
                value: value.to_owned(),
                title: Some(title.to_owned()),
            })
        })
        .collect()
}
