//! Faults on purpose in one agent session: every request passes here before the proxy's
//! [`AgentSession`] forwards it. A request a rule hits ([`FaultPlan::hit`]) gets the rule's
//! fault instead of (or, for `delay` and `toolsChanged`, besides) the server's answer, and
//! is recorded as injected.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    ClientNotification, ClientRequest, CustomResult, ErrorCode, ProtocolVersion,
    ServerCapabilities, ServerConfig, ServerNotification, ServerResult,
    ToolListChangedNotification,
};
use rmcp::service::{NotificationContext, RequestContext, Service};
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::listing::cursor;
use super::outbox::{HttpFault, Outbox};
use super::session::AgentSession;
use super::shared::ProxyState;
use crate::fault::{FaultAction, FaultRule};
use crate::proxy::inputs::{Delayed, FaultPlan};
use crate::proxy::record::{CANCELLED_CODE, PendingCall, PendingList, call_outcome, json};
use crate::trace::{CallKind, Injected, ListKind};

/// The service of one agent session: faults first, then the proxy.
pub(crate) struct FaultLayer {
    inner: AgentSession,
    shared: Arc<ProxyState>,
    outbox: Arc<Outbox>,
}

impl FaultLayer {
    pub(crate) fn new(shared: Arc<ProxyState>, outbox: Arc<Outbox>) -> Self {
        FaultLayer {
            inner: AgentSession::new(shared.clone()),
            shared,
            outbox,
        }
    }

    async fn handle(
        &self,
        plan: &FaultPlan,
        request: ClientRequest,
        mut context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let server = self.shared.server.as_str();
        if let ClientRequest::InitializeRequest(_) = &request {
            let mut answer = self.inner.handle_request(request, context).await;
            if let Ok(ServerResult::InitializeResult(init)) = &mut answer {
                self.declare_tools_changes(&mut init.capabilities);
            }
            return answer;
        }
        let tool = match &request {
            ClientRequest::CallToolRequest(call) => Some(call.params.name.to_string()),
            _ => None,
        };
        if let Some(tool) = &tool
            && let Some(injected) = plan.removed(server, tool)
        {
            let record = Recording::begin(&self.shared, &request, injected);
            let answer = Err(McpError::invalid_params(
                format!("Unknown tool: {tool}"),
                None,
            ));
            record.finish(&answer);
            return answer;
        }
        let Some(rule) = plan.hit(server, request.method(), tool.as_deref()) else {
            return self.inner.handle_request(request, context).await;
        };
        let injected = Injected {
            fault: rule.action.kind(),
            rule: rule.key_path.clone(),
        };
        match &rule.action {
            FaultAction::Delay(delay) => {
                context.extensions.insert(injected);
                context.extensions.insert(Delayed(*delay));
                self.inner.handle_request(request, context).await
            }
            FaultAction::ToolsChanged(_) => {
                context.extensions.insert(injected);
                let peer = context.peer.clone();
                let answer = self.inner.handle_request(request, context).await;
                plan.change_tools(server, rule);
                let changed = ToolListChangedNotification {
                    method: Default::default(),
                    extensions: Default::default(),
                };
                let changed = ServerNotification::ToolListChangedNotification(changed);
                let _ = peer.send_notification(changed).await;
                answer
            }
            _ => {
                let record = Recording::begin(&self.shared, &request, injected);
                let answer = self.answer(rule, &context).await;
                record.finish(&answer);
                answer
            }
        }
    }

    /// Declares `tools.listChanged` in `capabilities` when a `toolsChanged` rule may hit
    /// this server (its `initialize` answer, and what the session says of itself).
    fn declare_tools_changes(&self, capabilities: &mut ServerCapabilities) {
        let plan = self.shared.options.faults.as_ref();
        if plan.is_some_and(|plan| plan.changes_tools(&self.shared.server)) {
            capabilities.tools.get_or_insert_default().list_changed = Some(true);
        }
    }

    /// What the agent gets from a rule whose fault replaces the answer.
    async fn answer(
        &self,
        rule: &FaultRule,
        context: &RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let result = |value: Value| Ok(ServerResult::CustomResult(CustomResult(value)));
        match &rule.action {
            FaultAction::Error { code, message } => {
                Err(McpError::new(ErrorCode(*code), message.clone(), None))
            }
            FaultAction::ToolError(text) => result(json!({
                "content": [{"type": "text", "text": text}],
                "isError": true,
            })),
            FaultAction::Replace(value) => result(value.clone()),
            FaultAction::Timeout => {
                context.ct.cancelled().await;
                Err(McpError::new(
                    ErrorCode(CANCELLED_CODE),
                    "no answer (injected timeout): the agent cancelled the call",
                    None,
                ))
            }
            FaultAction::Disconnect => {
                (self.outbox).break_reply(context.id.clone(), HttpFault::Disconnect);
                Err(McpError::internal_error(
                    "no answer (injected disconnect): the proxy ended the session and closed the connection",
                    None,
                ))
            }
            FaultAction::Malformed => {
                (self.outbox).break_reply(context.id.clone(), HttpFault::Malformed);
                Err(McpError::internal_error(
                    "no answer (injected malformed): the agent got an HTTP 200 whose body is not JSON-RPC",
                    None,
                ))
            }
            // Delays and tool-list changes let the server answer; the user's answers are for
            // a server's elicitation (`proxy/server/asking.rs`), never an agent's request.
            FaultAction::Delay(_)
            | FaultAction::ToolsChanged(_)
            | FaultAction::Decline
            | FaultAction::Cancel => Err(McpError::internal_error("not an answering fault", None)),
        }
    }
}

impl Service<RoleServer> for FaultLayer {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        match self.shared.options.faults.clone() {
            Some(plan) => self.handle(&plan, request, context).await,
            None => self.inner.handle_request(request, context).await,
        }
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.inner.handle_notification(notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        let mut info = self.inner.get_info();
        self.declare_tools_changes(&mut info.capabilities);
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Service::<RoleServer>::supported_protocol_versions(&self.inner)
    }
}

/// The record of a request whose answer a fault made: a call or a list call, or nothing
/// for the methods a trace does not hold (`ping`, `completion/complete`, …).
enum Recording {
    Call(PendingCall),
    List(PendingList, &'static str),
    None,
}

impl Recording {
    fn begin(shared: &ProxyState, request: &ClientRequest, injected: Injected) -> Self {
        let (recorder, server) = (&shared.recorder, shared.server.as_str());
        let arguments = |arguments: &Option<serde_json::Map<String, Value>>| {
            arguments.clone().map(Value::Object)
        };
        let call = |kind, name: String, args| recorder.begin_call(server, kind, name, args);
        let list = |kind, cursor: Option<String>| recorder.begin_list(server, kind, cursor);
        let mut recording = match request {
            ClientRequest::CallToolRequest(r) => Recording::Call(call(
                CallKind::Tool,
                r.params.name.to_string(),
                arguments(&r.params.arguments),
            )),
            ClientRequest::ReadResourceRequest(r) => {
                Recording::Call(call(CallKind::Resource, r.params.uri.clone(), None))
            }
            ClientRequest::GetPromptRequest(r) => Recording::Call(call(
                CallKind::Prompt,
                r.params.name.clone(),
                arguments(&r.params.arguments),
            )),
            ClientRequest::ListToolsRequest(r) => {
                Recording::List(list(ListKind::Tools, cursor(&r.params)), "tools")
            }
            ClientRequest::ListResourcesRequest(r) => {
                Recording::List(list(ListKind::Resources, cursor(&r.params)), "resources")
            }
            ClientRequest::ListResourceTemplatesRequest(r) => Recording::List(
                list(ListKind::ResourceTemplates, cursor(&r.params)),
                "resourceTemplates",
            ),
            ClientRequest::ListPromptsRequest(r) => {
                Recording::List(list(ListKind::Prompts, cursor(&r.params)), "prompts")
            }
            _ => Recording::None,
        };
        match &mut recording {
            Recording::Call(pending) => pending.inject(Some(injected)),
            Recording::List(pending, _) => pending.inject(Some(injected)),
            Recording::None => {}
        }
        recording
    }

    fn finish(self, answer: &Result<ServerResult, McpError>) {
        match self {
            Recording::Call(pending) => pending.finish(call_outcome(answer, |result| {
                let result = json(result);
                let is_error = result["isError"] == true;
                (result, is_error)
            })),
            Recording::List(pending, key) => pending.finish(match answer {
                Ok(result) => Ok(json(result)[key].as_array().cloned().unwrap_or_default()),
                Err(error) => Err(error.message.to_string()),
            }),
            Recording::None => {}
        }
    }
}
