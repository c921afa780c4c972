//! The `requestedSchema` wire form: emit it from fields, parse it into fields.
//!
//! The untagged unions of the MCP schema are told apart by key presence
//! (`enum`/`enumNames`, `oneOf`, `items.enum`, `items.anyOf`), never by trying
//! shapes in turn. Every keyword outside the profile is refused by name.

use serde_json::{Map, Value};

use super::error::FormError;
use super::field::{Choice, Field, Format, Kind, exact_i64};

/// The object schema for `fields` (already compiled and sorted).
pub(super) fn emit(fields: &[Field]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for f in fields {
        properties.insert(f.name.clone(), emit_field(f));
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

fn emit_field(f: &Field) -> Value {
    let mut m = Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_owned(), v);
    };
    match &f.kind {
        Kind::Text {
            min_length,
            max_length,
            format,
        } => {
            put("type", "string".into());
            if let Some(n) = min_length {
                put("minLength", (*n).into());
            }
            if let Some(n) = max_length {
                put("maxLength", (*n).into());
            }
            if let Some(fmt) = format {
                put("format", fmt.as_str().into());
            }
        }
        Kind::Integer { minimum, maximum } => {
            put("type", "integer".into());
            if let Some(n) = minimum {
                put("minimum", (*n).into());
            }
            if let Some(n) = maximum {
                put("maximum", (*n).into());
            }
        }
        Kind::Number { minimum, maximum } => {
            put("type", "number".into());
            if let Some(n) = minimum {
                put("minimum", number_json(*n));
            }
            if let Some(n) = maximum {
                put("maximum", number_json(*n));
            }
        }
        Kind::Boolean => put("type", "boolean".into()),
        Kind::Choice { options } => {
            put("type", "string".into());
            if is_titled(options) {
                put("oneOf", titled_json(options));
            } else {
                put("enum", values_json(options));
            }
        }
        Kind::Multi {
            options,
            min_items,
            max_items,
        } => {
            put("type", "array".into());
            let mut items = Map::new();
            if is_titled(options) {
                items.insert("anyOf".into(), titled_json(options));
            } else {
                items.insert("type".into(), "string".into());
                items.insert("enum".into(), values_json(options));
            }
            put("items", Value::Object(items));
            if let Some(n) = min_items {
                put("minItems", (*n).into());
            }
            if let Some(n) = max_items {
                put("maxItems", (*n).into());
            }
        }
    }
    if let Some(t) = &f.title {
        put("title", t.as_str().into());
    }
    if let Some(d) = &f.description {
        put("description", d.as_str().into());
    }
    if let Some(d) = &f.default {
        put("default", d.clone());
    }
    Value::Object(m)
}

/// A whole `f64` within 2^53 as a JSON integer (`3`, not `3.0`), others as floats.
pub(crate) fn number_json(v: f64) -> Value {
    match exact_i64(v) {
        Some(i) => Value::from(i),
        None => serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
    }
}

fn is_titled(options: &[Choice]) -> bool {
    options.first().is_some_and(|c| c.title.is_some())
}

fn values_json(options: &[Choice]) -> Value {
    options
        .iter()
        .map(|c| Value::from(c.value.as_str()))
        .collect()
}

fn titled_json(options: &[Choice]) -> Value {
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

/// Parses a whole `requestedSchema` into (uncompiled) fields.
pub(super) fn parse(schema: &Value) -> Result<Vec<Field>, FormError> {
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

/// The shape a property takes, decided by key presence.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Text,
    Integer,
    Number,
    Boolean,
    UntitledChoice,
    LegacyChoice,
    TitledChoice,
    Multi,
}

impl Shape {
    fn allows(self, keyword: &str) -> bool {
        matches!(keyword, "type" | "title" | "description" | "default")
            || match self {
                Self::Text => matches!(keyword, "minLength" | "maxLength" | "format"),
                Self::Integer | Self::Number => matches!(keyword, "minimum" | "maximum"),
                Self::Boolean => false,
                Self::UntitledChoice => keyword == "enum",
                Self::LegacyChoice => matches!(keyword, "enum" | "enumNames"),
                Self::TitledChoice => keyword == "oneOf",
                Self::Multi => matches!(keyword, "items" | "minItems" | "maxItems"),
            }
    }
}

/// Parses one property schema (a field of the profile) under `name`.
pub(crate) fn parse_property(name: &str, prop: &Value) -> Result<Field, FormError> {
    let some = || Some(name.to_owned());
    let bad = |keyword: &'static str| FormError::BadKeywordValue {
        field: some(),
        keyword,
    };
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
    let shape = match ty {
        "string" if obj.contains_key("enumNames") => Shape::LegacyChoice,
        "string" if obj.contains_key("enum") => Shape::UntitledChoice,
        "string" if obj.contains_key("oneOf") => Shape::TitledChoice,
        "string" => Shape::Text,
        "integer" => Shape::Integer,
        "number" => Shape::Number,
        "boolean" => Shape::Boolean,
        "array" => Shape::Multi,
        "object" => {
            return Err(FormError::Nested {
                field: name.to_owned(),
            });
        }
        _ => return Err(FormError::UnsupportedType { field: some() }),
    };
    if let Some(k) = obj.keys().find(|k| !shape.allows(k)) {
        if shape == Shape::Multi && k == "enum" {
            return Err(FormError::ArrayNotMultiSelect {
                field: name.to_owned(),
            });
        }
        return Err(FormError::UnsupportedKeyword {
            field: some(),
            keyword: k.clone(),
        });
    }
    let mut field = match shape {
        Shape::Text => {
            let mut f = Field::string(name);
            if let Some(v) = obj.get("minLength") {
                f = f.min_length(count(v).ok_or_else(|| bad("minLength"))?);
            }
            if let Some(v) = obj.get("maxLength") {
                f = f.max_length(count(v).ok_or_else(|| bad("maxLength"))?);
            }
            if let Some(v) = obj.get("format") {
                let s = v.as_str().ok_or_else(|| bad("format"))?;
                let fmt = Format::from_name(s).ok_or_else(|| FormError::UnknownFormat {
                    field: name.to_owned(),
                    format: s.to_owned(),
                })?;
                f = f.format(fmt);
            }
            f
        }
        Shape::Integer => {
            let lo = obj
                .get("minimum")
                .map(|v| integer(v).ok_or_else(|| bad("minimum")))
                .transpose()?;
            let hi = obj
                .get("maximum")
                .map(|v| integer(v).ok_or_else(|| bad("maximum")))
                .transpose()?;
            Field::integer(name).set_int_bounds(lo, hi)
        }
        Shape::Number => {
            let mut f = Field::number(name);
            if let Some(v) = obj.get("minimum") {
                f = f.minimum(v.as_f64().ok_or_else(|| bad("minimum"))?);
            }
            if let Some(v) = obj.get("maximum") {
                f = f.maximum(v.as_f64().ok_or_else(|| bad("maximum"))?);
            }
            f
        }
        Shape::Boolean => Field::boolean(name),
        Shape::UntitledChoice => {
            Field::choice(name).options(strings(obj.get("enum")).ok_or_else(|| bad("enum"))?)
        }
        Shape::LegacyChoice => {
            let values = strings(obj.get("enum")).ok_or_else(|| bad("enum"))?;
            let titles = strings(obj.get("enumNames")).ok_or_else(|| bad("enumNames"))?;
            if values.len() != titles.len() {
                return Err(bad("enumNames"));
            }
            values
                .into_iter()
                .zip(titles)
                .fold(Field::choice(name), |f, (v, t)| f.titled_option(v, t))
        }
        Shape::TitledChoice => titled(name, obj.get("oneOf"), "oneOf")?
            .into_iter()
            .fold(Field::choice(name), |f, c| {
                f.titled_option(c.value, c.title.unwrap_or_default())
            }),
        Shape::Multi => {
            let mut f = multi_items(name, obj.get("items"))?;
            if let Some(v) = obj.get("minItems") {
                f = f.min_items(count(v).ok_or_else(|| bad("minItems"))?);
            }
            if let Some(v) = obj.get("maxItems") {
                f = f.max_items(count(v).ok_or_else(|| bad("maxItems"))?);
            }
            f
        }
    };
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

/// `items` of a multi-select: `{"type":"string","enum":[..]}` or `{"anyOf":[{const,title}..]}`.
fn multi_items(name: &str, items: Option<&Value>) -> Result<Field, FormError> {
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
    if items.contains_key("anyOf") {
        if type_ok == Some(false) {
            return Err(not_multi());
        }
        if let Some(k) = items
            .keys()
            .find(|k| !matches!(k.as_str(), "anyOf" | "type"))
        {
            return Err(FormError::UnsupportedKeyword {
                field: Some(name.to_owned()),
                keyword: format!("items.{k}"),
            });
        }
        let options = titled(name, items.get("anyOf"), "anyOf")?;
        return Ok(options.into_iter().fold(Field::multi_choice(name), |f, c| {
            f.titled_option(c.value, c.title.unwrap_or_default())
        }));
    }
    if items.contains_key("enum") && type_ok == Some(true) {
        if let Some(k) = items
            .keys()
            .find(|k| !matches!(k.as_str(), "enum" | "type"))
        {
            return Err(FormError::UnsupportedKeyword {
                field: Some(name.to_owned()),
                keyword: format!("items.{k}"),
            });
        }
        let values = strings(items.get("enum")).ok_or(FormError::BadKeywordValue {
            field: Some(name.to_owned()),
            keyword: "enum",
        })?;
        return Ok(Field::multi_choice(name).options(values));
    }
    Err(not_multi())
}

/// `[{"const": "..", "title": ".."}, ..]`, both keys required, nothing else.
fn titled(
    name: &str,
    list: Option<&Value>,
    keyword: &'static str,
) -> Result<Vec<Choice>, FormError> {
    let bad = || FormError::BadKeywordValue {
        field: Some(name.to_owned()),
        keyword,
    };
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
            Ok(Choice {
                value: value.to_owned(),
                title: Some(title.to_owned()),
            })
        })
        .collect()
}

fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    v?.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// A non-negative whole count (`2` or `2.0`).
fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .and_then(exact_i64)
            .and_then(|i| u64::try_from(i).ok())
    })
}

/// A whole bound for an integer field (`-2`, `2.0`; not `1.5`, not beyond `i64`).
fn integer(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| {
        if v.is_u64() {
            None
        } else {
            v.as_f64().and_then(exact_i64)
        }
    })
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
            err(json!({"type":"integer","minimum":1.5})),
            Some(FormError::BadKeywordValue {
                field: Some("x".into()),
                keyword: "minimum"
            })
        );
    }
}
