//! The `requestedSchema` wire form: emit it from fields, parse it into fields.
//!
//! This file owns the object level and what every property shares (`title`,
//! `description`, `default`); each kind's own keywords are emitted and parsed
//! by its file under `kind/`. Every keyword outside the profile is refused by
//! name.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::form::error::FormError;
use crate::form::field::Field;
use crate::form::kind::Kind;
use crate::form::kind::keywords::{Keywords, annotation};
use crate::json::{Limits, parse_strict};

/// A form's `requestedSchema` with its properties, and `required`, in the
/// order the fields were declared.
///
/// A `serde_json::Value` keeps object keys sorted (this crate does not turn
/// on serde_json's `preserve_order`, which would change every map in the
/// program), so [`Form::requested_schema`](crate::form::Form::requested_schema)
/// lists properties alphabetically. This type serializes them in
/// declaration order: with [`to_json_string`](Self::to_json_string), or as
/// part of any `Serialize` type a transport writes. Within a property the
/// keys come `type` first, then the kind's keywords, `title`, `description`,
/// `default`.
///
/// ```
/// use mrtr_guard::{Field, Form};
///
/// let form = Form::builder("Your team")
///     .field(Field::integer("teamSize").required())
///     .field(Field::multi_choice("roles").options(["admin", "member"]))
///     .build()?;
/// let text = form.schema().to_json_string();
/// assert!(text.find("teamSize") < text.find("roles"));
/// assert_eq!(form.schema().to_value(), form.requested_schema());
/// # Ok::<(), mrtr_guard::form::FormError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RequestedSchema {
    properties: Vec<(String, Keywords)>,
    required: Vec<String>,
}

impl RequestedSchema {
    /// The schema as compact JSON text, properties in declaration order.
    #[must_use]
    pub fn to_json_string(&self) -> String {
        // Every key is a string and every value a `Value`: writing to a
        // `String` cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The schema as a `Value` (whose maps sort their keys).
    #[must_use]
    pub fn to_value(&self) -> Value {
        let properties = self.properties.iter().map(|(name, keywords)| {
            let keywords = keywords.iter().map(|(k, v)| ((*k).to_owned(), v.clone()));
            (name.clone(), Value::Object(keywords.collect()))
        });
        let mut schema = Map::new();
        schema.insert("type".into(), Value::from("object"));
        schema.insert("properties".into(), Value::Object(properties.collect()));
        if !self.required.is_empty() {
            schema.insert("required".into(), Value::from(self.required.clone()));
        }
        Value::Object(schema)
    }
}

impl Serialize for RequestedSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "object")?;
        map.serialize_entry("properties", &Properties(&self.properties))?;
        if !self.required.is_empty() {
            map.serialize_entry("required", &self.required)?;
        }
        map.end()
    }
}

/// The properties, in order, each a [`Keywords`] object.
struct Properties<'a>(&'a [(String, Keywords)]);

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, keywords) in self.0 {
            map.serialize_entry(name, &Object(keywords))?;
        }
        map.end()
    }
}

/// One property's keywords, in order.
struct Object<'a>(&'a [(&'static str, Value)]);

impl Serialize for Object<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// The object schema for `fields` (already compiled), in their order.
pub(crate) fn emit(fields: &[Field]) -> RequestedSchema {
    RequestedSchema {
        properties: fields
            .iter()
            .map(|f| (f.name.clone(), emit_field(f)))
            .collect(),
        required: fields
            .iter()
            .filter(|f| f.required)
            .map(|f| f.name.clone())
            .collect(),
    }
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

/// Parses `requestedSchema` text into (uncompiled) fields in the order the
/// text lists its properties. The text is read as strict JSON (duplicate
/// keys, trailing data and the rest refused) before anything else.
pub(crate) fn parse_text(text: &str) -> Result<Vec<Field>, FormError> {
    let value = parse_strict(text.as_bytes(), &Limits::default()).map_err(FormError::Json)?;
    let mut fields = parse(&value)?;
    // The text is strict JSON by now; a `properties` that is not an object
    // was refused by `parse`.
    let order = serde_json::from_str::<TopLevel>(text)
        .map(|t| t.0)
        .unwrap_or_default();
    fields.sort_by_key(|f| order.iter().position(|n| *n == f.name));
    Ok(fields)
}

/// The names under `properties` of a schema object, in document order.
struct TopLevel(Vec<String>);

impl<'de> Deserialize<'de> for TopLevel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(Names { nested: false })
    }
}

/// Reads an object's keys in order: at the top, only `properties` is
/// entered (`nested: false`); inside it, its keys are the names.
struct Names {
    nested: bool,
}

impl<'de> de::DeserializeSeed<'de> for Names {
    type Value = TopLevel;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TopLevel, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Names {
    type Value = TopLevel;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a json object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut names = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if self.nested {
                map.next_value::<IgnoredAny>()?;
                names.push(key);
            } else if key == "properties" {
                names = map.next_value_seed(Names { nested: true })?.0;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(TopLevel(names))
    }
}

/// Parses a whole `requestedSchema` into (uncompiled) fields, in the order
/// its `properties` map iterates (sorted, for a `serde_json::Value`).
pub(crate) fn parse(schema: &Value) -> Result<Vec<Field>, FormError> {
    let obj = schema.as_object().ok_or(FormError::SchemaNotObject)?;
    let bad = |keyword| FormError::BadKeywordValue {
        field: None,
        keyword,
    };
    for (k, v) in obj {
        match k.as_str() {
            "type" if v.as_str() == Some("object") => {}
            "type" => return Err(FormError::UnsupportedType { field: None }),
            "properties" | "required" => {}
            // Annotations of the schema as a whole: the form has its own message.
            "$schema" | "title" | "description" if v.is_string() => {}
            "$schema" => return Err(bad("$schema")),
            "title" => return Err(bad("title")),
            "description" => return Err(bad("description")),
            "$ref" => return Err(FormError::Ref { field: None }),
            _ => match annotation(k, v) {
                Some(Ok(())) => {}
                Some(Err(keyword)) => return Err(bad(keyword)),
                None => {
                    return Err(FormError::UnsupportedKeyword {
                        field: None,
                        keyword: k.clone(),
                    });
                }
            },
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
        use crate::form::field::FieldKind as K;
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
