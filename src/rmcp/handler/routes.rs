//! [`McpHandler`]'s [`ServerHandler`]: which path each request takes. The
//! three methods that run rounds serve a legacy session's calls round after
//! round; a `2026-07-28` `tools/call` and `tasks/*` go to the task host
//! where there is one; every other method, and every other call, goes to
//! the wrapped handler.

#![allow(
    deprecated,
    reason = "logging and the legacy subscriptions are deprecated by SEP-2577, but the \
              wrapped handler may still serve them"
)]

use std::borrow::Cow;
use std::future::Future;

use ::rmcp::ErrorData;
use ::rmcp::ServerHandler;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelledNotificationParam,
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
    DiscoverResult, ErrorCode, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, SetLevelRequestParams,
    SubscribeRequestParams, SubscriptionFilter, TASKS_EXTENSION_ID, Tool, UnsubscribeRequestParams,
    UpdateTaskParams,
};
use ::rmcp::service::{
    MaybeSendFuture, NotificationContext, RequestContext, RoleServer, SubscriptionContext,
};

use super::wrapper::McpHandler;
use crate::rmcp::error::custom_request_error;
use crate::rmcp::legacy::from_legacy_session;

impl<H: ServerHandler> ServerHandler for McpHandler<H> {
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if from_legacy_session(&context) {
            #[cfg(feature = "server")]
            let context = {
                let mut context = context;
                if let Some(tasks) = self.tasks() {
                    tasks.legacy_call(&request, &mut context)?;
                }
                context
            };
            // Boxed, as every path below: rmcp moves the call's future
            // whole when it spawns it, so each path's own state costs every
            // call a copy of it unless it lives on the heap.
            Box::pin(self.legacy().rounds(request, context, |params, cx| {
                self.inner().call_tool(params, cx)
            }))
            .await
        } else {
            #[cfg(feature = "server")]
            if let Some(tasks) = self.tasks() {
                tasks.sweep_from(self.shared_inner(), &context);
                return Box::pin(tasks.call_tool(self.shared_inner(), request, context)).await;
            }
            Box::pin(self.inner().call_tool(request, context)).await
        }
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if from_legacy_session(&context) {
            Box::pin(self.legacy().rounds(request, context, |params, cx| {
                self.inner().get_prompt(params, cx)
            }))
            .await
        } else {
            Box::pin(self.inner().get_prompt(request, context)).await
        }
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if from_legacy_session(&context) {
            Box::pin(self.legacy().rounds(request, context, |params, cx| {
                self.inner().read_resource(params, cx)
            }))
            .await
        } else {
            Box::pin(self.inner().read_resource(request, context)).await
        }
    }

    fn ping(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner().ping(context)
    }

    fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<InitializeResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner().initialize(request, context)
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        self.inner().negotiate_initialize(request)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner().supported_protocol_versions()
    }

    fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<DiscoverResult, ErrorData>> + MaybeSendFuture + '_ {
        let tasks = self.serves_tasks();
        let discovered = self.inner().discover(context);
        async move {
            let mut discovered = discovered.await?;
            if tasks {
                discovered.capabilities = with_tasks(discovered.capabilities);
            }
            Ok(discovered)
        }
    }

    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CompleteResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner().complete(request, context)
    }

    fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner().set_level(request, context)
    }

    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListPromptsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner().list_prompts(request, context)
    }

    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourcesResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner().list_resources(request, context)
    }

    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListResourceTemplatesResult, ErrorData>> + MaybeSendFuture + '_
    {
        self.inner().list_resource_templates(request, context)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.inner().accepted_subscription_filter(requested)
    }

    fn listen(
        &self,
        context: SubscriptionContext,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner().listen(context)
    }

    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner().subscribe(request, context)
    }

    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<(), ErrorData>> + MaybeSendFuture + '_ {
        self.inner().unsubscribe(request, context)
    }

    fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner().list_tools(request, context)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner().get_tool(name)
    }

    /// The wrapped handler's answer, unless it is `-32601` (`rmcp`'s
    /// default, which echoes the method name): then
    /// [`custom_request_error`]'s fixed one.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        match self
            .inner()
            .on_custom_request(request.clone(), context)
            .await
        {
            Err(error) if error.code == ErrorCode::METHOD_NOT_FOUND => {
                Err(custom_request_error(&request))
            }
            answer => answer,
        }
    }

    fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner().on_cancelled(notification, context)
    }

    fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner().on_progress(notification, context)
    }

    fn on_initialized(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner().on_initialized(context)
    }

    fn on_roots_list_changed(
        &self,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner().on_roots_list_changed(context)
    }

    fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.inner().on_custom_notification(notification, context)
    }

    fn get_info(&self) -> ServerConfig {
        let mut info = self.inner().get_info();
        if self.serves_tasks() {
            info.capabilities = with_tasks(info.capabilities);
        }
        info
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        #[cfg(feature = "server")]
        if let Some(tasks) = self.tasks() {
            tasks.sweep_from(self.shared_inner(), &context);
            return tasks.get(self.shared_inner(), request, &context).await;
        }
        self.inner().get_task(request, context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        #[cfg(feature = "server")]
        if let Some(tasks) = self.tasks() {
            tasks.sweep_from(self.shared_inner(), &context);
            return tasks.update(self.shared_inner(), request, &context).await;
        }
        self.inner().update_task(request, context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        #[cfg(feature = "server")]
        if let Some(tasks) = self.tasks() {
            tasks.sweep_from(self.shared_inner(), &context);
            return tasks.cancel(request, &context).await;
        }
        self.inner().cancel_task(request, context).await
    }

    fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListSkillsResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner().list_skills(request, context)
    }

    fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<GetSkillResult, ErrorData>> + MaybeSendFuture + '_ {
        self.inner().get_skill(request, context)
    }

    fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ReadResourceDirectoryResult, ErrorData>> + MaybeSendFuture + '_
    {
        self.inner().read_resource_directory(request, context)
    }
}

impl<H> McpHandler<H> {
    /// Whether tasks are served here: the extension is then advertised.
    fn serves_tasks(&self) -> bool {
        #[cfg(feature = "server")]
        return self
            .tasks()
            .is_some_and(|tasks| !tasks.settings.tools.is_empty());
        #[cfg(not(feature = "server"))]
        false
    }
}

/// `capabilities` with the Tasks extension advertised.
fn with_tasks(capabilities: ServerCapabilities) -> ServerCapabilities {
    let mut capabilities = capabilities;
    capabilities
        .extensions
        .get_or_insert_with(Default::default)
        .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
    capabilities
}
