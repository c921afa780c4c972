//! Ends a round: the handler's result as `rmcp`'s complete or
//! input-required response, forms' fields in their declared order.

use ::rmcp::ErrorData;
use ::rmcp::handler::server::tool::IntoCallToolResult;
use ::rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, GetPromptResponse, GetPromptResult, MetaObject,
    PromptMessage, ReadResourceResponse, ReadResourceResult, Role,
};
use serde_json::{Map, Value};

use super::error::error_data;
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
    })
}

/// Our [`InputRequiredResult`] as `rmcp`'s, a form's fields in the order
/// they were declared.
///
/// The conversion goes through JSON text, never a `serde_json::Value`: a
/// `Value` sorts object keys (this crate leaves serde_json's
/// `preserve_order` off, since that feature would change every map in the
/// program, and the canonical JSON the state binding digests). `rmcp`'s
/// `ElicitationSchema` keeps its properties in a `BTreeMap`, but records the
/// order its JSON text listed them in (`property_order`) and writes them
/// back in that order.
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
    let converted: ::rmcp::model::InputRequiredResult = serde_json::to_string(result)
        .and_then(|text| serde_json::from_str(&text))
        .map_err(|_| error_data(RpcError::internal_error()))?;
    Ok(match property_orders(result) {
        Some(orders) => converted.with_meta(MetaObject(orders)),
        None => converted,
    })
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
