//! What a property may say: the keywords every kind allows, and readers for
//! keyword values that more than one kind uses.

use serde_json::{Map, Value};

use crate::form::error::FormError;

/// Keywords every property may carry, whatever its kind.
const COMMON: &[&str] = &["type", "title", "description", "default"];

/// The first keyword of `obj` that is neither common nor in `allowed`.
pub(crate) fn unknown<'o>(obj: &'o Map<String, Value>, allowed: &[&str]) -> Option<&'o String> {
    obj.keys()
        .find(|k| !COMMON.contains(&k.as_str()) && !allowed.contains(&k.as_str()))
}

/// Refuses a keyword outside `allowed` (and the common ones), by name.
pub(crate) fn only(
    name: &str,
    obj: &Map<String, Value>,
    allowed: &[&str],
) -> Result<(), FormError> {
    match unknown(obj, allowed) {
        Some(k) => Err(FormError::UnsupportedKeyword {
            field: Some(name.to_owned()),
            keyword: k.clone(),
        }),
        None => Ok(()),
    }
}

/// A list of strings, or `None` if `v` is absent or anything else.
pub(crate) fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    v?.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// A property's keywords in the order they are emitted.
pub(crate) type Keywords = Vec<(&'static str, Value)>;
