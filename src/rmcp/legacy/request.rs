//! An input request as the server-initiated request a `2025-11-25`
//! client expects, and whether the session can take it.

#![allow(
    deprecated,
    reason = "sampling and roots are deprecated by SEP-2577 but still served to old clients"
)]

use std::sync::atomic::{AtomicU64, Ordering};

use ::rmcp::ErrorData;
use ::rmcp::model::{ElicitRequestParams, InputRequest, ServerRequest};
use ::rmcp::service::{RequestContext, RoleServer};

use crate::rmcp::error::error_data;
use crate::wire::{ClientCapabilities, RpcError};

/// The session's capabilities, as `rmcp` knows them from its `initialize`
/// (none before one).
pub(crate) fn session_capabilities(cx: &RequestContext<RoleServer>) -> ClientCapabilities {
    cx.client_capabilities()
        .and_then(|caps| serde_json::to_value(caps).ok())
        .and_then(|caps| ClientCapabilities::from_json(&caps).ok())
        .unwrap_or_default()
}

/// Process-wide counter for URL-mode `elicitationId`s, which `2025-11-25`
/// requires and `2026-07-28` removed: unique within every session of this
/// instance, and carrying nothing.
static ELICITATION_IDS: AtomicU64 = AtomicU64::new(1);

/// An input request as the server-initiated request that carries it.
pub(super) fn server_request(
    request: &InputRequest,
    round: usize,
) -> Result<(&'static str, ServerRequest), ErrorData> {
    Ok(match request {
        InputRequest::Elicitation(elicit) => {
            let mut elicit = elicit.clone();
            if let ElicitRequestParams::UrlElicitationParams { elicitation_id, .. } =
                &mut elicit.params
                && elicitation_id.is_empty()
            {
                let n = ELICITATION_IDS.fetch_add(1, Ordering::Relaxed);
                *elicitation_id = format!("mrtr-{n}-{round}");
            }
            ("elicitation/create", ServerRequest::ElicitRequest(elicit))
        }
        InputRequest::CreateMessage(sampling) => (
            "sampling/createMessage",
            ServerRequest::CreateMessageRequest(sampling.clone()),
        ),
        InputRequest::ListRoots(roots) => {
            ("roots/list", ServerRequest::ListRootsRequest(roots.clone()))
        }
        _ => return Err(error_data(RpcError::internal_error())),
    })
}

/// What a client must have declared to receive `request`, as the
/// `2026-07-28` path words it, if `capabilities` lacks it (read as the
/// runtime reads them: `elicitation: {}` is form mode).
pub(super) fn missing_capabilities(
    request: &ServerRequest,
    capabilities: &ClientCapabilities,
) -> Option<ClientCapabilities> {
    let none = ClientCapabilities::none();
    let (required, allowed) = match request {
        ServerRequest::ElicitRequest(elicit) => match elicit.params {
            ElicitRequestParams::UrlElicitationParams { .. } => {
                (none.with_elicitation_url(), capabilities.elicitation_url())
            }
            _ => (
                none.with_elicitation_form(),
                capabilities.elicitation_form(),
            ),
        },
        ServerRequest::CreateMessageRequest(sampling) => {
            let mut required = none.with_sampling();
            let mut allowed = capabilities.sampling();
            if sampling.params.tools.is_some() || sampling.params.tool_choice.is_some() {
                required = required.with_sampling_tools();
                allowed &= capabilities.sampling_tools();
            }
            if sampling
                .params
                .include_context
                .as_ref()
                .and_then(|context| serde_json::to_value(context).ok())
                .is_some_and(|context| context != "none")
            {
                required = required.with_sampling_context();
                allowed &= capabilities.sampling_context();
            }
            (required, allowed)
        }
        _ => (none.with_roots(), capabilities.roots()),
    };
    (!allowed).then_some(required)
}
