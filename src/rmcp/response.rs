//! Ends a round: the handler's result as `rmcp`'s complete or
//! input-required response, forms' fields in their declared order.

use std::collections::BTreeMap;

use ::rmcp::ErrorData;
use ::rmcp::handler::server::tool::IntoCallToolResult;
use ::rmcp::model::{
    BooleanSchema, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    ElicitationSchema, GetPromptResponse, GetPromptResult, IntegerSchema, MetaObject, NumberSchema,
    PrimitiveSchemaDefinition, PromptMessage, ReadResourceResponse, ReadResourceResult, Role,
    StringSchema,
};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::error_data;
use crate::handoff::TaskStart;
use crate::runtime::{Round, RoundEnd, Stop};
#[cfg(feature = "tower")]
use crate::tower::order::order_hint_key;
use crate::wire::{ElicitRequest, InputRequest, InputRequiredResult, RpcError};

/// No `ScreenLayer` to apply a hint without feature `tower`: none.
#[cfg(not(feature = "tower"))]
fn order_hint_key() -> Option<&'static str> {
    None
}

/// What a `#[tool]` function built on a [`Round`] returns:
/// [`tool_response`]'s result.
pub type ToolResponse = Result<CallToolResponse, ErrorData>;

/// Ends a tool round: the handler's result (a `CallToolResult`, a `String`,
/// anything `rmcp` turns into a tool result), or the input-required result
/// with this round's asks. A declined or cancelled [`Round::require`] ends
/// with a plain, non-error text result saying so; a failed flow
/// ([`RoundEnd::Aborted`]) with a tool error (`isError: true`) saying why.
///
/// # Errors
///
/// As [`Round::complete`], as [`ErrorData`].
pub fn tool_response<T: IntoCallToolResult>(
    round: Round<'_>,
    result: Result<T, Stop>,
) -> ToolResponse {
    Ok(match round.complete(result).map_err(error_data)? {
        RoundEnd::Complete(result) => return result.into_call_tool_result(),
        RoundEnd::InputRequired(asked) => CallToolResponse::InputRequired(input_required(&asked)?),
        RoundEnd::Declined { .. } => text_result("The request was declined."),
        RoundEnd::Cancelled { .. } => text_result("The request was cancelled."),
        RoundEnd::Aborted(failure) => {
            CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(
                failure.to_string(),
            )]))
        }
        RoundEnd::Task { request_state } => TaskStart(request_state).into_response(),
    })
}

/// Ends a prompt round (see [`tool_response`]); a decline, a cancel or a
/// failed flow becomes a one-message prompt saying so.
///
/// # Errors
///
/// As [`Round::complete`], as [`ErrorData`].
pub fn prompt_response(
    round: Round<'_>,
    result: Result<GetPromptResult, Stop>,
) -> Result<GetPromptResponse, ErrorData> {
    let said = |text: &str| {
        GetPromptResponse::Complete(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            text,
        )]))
    };
    Ok(match round.complete(result).map_err(error_data)? {
        RoundEnd::Complete(result) => GetPromptResponse::Complete(result),
        RoundEnd::InputRequired(asked) => GetPromptResponse::InputRequired(input_required(&asked)?),
        RoundEnd::Declined { .. } => said("The request was declined."),
        RoundEnd::Cancelled { .. } => said("The request was cancelled."),
        RoundEnd::Aborted(failure) => said(&failure.to_string()),
        RoundEnd::Task { .. } => return Err(error_data(RpcError::internal_error())),
    })
}

/// Ends a resource round (see [`tool_response`]); a decline, a cancel or a
/// failed flow reads as an empty resource.
///
/// # Errors
///
/// As [`Round::complete`], as [`ErrorData`].
pub fn resource_response(
    round: Round<'_>,
    result: Result<ReadResourceResult, Stop>,
) -> Result<ReadResourceResponse, ErrorData> {
    Ok(match round.complete(result).map_err(error_data)? {
        RoundEnd::Complete(result) => ReadResourceResponse::Complete(result),
        RoundEnd::InputRequired(asked) => {
            ReadResourceResponse::InputRequired(input_required(&asked)?)
        }
        RoundEnd::Declined { .. } | RoundEnd::Cancelled { .. } | RoundEnd::Aborted(_) => {
            ReadResourceResponse::Complete(ReadResourceResult::new(Vec::new()))
        }
        RoundEnd::Task { .. } => return Err(error_data(RpcError::internal_error())),
    })
}

/// Our [`InputRequiredResult`] as `rmcp`'s, a form's fields in the order
/// they were declared.
///
/// Each ask is built as `rmcp`'s typed request directly (no JSON text in
/// between); only a form's `requestedSchema` and a sampling request's
/// params are read into `rmcp`'s types from their `Value`s. `rmcp` 3.11
/// writes every embedded request's params through a `serde_json::Value`,
/// which sorts their keys: a form whose declared order is not alphabetical
/// leaves that order in the result's `_meta`, for
/// `mrtr_guard::tower::ScreenLayer` to put back.
///
/// `rmcp` 3.11's type serializes a URL-mode ask with `"elicitationId": ""`,
/// a field MCP 2026-07-28 removed (its schema still admits extra members);
/// this crate never sets one.
///
/// # Errors
///
/// An internal error if `rmcp` cannot represent it (it represents every
/// request this crate builds).
pub fn input_required(
    result: &InputRequiredResult,
) -> Result<::rmcp::model::InputRequiredResult, ErrorData> {
    let asks = result
        .input_requests()
        .map(|asks| {
            asks.iter()
                .map(|(key, ask)| Ok((key.clone(), rmcp_request(ask)?)))
                .collect::<Result<_, ErrorData>>()
        })
        .transpose()?;
    let state = result.request_state().map(str::to_owned);
    let converted = ::rmcp::model::InputRequiredResult::new(asks, state);
    Ok(match property_orders(result) {
        Some(orders) => converted.with_meta(MetaObject(orders)),
        None => converted,
    })
}

/// One ask as `rmcp`'s typed request.
fn rmcp_request(ask: &InputRequest) -> Result<::rmcp::model::InputRequest, ErrorData> {
    let unrepresentable = |_| error_data(RpcError::internal_error());
    Ok(match ask {
        InputRequest::Elicitation(ElicitRequest::Form {
            message,
            requested_schema,
            ..
        }) => {
            let schema = elicitation_schema(requested_schema).map_err(unrepresentable)?;
            elicitation(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: message.clone(),
                requested_schema: schema,
            })
        }
        InputRequest::Elicitation(ElicitRequest::Url { message, url }) => {
            elicitation(ElicitRequestParams::UrlElicitationParams {
                meta: None,
                message: message.clone(),
                url: url.clone(),
                elicitation_id: String::new(),
            })
        }
        InputRequest::Sampling(sampling) => sampling_request(sampling.params())?,
        InputRequest::Roots(_) => roots_request(),
    })
}

/// A `sampling/createMessage` ask, from its params.
#[expect(
    deprecated,
    reason = "sampling is deprecated (SEP-2577), still functional"
)]
fn sampling_request(params: &Map<String, Value>) -> Result<::rmcp::model::InputRequest, ErrorData> {
    use ::rmcp::model::{CreateMessageRequest, CreateMessageRequestParams};
    let params = CreateMessageRequestParams::deserialize(params)
        .map_err(|_| error_data(RpcError::internal_error()))?;
    Ok(::rmcp::model::InputRequest::CreateMessage(
        CreateMessageRequest::new(params),
    ))
}

/// A `roots/list` ask.
#[expect(
    deprecated,
    reason = "roots is deprecated (SEP-2577), still functional"
)]
fn roots_request() -> ::rmcp::model::InputRequest {
    use ::rmcp::model::{Extensions, ListRootsRequest, ListRootsRequestMethod};
    ::rmcp::model::InputRequest::ListRoots(ListRootsRequest {
        method: ListRootsRequestMethod,
        extensions: Extensions::default(),
    })
}

/// A form's `requestedSchema` as `rmcp`'s type. Each property is read as
/// the kind its `type` names, not through `rmcp`'s untagged
/// `PrimitiveSchemaDefinition`, which buffers it and tries every kind in
/// turn (enumerations first); any other schema as `rmcp` reads it.
fn elicitation_schema(schema: &Value) -> Result<ElicitationSchema, serde_json::Error> {
    let object = schema.as_object();
    let plain = object.is_some_and(|object| {
        object
            .keys()
            .all(|key| matches!(key.as_str(), "type" | "properties" | "required"))
    });
    let properties = object.and_then(|object| object.get("properties")?.as_object());
    let (true, Some(properties)) = (plain, properties) else {
        return ElicitationSchema::deserialize(schema);
    };
    let mut typed = BTreeMap::new();
    for (name, property) in properties {
        typed.insert(name.clone(), primitive_schema(property)?);
    }
    let mut converted = ElicitationSchema::new(typed);
    converted.required = schema
        .get("required")
        .map(Vec::<String>::deserialize)
        .transpose()?;
    Ok(converted)
}

/// One property of a form's schema as `rmcp`'s type (see
/// [`elicitation_schema`]).
fn primitive_schema(property: &Value) -> Result<PrimitiveSchemaDefinition, serde_json::Error> {
    let enumerated = property.get("enum").is_some() || property.get("oneOf").is_some();
    Ok(match property.get("type").and_then(Value::as_str) {
        Some("string") if !enumerated => {
            PrimitiveSchemaDefinition::String(StringSchema::deserialize(property)?)
        }
        Some("number") if !enumerated => {
            PrimitiveSchemaDefinition::Number(NumberSchema::deserialize(property)?)
        }
        Some("integer") if !enumerated => {
            PrimitiveSchemaDefinition::Integer(IntegerSchema::deserialize(property)?)
        }
        Some("boolean") => {
            PrimitiveSchemaDefinition::Boolean(BooleanSchema::deserialize(property)?)
        }
        _ => PrimitiveSchemaDefinition::deserialize(property)?,
    })
}

fn elicitation(params: ElicitRequestParams) -> ::rmcp::model::InputRequest {
    ::rmcp::model::InputRequest::Elicitation(::rmcp::model::ElicitRequest::new(params))
}

/// `{PROPERTY_ORDER_META: {askKey: [names]}}` for the forms whose declared
/// order is not alphabetical, if any: `rmcp` writes the asks through a
/// `serde_json::Value`, and `mrtr_guard::tower::ScreenLayer` puts the
/// properties back in this order and removes the hint.
fn property_orders(result: &InputRequiredResult) -> Option<Map<String, Value>> {
    let orders: Map<String, Value> = result
        .input_requests()?
        .iter()
        .filter_map(|(key, ask)| match ask {
            InputRequest::Elicitation(ElicitRequest::Form { property_order, .. })
                if !property_order.is_sorted() =>
            {
                Some((key.clone(), Value::from(property_order.clone())))
            }
            _ => None,
        })
        .collect();
    if orders.is_empty() {
        return None;
    }
    let mut meta = Map::new();
    meta.insert(order_hint_key()?.to_owned(), Value::Object(orders));
    Some(meta)
}

fn text_result(text: &str) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(text)]))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::form::{Field, Form};

    /// Every kind a form writes reads into `rmcp`'s type exactly as
    /// `rmcp`'s own (untagged) reading does.
    #[test]
    fn a_form_schema_reads_as_rmcp_reads_it() {
        let form = Form::builder("All kinds")
            .field(Field::string("name").required().min_length(1).max_length(9))
            .field(Field::email("email").title("E-mail").description("where"))
            .field(Field::date("day").default("2026-01-01"))
            .field(Field::integer("size").minimum(1).maximum(99).required())
            .field(Field::number("ratio").minimum(0.5))
            .field(Field::boolean("agree").default(true))
            .field(Field::choice("plan").option("free").option("team"))
            .field(
                Field::choice("tier")
                    .titled_option("a", "A")
                    .titled_option("b", "B"),
            )
            .field(
                Field::multi_choice("roles")
                    .option("admin")
                    .option("member")
                    .min_items(1),
            )
            .field(
                Field::multi_choice("tags")
                    .titled_option("x", "X")
                    .max_items(2),
            )
            .build()
            .unwrap();
        let schema = form.requested_schema();
        let ours = elicitation_schema(&schema).unwrap();
        let theirs = ElicitationSchema::deserialize(&schema).unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(
            serde_json::to_value(&ours).unwrap(),
            serde_json::to_value(&theirs).unwrap()
        );
        // Not a form's schema: read as rmcp reads it, refusals included.
        let titled = json!({"type": "object", "title": "T", "properties": {}});
        assert_eq!(
            elicitation_schema(&titled).unwrap(),
            ElicitationSchema::deserialize(&titled).unwrap()
        );
        let bad =
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": "x"}}});
        assert!(elicitation_schema(&bad).is_err());
        assert!(ElicitationSchema::deserialize(&bad).is_err());
    }
}
