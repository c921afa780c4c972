//! A form in the shape the session's negotiated revision defines.
//!
//! A form is written once, in the shape of the newest revision
//! (`2025-11-25` for a session): titled options as `oneOf`, multi-selects
//! (`type: "array"`), a `default` on every kind, a `$schema`. `2025-06-18`
//! defines none of these (its `schema.ts`: `StringSchema`, `NumberSchema`,
//! `BooleanSchema` and `EnumSchema` with `enum` + `enumNames`; `default` on
//! booleans only; answers are strings, numbers and booleans), and its clients
//! show such a field as a bare text box or reject their own answer. So for a
//! session below `2025-11-25`:
//!
//! - a titled single-select becomes `enum` + `enumNames`, an untitled one
//!   `enum` alone;
//! - `default` is dropped from every kind but booleans, and `$schema` from
//!   the form;
//! - a multi-select cannot be expressed: the call is refused before anything
//!   of its round is asked, with an error naming the field (never a value).
//!
//! Revisions before `2025-06-18` have no elicitation: their clients cannot
//! declare the capability, so a form never reaches this file for them (the
//! capability check refuses it first); one that declares it anyway gets the
//! `2025-06-18` shape. Sampling and roots requests go out unchanged.

use ::rmcp::ErrorData;
use ::rmcp::model::{
    ElicitRequestParams, ElicitationSchema, EnumSchema, LegacyEnumSchema,
    PrimitiveSchemaDefinition, ProtocolVersion, ServerRequest, SingleSelectEnumSchema,
};
use ::rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use super::error::failure;

/// The first revision that reads a form as this crate writes it.
const FORMS_AS_WRITTEN: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// The revision the session negotiated in its `initialize` (none before one).
pub(super) fn session_revision(cx: &RequestContext<RoleServer>) -> Option<ProtocolVersion> {
    cx.peer
        .peer_info()
        .map(|info| info.protocol_version.clone())
}

/// `request` in the shape `revision` defines, or, when its form cannot be
/// expressed in that revision, the error that ends the call (`-32603`,
/// `data.reason` `"form_needs_newer_revision"`, `data.field` the field).
pub(super) fn for_revision(
    mut request: ServerRequest,
    revision: Option<&ProtocolVersion>,
) -> Result<ServerRequest, ErrorData> {
    let Some(revision) = revision.filter(|revision| **revision < FORMS_AS_WRITTEN) else {
        return Ok(request);
    };
    if let ServerRequest::ElicitRequest(elicit) = &mut request
        && let ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } = &mut elicit.params
    {
        before_2025_11_25(requested_schema, revision)?;
    }
    Ok(request)
}

/// `schema` as `2025-06-18` defines it.
fn before_2025_11_25(
    schema: &mut ElicitationSchema,
    revision: &ProtocolVersion,
) -> Result<(), ErrorData> {
    schema.schema = None;
    for (name, field) in &mut schema.properties {
        *field = field_before_2025_11_25(name, field, revision)?;
    }
    Ok(())
}

/// One field as `2025-06-18` defines it.
fn field_before_2025_11_25(
    name: &str,
    field: &PrimitiveSchemaDefinition,
    revision: &ProtocolVersion,
) -> Result<PrimitiveSchemaDefinition, ErrorData> {
    use PrimitiveSchemaDefinition as Field;
    Ok(match field {
        Field::String(string) => {
            let mut string = string.clone();
            string.default = None;
            Field::String(string)
        }
        Field::Number(number) => {
            let mut number = number.clone();
            number.default = None;
            Field::Number(number)
        }
        Field::Integer(integer) => {
            let mut integer = integer.clone();
            integer.default = None;
            Field::Integer(integer)
        }
        Field::Boolean(boolean) => Field::Boolean(boolean.clone()),
        Field::Enum(EnumSchema::Single(SingleSelectEnumSchema::Untitled(choice))) => {
            let mut legacy = LegacyEnumSchema::new(choice.enum_.clone());
            legacy.title.clone_from(&choice.title);
            legacy.description.clone_from(&choice.description);
            Field::Enum(EnumSchema::Legacy(legacy))
        }
        Field::Enum(EnumSchema::Single(SingleSelectEnumSchema::Titled(choice))) => {
            let values = choice.one_of.iter().map(|option| option.const_.clone());
            let mut legacy = LegacyEnumSchema::new(values.collect());
            legacy.title.clone_from(&choice.title);
            legacy.description.clone_from(&choice.description);
            let titles = choice.one_of.iter().map(|option| option.title.clone());
            legacy.enum_names = Some(titles.collect());
            Field::Enum(EnumSchema::Legacy(legacy))
        }
        Field::Enum(EnumSchema::Legacy(choice)) => {
            let mut choice = choice.clone();
            choice.default = None;
            Field::Enum(EnumSchema::Legacy(choice))
        }
        Field::Enum(EnumSchema::Multi(_)) => {
            return Err(not_expressible(name, "a multi-select", revision));
        }
        _ => return Err(not_expressible(name, "a kind of field", revision)),
    })
}

/// The refusal of a form that `revision` cannot express: names the field
/// and its kind, never a value.
fn not_expressible(name: &str, kind: &str, revision: &ProtocolVersion) -> ErrorData {
    let mut error = failure(
        &format!(
            "the form's field \"{name}\" is {kind}, which protocol revision {revision} does not \
             define (it needs {FORMS_AS_WRITTEN}); nothing was asked and the call ends"
        ),
        "form_needs_newer_revision",
    );
    if let Some(Value::Object(data)) = error.data.as_mut() {
        data.insert("field".into(), Value::from(name));
    }
    error
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::indexing_slicing,
        reason = "test code: a panic is a failing test"
    )]

    use ::rmcp::model::ElicitRequest;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    fn form(schema: &Value) -> ServerRequest {
        ServerRequest::ElicitRequest(ElicitRequest::new(
            ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: "Plan?".to_owned(),
                requested_schema: ElicitationSchema::deserialize(schema).unwrap(),
            },
        ))
    }

    fn sent(request: &ServerRequest) -> Value {
        serde_json::to_value(request).unwrap()["params"]["requestedSchema"].clone()
    }

    fn schema() -> Value {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "agree": {"type": "boolean", "default": true},
                "day": {"type": "string", "format": "date", "default": "2026-01-01"},
                "legacy": {"type": "string", "enum": ["a"], "enumNames": ["A"], "default": "a"},
                "plan": {"type": "string", "title": "Plan", "default": "team",
                         "oneOf": [{"const": "free", "title": "Free"},
                                   {"const": "team", "title": "Team"}]},
                "ratio": {"type": "number", "minimum": 0.5, "default": 1.5},
                "seats": {"type": "integer", "maximum": 9, "default": 2},
                "size": {"type": "string", "enum": ["s", "m"], "default": "m"}
            },
            "required": ["plan"]
        })
    }

    #[test]
    fn a_2025_06_18_form_has_enum_names_and_defaults_on_booleans_only() {
        let revision = ProtocolVersion::V_2025_06_18;
        let request = for_revision(form(&schema()), Some(&revision)).unwrap();
        assert_eq!(
            sent(&request),
            json!({
                "type": "object",
                "properties": {
                    "agree": {"type": "boolean", "default": true},
                    "day": {"type": "string", "format": "date"},
                    "legacy": {"type": "string", "enum": ["a"], "enumNames": ["A"]},
                    "plan": {"type": "string", "title": "Plan", "enum": ["free", "team"],
                             "enumNames": ["Free", "Team"]},
                    "ratio": {"type": "number", "minimum": 0.5},
                    "seats": {"type": "integer", "maximum": 9},
                    "size": {"type": "string", "enum": ["s", "m"]}
                },
                "required": ["plan"]
            })
        );
    }

    #[test]
    fn a_2025_11_25_form_and_a_session_without_revision_are_untouched() {
        let request = form(&schema());
        let before = serde_json::to_value(&request).unwrap();
        for revision in [Some(&ProtocolVersion::V_2025_11_25), None] {
            let after = for_revision(request.clone(), revision).unwrap();
            assert_eq!(serde_json::to_value(&after).unwrap(), before);
        }
    }

    #[test]
    fn a_multi_select_is_refused_with_its_field_named() {
        let schema = json!({
            "type": "object",
            "properties": {
                "roles": {"type": "array", "items": {"type": "string", "enum": ["admin"]},
                          "default": ["admin"]}
            }
        });
        let revision = ProtocolVersion::V_2025_06_18;
        let error = for_revision(form(&schema), Some(&revision)).unwrap_err();
        assert_eq!(error.code.0, -32603);
        assert_eq!(
            error.message,
            "the form's field \"roles\" is a multi-select, which protocol revision 2025-06-18 \
             does not define (it needs 2025-11-25); nothing was asked and the call ends"
        );
        assert_eq!(
            error.data,
            Some(json!({"reason": "form_needs_newer_revision", "field": "roles"}))
        );
    }
}
