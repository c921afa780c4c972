//! The `requestedSchema` wire form: emit it from fields, parse it into fields.
//!
//! This file owns the object level and what every property shares (`title`,
//! `description`, `default`); each kind's own keywords are emitted and parsed
//! by its file under `kind/`. Every keyword outside the profile is refused by
//! name.

use serde_json::{Map, Value};

use crate::form::error::FormError;
use crate::form::field::Field;
use crate::form::kind::Kind;
use crate::form::kind::keywords::Keywords;

/// The object schema for `fields` (already compiled).
pub(crate) fn emit(fields: &[Field]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in fields {
        let keywords = emit_field(f).into_iter().map(|(k, v)| (k.to_owned(), v));
        properties.insert(f.name.clone(), Value::Object(keywords.collect()));
        if f.required {
            required.push(Value::from(f.name.as_str()));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), Value::from("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    Value::Object(schema)
}

/// One property's keywords: the kind's (`type` first), then `title`,
/// `description` and `default`.
fn emit_field(f: &Field) -> Keywords {
    let mut out = Keywords::new();
    f.kind.emit(&mut out);
    if let Some(t) = &f.title {
        out.push(("title", t.as_str().into()));
    }
    if let Some(d) = &f.description {
        out.push(("description", d.as_str().into()));
    }
    if let Some(d) = &f.default {
        out.push(("default", d.clone()));
    }
    out
}

/// Parses a whole `requestedSchema` into (uncompiled) fields.
pub(crate) fn parse(schema: &Value) -> Result<Vec<Field>, FormError> {
    let obj = schema.as_object().ok_or(FormError::SchemaNotObject)?;
    for (k, v) in obj {
        match k.as_str() {
            "type" if v.as_str() == Some("object") => {}
            "type" => return Err(FormError::UnsupportedType { field: None }),
            "properties" | "required" => {}
            "$schema" if v.is_string() => {}
            "$schema" => {
                return Err(FormError::BadKeywordValue {
                    field: None,
                    keyword: "$schema",
                });
            }
            "$ref" => return Err(FormError::Ref { field: None }),
            _ => {
                return Err(FormError::UnsupportedKeyword {
                    field: None,
                    keyword: k.clone(),
                });
            }
        }
    }
    if !obj.contains_key("type") {
        return Err(FormError::MissingKeyword {
            field: None,
            keyword: "type",
        });
    }
    let properties = match obj.get("properties") {
        Some(Value::Object(p)) => p,
        Some(_) => {
            return Err(FormError::BadKeywordValue {
                field: None,
                keyword: "properties",
            });
        }
        None => {
            return Err(FormError::MissingKeyword {
                field: None,
                keyword: "properties",
            });
        }
    };
    let mut fields = properties
        .iter()
        .map(|(name, prop)| parse_property(name, prop))
        .collect::<Result<Vec<_>, _>>()?;
    let required = match obj.get("required") {
        None => &[][..],
        Some(Value::Array(r)) => r.as_slice(),
        Some(_) => {
            return Err(FormError::BadKeywordValue {
                field: None,
                keyword: "required",
            });
        }
    };
    for (i, r) in required.iter().enumerate() {
        let name = r.as_str().ok_or(FormError::BadKeywordValue {
            field: None,
            keyword: "required",
        })?;
        if required.iter().take(i).any(|p| p.as_str() == Some(name)) {
            return Err(FormError::BadKeywordValue {
                field: None,
                keyword: "required",
            });
        }
        let field = fields.iter_mut().find(|f| f.name == name).ok_or_else(|| {
            FormError::RequiredUnknown {
                field: name.to_owned(),
            }
        })?;
        field.required = true;
    }
    Ok(fields)
}

/// Parses one property schema (a field of the profile) under `name`.
pub(crate) fn parse_property(name: &str, prop: &Value) -> Result<Field, FormError> {
    let some = || Some(name.to_owned());
    let bad = |keyword: &'static str| FormError::bad(name, keyword);
    let obj = prop.as_object().ok_or_else(|| bad("properties"))?;
    if obj.contains_key("$ref") {
        return Err(FormError::Ref { field: some() });
    }
    if obj.contains_key("properties") {
        return Err(FormError::Nested {
            field: name.to_owned(),
        });
    }
    let ty = match obj.get("type") {
        None => {
            return Err(FormError::MissingKeyword {
                field: some(),
                keyword: "type",
            });
        }
        Some(Value::String(t)) => t.as_str(),
        Some(_) => return Err(FormError::UnsupportedType { field: some() }),
    };
    let mut field = Field::of_kind(name, Kind::parse(name, ty, obj)?);
    if let Some(v) = obj.get("title") {
        field = field.title(v.as_str().ok_or_else(|| bad("title"))?);
    }
    if let Some(v) = obj.get("description") {
        field = field.description(v.as_str().ok_or_else(|| bad("description"))?);
    }
    if let Some(v) = obj.get("default") {
        field = field.default(v.clone());
    }
    Ok(field)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn discriminates_by_key_presence() {
        let kind = |v: Value| parse_property("x", &v).map(|f| f.kind());
        use crate::FieldKind as K;
        assert_eq!(kind(json!({"type":"string"})), Ok(K::String));
        assert_eq!(kind(json!({"type":"string","enum":["a"]})), Ok(K::Choice));
        assert_eq!(
            kind(json!({"type":"string","oneOf":[{"const":"a","title":"A"}]})),
            Ok(K::Choice)
        );
        assert_eq!(
            kind(json!({"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}})),
            Ok(K::MultiChoice)
        );
        assert_eq!(
            kind(json!({"type":"array","items":{"type":"string","enum":["a"]}})),
            Ok(K::MultiChoice)
        );
    }

    #[test]
    fn refuses_out_of_profile() {
        let err = |v: Value| parse_property("x", &v).err();
        assert_eq!(
            err(json!({"type":"object"})),
            Some(FormError::Nested { field: "x".into() })
        );
        assert_eq!(
            err(json!({"$ref":"#/a"})),
            Some(FormError::Ref {
                field: Some("x".into())
            })
        );
        assert_eq!(
            err(json!({"type":"array","items":{"type":"string"}})),
            Some(FormError::ArrayNotMultiSelect { field: "x".into() })
        );
        assert_eq!(
            err(json!({"type":"string","pattern":"a+"})),
            Some(FormError::UnsupportedKeyword {
                field: Some("x".into()),
                keyword: "pattern".into()
            })
        );
        assert_eq!(
            err(json!({"type":"string","format":"ipv4"})),
            Some(FormError::UnknownFormat {
                field: "x".into(),
                format: "ipv4".into()
            })
        );
        assert_eq!(
            err(json!({"type":"integer","minimum":1e20})),
            Some(FormError::BadKeywordValue {
                field: Some("x".into()),
                keyword: "minimum"
            })
        );
    }
}
