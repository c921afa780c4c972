//! A `tools/call` through the task host: the `-32021` gate for a tool that
//! runs only as a task, the offer of a task to the tool's round, the task
//! created when the round takes it, and a final round's answer remembered
//! for a retry of that same round.

use std::sync::Arc;

use ::rmcp::ErrorData;
use ::rmcp::ServerHandler;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, CreateTaskResult,
    InputResponses,
};
use ::rmcp::service::{RequestContext, RoleServer};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::fleet;
use super::host::{ALL_BYTES, PRINCIPAL_BYTES, TaskHost, duration_ms, store_failed};
use super::run::spawn;
use super::settings::{Created, TaskSupport};
use super::view::task;
use crate::handoff::{RawArguments, ReplayNoted, TaskOffer, TaskStart};
use crate::metrics;
use crate::rmcp::error::error_data;
use crate::runtime::TaskPhase;
use crate::state::{open_record, seal_record};
use crate::task::millis::millis;
use crate::task::record::{Status, TaskBody, TaskCall, TaskHead, TaskRecord};
use crate::task::{Answer, CREATED_VERSION, NewTask, TaskId, TaskStoreError};
use crate::wire::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION, Method, RpcError};

/// The most bytes of a final round's answer that are remembered: a larger
/// answer is not, and a retry of its round gets the refusal of a used state.
pub const MAX_REMEMBERED_ANSWER: usize = 64 * 1024;

/// The record kind remembered answers are sealed as.
const ANSWER: &str = "answer";

/// A final round's answer, as remembered.
#[derive(Serialize, Deserialize)]
enum Remembered {
    Complete(CallToolResult),
    Task(CreateTaskResult),
}

impl TaskHost {
    /// Serves a `tools/call` of a `2026-07-28` request.
    pub(crate) async fn call_tool<H: ServerHandler>(
        self: &Arc<Self>,
        inner: &Arc<H>,
        params: CallToolRequestParams,
        mut cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let support = self.settings.tools.get(params.name.as_ref()).copied();
        // The client's capabilities are read only for a task tool.
        let declared = || {
            cx.meta
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.supports_tasks())
        };
        let phase = match support {
            None => TaskPhase::NotDeclared,
            Some(support) => match (support, declared()) {
                (TaskSupport::Required, false) => {
                    return Err(ErrorData::missing_required_client_capability(
                        ClientCapabilities::builder().enable_tasks().build(),
                    ));
                }
                (_, true) => TaskPhase::Offered,
                (_, false) => TaskPhase::Synchronous,
            },
        };
        // A replay is noted, and an answer remembered, only under a guard.
        let noted = self.guarded.then(ReplayNoted::default);
        if let Some(parts) = cx.extensions.get_mut::<http::request::Parts>() {
            parts.extensions.insert(TaskOffer::Phase(phase));
            if let Some(noted) = &noted {
                parts.extensions.insert(noted.clone());
            }
        }
        let state = noted.as_ref().and(params.request_state.clone());
        let caller = state.as_ref().and(self.caller(&cx)).map(str::to_owned);
        // What creating the task needs, kept only where a task is offered.
        let offered = (phase == TaskPhase::Offered).then(|| (params.clone(), cx.clone()));
        let response = match inner.call_tool(params, cx).await {
            Err(error) if noted.as_ref().is_some_and(ReplayNoted::is_noted) => {
                return match self.recall(state.as_deref()).await {
                    Some(remembered) => Ok(remembered),
                    None => Err(error),
                };
            }
            response => response?,
        };
        let response = match (offered, TaskStart::from_response(&response)) {
            (Some((params, cx)), Some(start)) => {
                CallToolResponse::Task(self.start(inner, &params, &cx, start).await?)
            }
            _ => response,
        };
        self.remember(state.as_deref(), caller.as_deref(), &response)
            .await;
        Ok(response)
    }

    /// Prepares a `tools/call` of a `2025-11-25` (or older) session, which
    /// never runs as a task: a tool that runs only as a task is refused as
    /// that revision says (`-32601`); any other runs to its end in the call.
    pub(crate) fn legacy_call(
        &self,
        params: &CallToolRequestParams,
        cx: &mut RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let phase = match self.settings.tools.get(params.name.as_ref()) {
            None => TaskPhase::NotDeclared,
            Some(TaskSupport::Required) => {
                return Err(ErrorData::new(
                    ::rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                    "this tool runs only as a task, which this session's protocol revision \
                     cannot call",
                    None,
                ));
            }
            Some(_) => TaskPhase::Synchronous,
        };
        if let Some(parts) = cx.extensions.get_mut::<http::request::Parts>() {
            parts.extensions.insert(TaskOffer::Phase(phase));
        }
        Ok(())
    }

    /// Creates the task the round handed over (durably: the response goes
    /// out after the store has it), and starts its first run.
    async fn start<H: ServerHandler>(
        self: &Arc<Self>,
        inner: &Arc<H>,
        params: &CallToolRequestParams,
        cx: &RequestContext<RoleServer>,
        TaskStart(request_state): TaskStart,
    ) -> Result<CreateTaskResult, ErrorData> {
        // An instance that disagrees with the others sharing the store
        // serves no task (`McpServerBuilder::check_fleet`, logged).
        if self.fleet_agreed.get().is_none() {
            fleet::agree(&*self.settings.store, self.flow().codec())
                .await
                .map_err(|refused| {
                    error_data(RpcError::internal_error_because(refused.message()))
                })?;
            let _ = self.fleet_agreed.set(());
        }
        let id = TaskId::random().ok_or_else(|| error_data(RpcError::internal_error()))?;
        let now = self.now();
        let owner = self.caller(cx).map(str::to_owned);
        // The arguments the round's state is bound to: those the screen
        // kept, else rmcp's.
        let arguments = match cx
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| RawArguments::of(parts, Method::ToolsCall, &params.name))
        {
            Some(raw) => raw.cloned(),
            None => params.arguments.clone(),
        };
        let call = TaskCall {
            name: params.name.to_string(),
            arguments,
            meta: kept_meta(&cx.meta.0.0),
        };
        let call_bytes = serde_json::to_vec(&call).map_or(usize::MAX, |bytes| bytes.len());
        if call_bytes > self.settings.max_call_bytes {
            log_call_too_large(call_bytes, self.settings.max_call_bytes);
            return Err(error_data(RpcError::invalid_params(
                "the call's arguments are too large for this server to keep as a task",
            )));
        }
        let mut record = TaskRecord {
            head: TaskHead {
                owner,
                status: Status::Working,
                status_message: None,
                created_at: millis(now),
                updated_at: millis(now),
                ttl_ms: u64::try_from(duration_ms(self.settings.ttl)).unwrap_or(u64::MAX),
                poll_interval_ms: u64::try_from(duration_ms(self.settings.poll_interval))
                    .unwrap_or(u64::MAX),
                lease_until: None,
                lease_run: None,
                resumes: 0,
                answer_by: None,
                outstanding: Default::default(),
                result: None,
                held_result: None,
                error: None,
            },
            body: TaskBody {
                call,
                request_state: Some(request_state),
                ..TaskBody::default()
            },
        };
        self.lease(&mut record.head, now)
            .ok_or_else(|| error_data(RpcError::internal_error()))?;
        let sealed = self.seal(&id, CREATED_VERSION, &record)?;
        let created = self
            .settings
            .store
            .create(
                NewTask {
                    id: &id,
                    owner: self.owner_key(record.head.owner.as_deref()),
                    head: &sealed.head,
                    body: &sealed.body,
                    expires_at: record.head.expires_at(),
                    due: record.head.due(),
                    limits: self.settings.limits,
                },
                now,
            )
            .await;
        if let Err(error) = created {
            return Err(self.refused(cx, error));
        }
        metrics::task_status(record.head.status.as_str());
        if let Some(hook) = &self.settings.on_created {
            (hook.0)(Created {
                tool: record.body.call.name.clone(),
                task_id: id.to_string(),
                principal: record.head.owner.clone(),
            });
        }
        spawn(
            Arc::clone(self),
            Arc::clone(inner),
            id,
            &record,
            InputResponses::new(),
            cx,
        );
        Ok(CreateTaskResult::new(task(&id, &record.head)))
    }

    /// What a client is told when the store refused a task: at a cap or a
    /// budget, HTTP 429 with `Retry-After`; else the store failed.
    fn refused(&self, cx: &RequestContext<RoleServer>, error: TaskStoreError) -> ErrorData {
        let refusal = match error {
            TaskStoreError::PrincipalFull => {
                RpcError::tasks_at_capacity("tasks for this principal")
            }
            TaskStoreError::Full => RpcError::tasks_at_capacity("tasks"),
            TaskStoreError::PrincipalOverBudget => RpcError::tasks_over_budget(PRINCIPAL_BYTES),
            TaskStoreError::OverBudget => RpcError::tasks_over_budget(ALL_BYTES),
            error => return store_failed(error),
        };
        self.at_capacity(cx, refusal)
    }

    /// Remembers the answer of a final round (one that carried a state and
    /// completed or created a task), under a replay guard, within
    /// [`MAX_REMEMBERED_ANSWER`]. A store failure is only logged: the call
    /// has been answered already.
    async fn remember(
        &self,
        state: Option<&str>,
        owner: Option<&str>,
        response: &CallToolResponse,
    ) {
        let (Some(state), true) = (state, self.guarded) else {
            return;
        };
        let remembered = match response {
            CallToolResponse::Complete(result) => Remembered::Complete(result.clone()),
            CallToolResponse::Task(created) => Remembered::Task(created.clone()),
            _ => return,
        };
        let key = answer_key(state);
        let Ok(plain) = serde_json::to_vec(&remembered) else {
            return;
        };
        if plain.len() > MAX_REMEMBERED_ANSWER {
            return;
        }
        let Some(sealed) = seal_record(self.keys(), ANSWER, &key, &plain) else {
            return;
        };
        let now = self.now();
        let answer = Answer {
            key: &key,
            owner: self.owner_key(owner),
            answer: &sealed,
            expires_at: now.saturating_add(self.round_ttl),
            limits: self.settings.limits,
        };
        match self.settings.store.remember(answer, now).await {
            // Past a budget, a retry of the round gets the refusal of a
            // used state, as past `MAX_REMEMBERED_ANSWER`.
            Ok(()) | Err(TaskStoreError::PrincipalOverBudget | TaskStoreError::OverBudget) => {}
            Err(error) => {
                let _ = store_failed(error);
            }
        }
    }

    /// The answer remembered for a retry of a final round whose state
    /// opened for this caller and call but was already used.
    async fn recall(&self, state: Option<&str>) -> Option<CallToolResponse> {
        let key = answer_key(state?);
        let sealed = self.settings.store.recall(&key, self.now()).await.ok()??;
        let plain = open_record(self.keys(), ANSWER, &key, &sealed)?;
        Some(match serde_json::from_slice(&plain).ok()? {
            Remembered::Complete(result) => CallToolResponse::Complete(result),
            Remembered::Task(created) => CallToolResponse::Task(created),
        })
    }
}

/// The members of a call's `_meta` a task keeps for its runs: the protocol
/// version and the client's capabilities, which the rounds read again;
/// nothing else the client put there.
fn kept_meta(
    meta: &serde_json::Map<String, serde_json::Value>,
) -> serde_json::Map<String, serde_json::Value> {
    [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES]
        .into_iter()
        .filter_map(|name| Some((name.to_owned(), meta.get(name)?.clone())))
        .collect()
}

#[cfg(feature = "tracing")]
fn log_call_too_large(bytes: usize, max: usize) {
    tracing::warn!(
        name: "task_call_too_large", target: "mrtr_guard::rmcp",
        bytes, max,
        "a task was not created: its call (arguments and kept _meta) is over the budget \
         (McpServerBuilder::task_call_bytes)"
    );
}

#[cfg(not(feature = "tracing"))]
fn log_call_too_large(_bytes: usize, _max: usize) {}

/// What a final round's answer is remembered under: the digest of the
/// state it consumed (a state opens for one caller and one call only).
fn answer_key(state: &str) -> [u8; 32] {
    Sha256::digest(state.as_bytes()).into()
}
