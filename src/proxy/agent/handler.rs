//! The proxy as the agent's MCP server: one [`AgentSession`] handler per MCP session the
//! agent opens. Every request is forwarded to the real server (see `server/forward.rs`);
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

use super::listing::{Listing, cursor};
use super::shared::ProxyState;
use crate::plumbing::lock::lock;
use crate::proxy::inputs::{Delayed, ToolRewrite};
use crate::proxy::record::{PendingCall, PendingList, call_outcome, json, list_outcome};
use crate::proxy::server::{
    Asking, CallOrigin, Connection, Startup, connect, forward, input_rounds, result_as, tasks,
};
use crate::trace::{CallKind, Injected};

/// The proxy as one agent session sees it: an MCP server that mirrors the real one.
pub(crate) struct AgentSession {
    shared: Arc<ProxyState>,
    upstream: tokio::sync::OnceCell<Arc<Connection>>,
}

impl AgentSession {
    pub(crate) fn new(shared: Arc<ProxyState>) -> Self {
        Self {
            shared,
            upstream: tokio::sync::OnceCell::new(),
        }
    }

    fn connection(&self) -> Result<&Arc<Connection>, McpError> {
        self.upstream.get().ok_or_else(|| {
            McpError::invalid_request(
                "the session is not initialized: send initialize first",
                None,
            )
        })
    }

    /// Forwards `request` to the server and brings back its final answer: the input
    /// rounds of a 2026-07-28 server fulfilled on the way (`server/input_rounds.rs`), a
    /// task it answers with followed to its result (`server/tasks.rs`).
    async fn send(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        if let Some(Delayed(delay)) = context.extensions.get::<Delayed>().copied() {
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = context.ct.cancelled() => {}
            }
        }
        let connection = self.connection()?;
        match forward(connection, request.clone(), context.clone()).await? {
            ServerResult::InputRequiredResult(asked) => {
                input_rounds::fulfil(connection, request, asked, context).await
            }
            ServerResult::CreateTaskResult(created) => {
                tasks::follow(connection, created, context).await
            }
            answer => Ok(answer),
        }
    }

    fn server(&self) -> &str {
        &self.shared.server
    }

    /// A list call, forwarded and recorded as a discovery event marked with the fault
    /// injected into it (if any), left to finish.
    async fn list<L: Listing>(
        &self,
        params: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> (PendingList, Result<L, McpError>) {
        let cursor = cursor(&params);
        let mut pending = self
            .shared
            .recorder
            .begin_list(self.server(), L::KIND, cursor);
        pending.inject(injected(&context));
        let response = match self.send(L::request(params), context).await {
            Ok(result) => L::answer(result, self.connection().ok()),
            Err(error) => Err(error),
        };
        (pending, response)
    }

    /// A list call recorded as the server answered it.
    async fn recorded_list<L: Listing>(
        &self,
        params: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<L, McpError> {
        let (pending, response) = self.list(params, context).await;
        pending.finish(list_outcome(&response, L::items));
        response
    }
}

/// The fault the session's fault layer (`fault_layer.rs`) injected into this request while
/// letting the server answer it (a delay, a tool-list change), if any.
fn injected(context: &RequestContext<RoleServer>) -> Option<Injected> {
    context.extensions.get::<Injected>().cloned()
}

/// The request's context marked with the recorded call it is, so that what the server asks
/// while answering it (an elicitation) names the call.
fn with_origin(
    mut context: RequestContext<RoleServer>,
    pending: &PendingCall,
    kind: CallKind,
    name: &str,
) -> RequestContext<RoleServer> {
    context.extensions.insert(CallOrigin {
        seq: pending.seq(),
        kind,
        name: name.to_owned(),
    });
    context
}

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
