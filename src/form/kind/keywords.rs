//! What a property may say: the keywords every kind allows, annotations that
//! are read past, and readers for keyword values that more than one kind uses.

use serde_json::{Map, Value};

use crate::form::error::FormError;

/// Keywords every property may carry, whatever its kind.
const COMMON: &[&str] = &["type", "title", "description", "default"];

/// Whether `k` is an annotation, a keyword that never changes validation and
/// is read past: `$comment` (a string), `examples` (an array) or an `x-*`
/// extension (anything). `Some(Err(keyword))` when it is one with a value of
/// the wrong shape.
pub(crate) fn annotation(k: &str, v: &Value) -> Option<Result<(), &'static str>> {
    let shape = |ok: bool, keyword| if ok { Ok(()) } else { Err(keyword) };
    match k {
        "$comment" => Some(shape(v.is_string(), "$comment")),
        "examples" => Some(shape(v.is_array(), "examples")),
        _ if k.starts_with("x-") => Some(Ok(())),
        _ => None,
    }
}

/// The first keyword of `obj` that is neither common, nor in `allowed`, nor
/// an annotation.
pub(crate) fn unknown<'o>(obj: &'o Map<String, Value>, allowed: &[&str]) -> Option<&'o String> {
    obj.iter()
        .find(|(k, v)| {
            !COMMON.contains(&k.as_str())
                && !allowed.contains(&k.as_str())
                && annotation(k, v).is_none()
        })
        .map(|(k, _)| k)
}

/// Refuses a keyword outside `allowed` (and the common ones) by name, and an
/// annotation of the wrong shape.
pub(crate) fn only(
    name: &str,
    obj: &Map<String, Value>,
    allowed: &[&str],
) -> Result<(), FormError> {
    for (k, v) in obj {
        match annotation(k, v) {
            Some(Ok(())) => {}
            Some(Err(keyword)) => return Err(FormError::bad(name, keyword)),
            None if COMMON.contains(&k.as_str()) || allowed.contains(&k.as_str()) => {}
            None => {
                return Err(FormError::UnsupportedKeyword {
                    field: Some(name.to_owned()),
                    keyword: k.clone(),
                });
            }
        }
    }
    Ok(())
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
