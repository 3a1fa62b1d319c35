//! What the two sides of one proxied session must share to route messages back: which
//! agent progress token an upstream token stands for, and which agent request an upstream
//! request serves.
//!
//! Progress tokens and request ids differ per hop (rmcp assigns its own on every request
//! it sends), so both are translated here.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};

use rmcp::model::{ProgressToken, RequestId};

use crate::plumbing::lock::lock;

/// The translation tables of one agent session.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    state: Mutex<RouteTable>,
}

#[derive(Debug, Default)]
struct RouteTable {
    /// upstream progress token → the agent's token.
    progress: HashMap<ProgressToken, ProgressToken>,
    /// upstream request id → agent request id, oldest first.
    in_flight: Vec<(RequestId, RequestId)>,
    /// Tokens of answered requests, oldest first, still translated for a while.
    retired: VecDeque<ProgressToken>,
}

/// How many answered requests keep their progress token translation. rmcp handles each
/// notification in a task of its own, so a server's last progress notification, sent
/// just before the response, may be handled after it.
const RETIRED_TOKENS: usize = 256;

impl Routes {
    fn lock(&self) -> MutexGuard<'_, RouteTable> {
        lock(&self.state)
    }

    /// Notes an upstream request made on behalf of agent request `agent_id`.
    pub(crate) fn open(
        &self,
        upstream_id: RequestId,
        agent_id: RequestId,
        progress: Option<(ProgressToken, ProgressToken)>,
    ) {
        let mut state = self.lock();
        state.in_flight.push((upstream_id, agent_id));
        if let Some((upstream_token, agent_token)) = progress {
            state.progress.insert(upstream_token, agent_token);
        }
    }

    /// Forgets an upstream request once answered or cancelled; its progress token stays
    /// translated until [`RETIRED_TOKENS`] later requests have closed.
    pub(crate) fn close(&self, upstream_id: &RequestId, upstream_token: Option<&ProgressToken>) {
        let mut state = self.lock();
        state.in_flight.retain(|(id, _)| id != upstream_id);
        if let Some(token) = upstream_token
            && state.progress.contains_key(token)
        {
            state.retired.push_back(token.clone());
            while state.retired.len() > RETIRED_TOKENS {
                if let Some(oldest) = state.retired.pop_front() {
                    state.progress.remove(&oldest);
                }
            }
        }
    }

    /// The agent's progress token for an upstream one, if that request is still open.
    pub(crate) fn agent_progress_token(&self, upstream: &ProgressToken) -> Option<ProgressToken> {
        self.lock().progress.get(upstream).cloned()
    }

    /// The agent request a server→client request belongs to: the one whose upstream
    /// request it came with when the transport knows (HTTP), else the most recent open
    /// request (stdio carries no association).
    pub(crate) fn originating_agent_request(
        &self,
        upstream_id: Option<&RequestId>,
    ) -> Option<RequestId> {
        let state = self.lock();
        if let Some(upstream_id) = upstream_id
            && let Some((_, agent_id)) = state.in_flight.iter().find(|(id, _)| id == upstream_id)
        {
            return Some(agent_id.clone());
        }
        state.in_flight.last().map(|(_, agent_id)| agent_id.clone())
    }
}
