//! Agents: what works a task's prompt through the proxied MCP servers.

mod claude;
mod file;
pub mod llm;
pub mod openai;

use std::path::Path;

pub use claude::{
    CLAUDE_PACKAGE, ClaudeResult, allowed_tool_names, parse_stream_json, run_claude_code,
};
pub use file::{render_command, run_file_agent};

/// One proxied MCP server as the agent sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxiedServer {
    /// The server's name in the MCP config.
    pub name: String,
    /// The proxy's URL (`http://127.0.0.1:PORT/mcp`).
    pub url: String,
    /// The tools the agent may call.
    pub allowed_tools: Vec<String>,
}

/// How an agent run ended.
#[derive(Debug, Clone)]
pub struct AgentOutcome {
    /// Finished on its own with success.
    pub passed: bool,
    /// Why it failed (exit code, timeout, could not start), or empty.
    pub reason: String,
    /// The agent's final answer (its stdout, trimmed).
    pub answer: String,
    /// Everything it printed, for failure messages.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// Tokens the agent used, as its LLM API (or Claude Code) reported them.
    pub usage: Option<llm::TokenUsage>,
}

impl AgentOutcome {
    /// An agent that could not run (or did not finish), for `reason`.
    pub fn failed(reason: impl Into<String>) -> Self {
        AgentOutcome {
            passed: false,
            reason: reason.into(),
            answer: String::new(),
            stdout: String::new(),
            stderr: String::new(),
            usage: None,
        }
    }
}

/// Writes the MCP config the agent gets: every proxied server as `type: http`.
pub fn write_agent_mcp_config(path: &Path, servers: &[ProxiedServer]) -> std::io::Result<()> {
    let mut entries = serde_json::Map::new();
    for server in servers {
        entries.insert(
            server.name.clone(),
            serde_json::json!({"type": "http", "url": server.url}),
        );
    }
    let config = serde_json::json!({ "mcpServers": entries });
    let text = serde_json::to_string_pretty(&config).map_err(std::io::Error::other)?;
    std::fs::write(path, text + "\n")
}
