//! What the server sends on its own, relayed: its requests (sampling, elicitation, roots)
//! answered by the run's scripted user or model, or passed on to the agent session the
//! connection serves now ([`AgentPeer`], which a conversation's later session takes over),
//! and its notifications passed on (progress under the agent's own token).

// Sampling and roots are deprecated by the 2026-07-28 protocol; agents still use them.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientInfo, ClientResult, ErrorCode,
    ServerNotification, ServerRequest,
};
use rmcp::service::{
    InboundStreamOrigin, NotificationContext, OriginatingRequestId, PeerRequestOptions,
    RequestContext,
};
use rmcp::{ErrorData as McpError, Peer, RoleClient, RoleServer, Service, ServiceError};

use super::asking::{Answer, Asking};
use super::routes::Routes;
use crate::plumbing::lock::lock;
use crate::proxy::record::CANCELLED_CODE;

/// The agent session a connection relays the server's own messages to; a later session of
/// the same conversation takes it over ([`Connection::rebind`](super::Connection::rebind)).
#[derive(Clone)]
pub(super) struct AgentPeer(pub(super) Arc<std::sync::Mutex<Peer<RoleServer>>>);

impl AgentPeer {
    fn current(&self) -> Peer<RoleServer> {
        lock(&self.0).clone()
    }
}

/// The rmcp client service: presents the agent's identity to the server and relays the
/// server's own messages to the agent (an elicitation the scripted user answers stays here).
pub(crate) struct Relay {
    pub(super) agent_info: ClientInfo,
    pub(super) agent: AgentPeer,
    pub(super) routes: Arc<Routes>,
    pub(super) asking: Asking,
}

impl Service<RoleClient> for Relay {
    async fn handle_request(
        &self,
        mut request: ServerRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<ClientResult, McpError> {
        use rmcp::model::GetExtensions;
        let upstream_origin = match context.extensions.get::<InboundStreamOrigin>() {
            Some(InboundStreamOrigin::OutboundRequest(id)) => Some(id.clone()),
            _ => None,
        };
        let (agent_id, call) = self.routes.originating(upstream_origin.as_ref()).unzip();
        let relayed = match &request {
            ServerRequest::ListRootsRequest(_) if self.asking.answers_roots() => {
                return Ok(ClientResult::ListRootsResult(self.asking.roots_result()));
            }
            ServerRequest::CreateMessageRequest(sample) => {
                match self
                    .asking
                    .sample(&sample.params, call.flatten(), true)
                    .await
                {
                    Answer::Now(answer) => return Ok(answer),
                    Answer::Refuse(error) => return Err(error),
                    Answer::Relay(relayed) => Some(relayed),
                    Answer::Never => None,
                }
            }
            ServerRequest::ElicitRequest(elicit) => {
                match self.asking.receive(&elicit.params, call.flatten()) {
                    Answer::Now(answer) => return Ok(answer),
                    Answer::Refuse(error) => return Err(error),
                    Answer::Never => {
                        context.ct.cancelled().await;
                        return Err(McpError::new(
                            ErrorCode(CANCELLED_CODE),
                            "no answer (injected timeout): the server gave up asking",
                            None,
                        ));
                    }
                    Answer::Relay(relayed) => Some(relayed),
                }
            }
            _ => None,
        };
        if let Some(agent_id) = agent_id {
            // Rides the agent request's own response stream, not the standalone GET stream.
            request
                .extensions_mut()
                .insert(OriginatingRequestId(agent_id));
        }
        let response = self.relay(request, context).await;
        if let Some(relayed) = relayed {
            relayed.finish(&response);
        }
        response
    }

    async fn handle_notification(
        &self,
        notification: ServerNotification,
        _context: NotificationContext<RoleClient>,
    ) -> Result<(), McpError> {
        self.relay_notification(notification).await
    }

    fn get_info(&self) -> ClientInfo {
        self.agent_info.clone()
    }
}

impl Relay {
    /// Sends a server's request to the agent and waits for its answer (or the server's
    /// cancellation, passed on).
    async fn relay(
        &self,
        request: ServerRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<ClientResult, McpError> {
        // Sent from a task of its own: inside this handler rmcp would stamp the request
        // with the *server's* request id as its origin (a task-local), overriding ours.
        let agent = self.agent.current();
        let handle = tokio::spawn(async move {
            agent
                .send_request_with_option(request, PeerRequestOptions::no_options())
                .await
        })
        .await
        .map_err(|error| McpError::internal_error(format!("relaying failed: {error}"), None))?
        .map_err(|error| relay_error(&error))?;
        let agent_id = handle.id.clone();
        tokio::select! {
            response = handle.await_response() => response.map_err(|error| relay_error(&error)),
            () = context.ct.cancelled() => {
                let cancel = CancelledNotification::new(CancelledNotificationParam::new(
                        Some(agent_id),
                        Some("cancelled by the server".into()),
                    ));
                let _ = self.agent.current().send_notification(cancel.into()).await;
                Err(McpError::new(ErrorCode(CANCELLED_CODE), "cancelled", None))
            }
        }
    }

    /// Passes a server's notification on to the agent (progress under the agent's token).
    async fn relay_notification(&self, notification: ServerNotification) -> Result<(), McpError> {
        let notification = match notification {
            ServerNotification::ProgressNotification(mut progress) => {
                // Only progress of a request still open, under the agent's own token.
                let Some(token) = self
                    .routes
                    .agent_progress_token(&progress.params.progress_token)
                else {
                    return Ok(());
                };
                progress.params.progress_token = token;
                ServerNotification::ProgressNotification(progress)
            }
            // Cancellation of a server→client request is relayed through the request's
            // cancellation token above, with the agent-side id.
            ServerNotification::CancelledNotification(_) => return Ok(()),
            other => other,
        };
        // The agent may be gone already; nothing to do then.
        let _ = self.agent.current().send_notification(notification).await;
        Ok(())
    }
}

/// A failure to relay to the agent, as the JSON-RPC error the server gets.
fn relay_error(error: &ServiceError) -> McpError {
    match error {
        ServiceError::McpError(error) => error.clone(),
        other => McpError::internal_error(format!("the agent did not answer: {other}"), None),
    }
}
