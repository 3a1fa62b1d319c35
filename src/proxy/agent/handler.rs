//! The proxy as the agent's MCP server: one [`AgentSession`] handler per MCP session the
//! agent opens. Every request is forwarded to the real server (`session.rs`, `server/forward.rs`);
//! calls and list calls are recorded on the way.

// Logging, sampling, roots and resources/subscribe are deprecated by the 2026-07-28
// protocol, but agents on earlier versions use them, so the proxy forwards them.
#![allow(deprecated)]

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, ClientNotification, ClientRequest,
    CompleteRequest, CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest,
    CustomResult, GetPromptRequest, GetPromptRequestParams, GetPromptResponse,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, PingRequest, ProtocolVersion,
    ReadResourceRequest, ReadResourceRequestParams, ReadResourceResponse,
    RootsListChangedNotification, ServerConfig, ServerResult, SetLevelRequest,
    SetLevelRequestParams, SubscribeRequest, SubscribeRequestParams, UnsubscribeRequest,
    UnsubscribeRequestParams,
};
use rmcp::model::{
    CancelTaskParams, CancelTaskRequest, GetTaskParams, GetTaskRequest, GetTaskResult,
    UpdateTaskParams, UpdateTaskRequest,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::listing::Listing;
use super::session::{AgentSession, injected, with_origin};
use crate::plumbing::lock::lock;
use crate::proxy::inputs::ToolRewrite;
use crate::proxy::record::{call_outcome, json, list_outcome};
use crate::proxy::server::{Asking, Startup, connect, result_as};
use crate::trace::CallKind;

impl ServerHandler for AgentSession {
    fn get_info(&self) -> ServerConfig {
        match self.upstream.get() {
            Some(connection) => connection.agent_init(),
            None => ServerConfig::default(),
        }
    }

    /// Only the version spoken with the agent, once it is known (see `server/versions.rs`):
    /// rmcp answers the agent's `initialize` with it.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        match self.upstream.get() {
            Some(connection) => Cow::Owned(vec![connection.agent_version.clone()]),
            None => Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS),
        }
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        let shared = &self.shared;
        // A conversation's later sessions take over the server of the first.
        let mut one = match shared.options.one_server {
            true => Some(shared.shared_connection.lock().await),
            false => None,
        };
        if let Some(connection) = one.as_deref().and_then(Option::as_ref) {
            connection.rebind(context.peer.clone());
            let connection = connection.clone();
            let init = connection.agent_init();
            let _ = self.upstream.set(connection);
            return Ok(init);
        }
        let connection = self
            .upstream
            .get_or_try_init(|| async {
                connect(
                    &shared.server,
                    &shared.upstream,
                    &shared.log,
                    request,
                    context.peer.clone(),
                    Asking {
                        server: shared.server.clone(),
                        recorder: shared.recorder.clone(),
                        user: shared.options.user.clone(),
                        model: shared.options.model.clone(),
                        sampler: shared.options.sampler.clone(),
                        faults: shared.options.faults.clone(),
                        roots: shared.options.roots.clone(),
                    },
                    Startup {
                        timeout: shared.options.startup_timeout,
                        version: shared.options.protocol_version.clone(),
                    },
                )
                .await
                .map(Arc::new)
            })
            .await;
        match connection {
            Ok(connection) => {
                shared.register(connection.clone());
                if let Some(one) = one.as_deref_mut() {
                    *one = Some(connection.clone());
                }
                Ok(connection.agent_init())
            }
            Err(error) => {
                shared.note_failure(error.failure(&shared.server));
                Err(McpError::internal_error(error.to_string(), None))
            }
        }
    }

    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), McpError> {
        let request = ClientRequest::PingRequest(PingRequest::default());
        self.send(request, context).await.map(|_| ())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let request = ClientRequest::CompleteRequest(CompleteRequest::new(request));
        match self.send(request, context).await? {
            ServerResult::CompleteResult(result) => Ok(result),
            other => result_as(other),
        }
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let request = ClientRequest::SetLevelRequest(SetLevelRequest::new(request));
        self.send(request, context).await.map(|_| ())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let mut pending = self.shared.recorder.begin_call(
            self.server(),
            CallKind::Prompt,
            request.name.clone(),
            request.arguments.clone().map(serde_json::Value::Object),
        );
        pending.inject(injected(&context));
        let context = with_origin(context, &pending, CallKind::Prompt, &request.name);
        let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(request));
        let response = match self.send(request, context).await {
            Ok(ServerResult::GetPromptResult(result)) => Ok(GetPromptResponse::Complete(result)),
            Ok(ServerResult::InputRequiredResult(result)) => {
                Ok(GetPromptResponse::InputRequired(result))
            }
            Ok(other) => result_as(other).map(GetPromptResponse::Complete),
            Err(error) => Err(error),
        };
        pending.finish(call_outcome(&response, |response| match response {
            GetPromptResponse::Complete(result) => (json(result), false),
            GetPromptResponse::InputRequired(result) => (json(result), false),
            _ => (serde_json::Value::Null, false),
        }));
        response
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.recorded_list(request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.recorded_list(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        self.recorded_list(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let mut pending = self.shared.recorder.begin_call(
            self.server(),
            CallKind::Resource,
            request.uri.clone(),
            None,
        );
        pending.inject(injected(&context));
        let context = with_origin(context, &pending, CallKind::Resource, &request.uri);
        let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(request));
        let response = match self.send(request, context).await {
            Ok(ServerResult::ReadResourceResult(result)) => {
                Ok(ReadResourceResponse::Complete(result))
            }
            Ok(ServerResult::InputRequiredResult(result)) => {
                Ok(ReadResourceResponse::InputRequired(result))
            }
            Ok(other) => result_as(other).map(ReadResourceResponse::Complete),
            Err(error) => Err(error),
        };
        pending.finish(call_outcome(&response, |response| match response {
            ReadResourceResponse::Complete(result) => (json(result), false),
            ReadResourceResponse::InputRequired(result) => (json(result), false),
            _ => (serde_json::Value::Null, false),
        }));
        response
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let request = ClientRequest::SubscribeRequest(SubscribeRequest::new(request));
        self.send(request, context).await.map(|_| ())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let request = ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(request));
        self.send(request, context).await.map(|_| ())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let mut pending = self.shared.recorder.begin_call(
            self.server(),
            CallKind::Tool,
            request.name.to_string(),
            request.arguments.clone().map(serde_json::Value::Object),
        );
        pending.inject(injected(&context));
        let rewrite = &self.shared.options.tools;
        if rewrite.answers(&request.name, &self.shared.rewrite_notes)
            && let Some(answer) = ToolRewrite::decoy_call_result()
        {
            let result = ToolRewrite::decoy_result();
            pending.finish(crate::trace::Outcome::IsError { result });
            return Ok(CallToolResponse::Complete(answer));
        }
        let context = with_origin(context, &pending, CallKind::Tool, &request.name);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(request));
        let response = match self.send(request, context).await {
            Ok(ServerResult::CallToolResult(result)) => Ok(CallToolResponse::Complete(result)),
            Ok(ServerResult::InputRequiredResult(result)) => {
                Ok(CallToolResponse::InputRequired(result))
            }
            Ok(ServerResult::CreateTaskResult(result)) => Ok(CallToolResponse::Task(result)),
            Ok(other) => result_as(other).map(CallToolResponse::Complete),
            Err(error) => Err(error),
        };
        pending.finish(call_outcome(&response, |response| match response {
            CallToolResponse::Complete(result) => (json(result), result.is_error == Some(true)),
            CallToolResponse::InputRequired(result) => (json(result), false),
            CallToolResponse::Task(result) => (json(result), false),
            _ => (serde_json::Value::Null, false),
        }));
        response
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let delayed = injected(&context);
        let (mut pending, mut response) = self.list::<ListToolsResult>(request, context).await;
        let rewrite = &self.shared.options.tools;
        if let Ok(page) = &mut response
            && !rewrite.is_empty()
        {
            rewrite.apply(page, &mut lock(&self.shared.rewrite_notes));
        }
        // Recorded as the server answered it: a tool-list change of a `faults` rule is the
        // proxy's, and the call is marked with it.
        let outcome = list_outcome(&response, ListToolsResult::items);
        if let Ok(page) = &mut response
            && let Some(plan) = &self.shared.options.faults
            && let Some(changed) = plan.change_page(self.server(), page)
            && delayed.is_none()
        {
            pending.inject(Some(changed));
        }
        pending.finish(outcome);
        response
    }

    /// A task's status, for an agent that follows the task itself.
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let request = ClientRequest::GetTaskRequest(GetTaskRequest::new(request));
        match self.send(request, context).await? {
            ServerResult::GetTaskResult(result) => Ok(result),
            other => result_as(other),
        }
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let request = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(request));
        self.send(request, context).await.map(|_| ())
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let request = ClientRequest::CancelTaskRequest(CancelTaskRequest::new(request));
        self.send(request, context).await.map(|_| ())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        match self
            .send(ClientRequest::CustomRequest(request), context)
            .await?
        {
            ServerResult::CustomResult(result) => Ok(result),
            other => serde_json::to_value(&other)
                .map(CustomResult)
                .map_err(|error| McpError::internal_error(error.to_string(), None)),
        }
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        if let Ok(connection) = self.connection() {
            let notification = ClientNotification::RootsListChangedNotification(
                RootsListChangedNotification::default(),
            );
            let _ = connection.peer.send_notification(notification).await;
        }
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleServer>,
    ) {
        if let Ok(connection) = self.connection() {
            let notification = ClientNotification::CustomNotification(notification);
            let _ = connection.peer.send_notification(notification).await;
        }
    }
}
