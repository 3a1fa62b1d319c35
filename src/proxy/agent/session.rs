//! One agent session of the proxy ([`AgentSession`]): its connection to the real server,
//! made at `initialize`, and the way every request goes there: a delay injected first, the
//! input rounds of a 2026-07-28 server fulfilled and a task followed on the way back; the
//! recorded call a request is, marked in its context. `handler.rs` is its MCP server face.

use std::sync::Arc;

use rmcp::model::{ClientRequest, PaginatedRequestParams, ServerResult};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};

use super::listing::{Listing, cursor};
use super::shared::ProxyState;
use crate::proxy::inputs::Delayed;
use crate::proxy::record::{PendingCall, PendingList, list_outcome};
use crate::proxy::server::{CallOrigin, Connection, forward, input_rounds, tasks};
use crate::trace::{CallKind, Injected};

/// The proxy as one agent session sees it: an MCP server that mirrors the real one.
pub(crate) struct AgentSession {
    pub(super) shared: Arc<ProxyState>,
    pub(super) upstream: tokio::sync::OnceCell<Arc<Connection>>,
}

impl AgentSession {
    pub(crate) fn new(shared: Arc<ProxyState>) -> Self {
        Self {
            shared,
            upstream: tokio::sync::OnceCell::new(),
        }
    }

    pub(super) fn connection(&self) -> Result<&Arc<Connection>, McpError> {
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
    pub(super) async fn send(
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
        let answer = match forward(connection, request.clone(), context.clone()).await? {
            ServerResult::InputRequiredResult(asked) => {
                input_rounds::fulfil(connection, request, asked, context.clone()).await?
            }
            answer => answer,
        };
        // A task may come after the input rounds, as the answer to their last retry.
        match answer {
            ServerResult::CreateTaskResult(created) => {
                tasks::follow(connection, created, context).await
            }
            answer => Ok(answer),
        }
    }

    pub(super) fn server(&self) -> &str {
        &self.shared.server
    }

    /// A list call, forwarded and recorded as a discovery event marked with the fault
    /// injected into it (if any), left to finish.
    pub(super) async fn list<L: Listing>(
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
    pub(super) async fn recorded_list<L: Listing>(
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
pub(super) fn injected(context: &RequestContext<RoleServer>) -> Option<Injected> {
    context.extensions.get::<Injected>().cloned()
}

/// The request's context marked with the recorded call it is, so that what the server asks
/// while answering it (an elicitation) names the call.
pub(super) fn with_origin(
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
