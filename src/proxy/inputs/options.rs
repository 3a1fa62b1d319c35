//! A proxy's tunables ([`ProxyOptions`]): how long its server may take to start, what the
//! agent is shown of the server's tools, the run's faults on purpose and its scripted user.

use std::sync::Arc;
use std::time::Duration;

use super::fault_plan::FaultPlan;
use super::tool_rewrite::ToolRewrite;
use crate::llm::Sampler;
use crate::user::{ScriptedModel, ScriptedUser};

/// Tunables of a proxy.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// How long the server may take to start and answer `initialize` (default 60 s).
    pub startup_timeout: Duration,
    /// What the agent is shown of the server's tools: patched definitions and decoys
    /// (default: the server's own, unchanged).
    pub tools: ToolRewrite,
    /// The run's faults on purpose (a task's `faults` rules), shared by its proxies
    /// (default: none).
    pub faults: Option<Arc<FaultPlan>>,
    /// The run's scripted user (a task's `elicitation` rules), answering the server's
    /// elicitations instead of the agent (default: none; the agent answers).
    pub user: Option<Arc<ScriptedUser>>,
    /// The run's scripted model (a task's `sampling` rules), answering the server's
    /// sampling requests instead of the agent (default: none; the agent answers).
    pub model: Option<Arc<ScriptedModel>>,
    /// The judge model that answers sampling requests whose rule says `llm: judge`
    /// (default: none; such a rule's request fails).
    pub sampler: Option<Arc<Sampler>>,
    /// One server for all the agent's sessions (a conversation's turns): the first
    /// session's connection is taken over by every later one, so the server keeps its
    /// state (default: each session its own).
    pub one_server: bool,
    /// The protocol version spoken to the server (a variant's `protocolVersion`), whatever
    /// the agent asks for; a version without an `initialize` handshake (2026-07-28) is
    /// reached with `server/discover` (default: the agent's own).
    pub protocol_version: Option<rmcp::model::ProtocolVersion>,
    /// The roots a server's input round (`roots/list`) gets: `file://` URIs of the agent's
    /// working directory (default: none).
    pub roots: Vec<String>,
}

impl Default for ProxyOptions {
    fn default() -> Self {
        Self {
            startup_timeout: Duration::from_secs(60),
            tools: ToolRewrite::default(),
            faults: None,
            user: None,
            model: None,
            sampler: None,
            one_server: false,
            protocol_version: None,
            roots: Vec::new(),
        }
    }
}
