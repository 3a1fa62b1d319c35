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
use crate::trace::{CallKind, During};

/// The recorded call an agent request is (a tool call, a resource read, a prompt get): put
/// in the request's extensions by the session, so that what the server sends while
/// answering it (an elicitation) names the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallOrigin {
    /// The call's place in the recorder.
    pub(crate) seq: u64,
    /// What is called.
    pub(crate) kind: CallKind,
    /// The tool name, resource URI or prompt name.
    pub(crate) name: String,
}

impl CallOrigin {
    /// The call as the record of a request made during it names it (its position is set
    /// when the trace is read).
    pub(crate) fn during(self) -> During {
        During {
            kind: self.kind,
            name: self.name,
            position: None,
        }
    }
}

/// The translation tables of one agent session.
#[derive(Debug, Default)]
pub(crate) struct Routes {
    state: Mutex<RouteTable>,
}

#[derive(Debug, Default)]
struct RouteTable {
    /// upstream progress token → the agent's token.
    progress: HashMap<ProgressToken, ProgressToken>,
    /// upstream request id → agent request id (and the call it is), oldest first.
    in_flight: Vec<InFlight>,
    /// Tokens of answered requests, oldest first, still translated for a while.
    retired: VecDeque<ProgressToken>,
}

#[derive(Debug)]
struct InFlight {
    upstream: RequestId,
    agent: RequestId,
    call: Option<CallOrigin>,
}

/// How many answered requests keep their progress token translation. rmcp handles each
/// notification in a task of its own, so a server's last progress notification, sent
/// just before the response, may be handled after it.
const RETIRED_TOKENS: usize = 256;

impl Routes {
    fn lock(&self) -> MutexGuard<'_, RouteTable> {
        lock(&self.state)
    }

    /// Notes an upstream request made on behalf of agent request `agent_id` (the recorded
    /// `call`, if it is one).
    pub(crate) fn open(
        &self,
        upstream_id: RequestId,
        agent_id: RequestId,
        call: Option<CallOrigin>,
        progress: Option<(ProgressToken, ProgressToken)>,
    ) {
        let mut state = self.lock();
        state.in_flight.push(InFlight {
            upstream: upstream_id,
            agent: agent_id,
            call,
        });
        if let Some((upstream_token, agent_token)) = progress {
            state.progress.insert(upstream_token, agent_token);
        }
    }

    /// Forgets an upstream request once answered or cancelled; its progress token stays
    /// translated until [`RETIRED_TOKENS`] later requests have closed.
    pub(crate) fn close(&self, upstream_id: &RequestId, upstream_token: Option<&ProgressToken>) {
        let mut state = self.lock();
        state.in_flight.retain(|open| open.upstream != *upstream_id);
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

    /// The agent request a server→client request belongs to, and the recorded call it is:
    /// the one whose upstream request it came with when the transport knows (HTTP), else
    /// the most recent open request (stdio carries no association).
    pub(crate) fn originating(
        &self,
        upstream_id: Option<&RequestId>,
    ) -> Option<(RequestId, Option<CallOrigin>)> {
        let state = self.lock();
        let known = upstream_id.and_then(|id| state.in_flight.iter().find(|o| o.upstream == *id));
        known
            .or(state.in_flight.last())
            .map(|open| (open.agent.clone(), open.call.clone()))
    }
}
