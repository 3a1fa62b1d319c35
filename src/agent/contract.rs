//! What every agent kind takes and gives: an [`AgentRun`] (the prompt, the proxied
//! servers, the directories, the environment and the bound) and an [`AgentOutcome`]; and the
//! MCP config file an agent gets.

use std::path::Path;
use std::time::Duration;

use crate::llm::TokenUsage;
use crate::plumbing::ended::Ended;
use crate::trace::AgentToolCall;

/// What every agent is given for one run.
#[derive(Debug, Clone, Copy)]
pub struct AgentRun<'a> {
    /// The task's prompt.
    pub prompt: &'a str,
    /// The proxied MCP servers, with the tools the agent may call.
    pub servers: &'a [ProxiedServer],
    /// The MCP config file naming every proxied server (see [`write_agent_mcp_config`]).
    pub mcp_config_file: &'a Path,
    /// The agent's working directory: fresh and empty.
    pub work_dir: &'a Path,
    /// A private directory of the run for the agent's own files (its config, …).
    pub private_dir: &'a Path,
    /// Environment variables for the agent on top of the process's own (later ones win).
    pub env: &'a [(String, String)],
    /// Copy the agent's output to stderr as it arrives.
    pub live: bool,
    /// The bound on the run.
    pub timeout: Duration,
}

impl AgentRun<'_> {
    /// The turn of the task's conversation this run is (`MCPEVAL_TURN`, from 1); `None`
    /// for a task of one turn.
    pub fn turn(&self) -> Option<u32> {
        self.var("MCPEVAL_TURN").and_then(|n| n.parse().ok())
    }

    /// A variable as the agent sees it: [`AgentRun::env`] first, else the process's own.
    pub fn var(&self, name: &str) -> Option<String> {
        self.env
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
            .or_else(|| std::env::var(name).ok())
    }
}

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
    /// Whether it finished on its own with success, or why not (exit code, timeout, could
    /// not start).
    pub ended: Ended,
    /// The agent's final answer (its stdout, trimmed).
    pub answer: String,
    /// Everything it printed, for failure messages.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
    /// Tokens the agent used, as its LLM API (or Claude Code) reported them.
    pub usage: Option<TokenUsage>,
    /// The agent's calls of its own tools, where it reports them (Claude Code).
    pub tool_calls: Vec<AgentToolCall>,
    /// Model turns, where the agent reports them (Claude Code's `num_turns`, the
    /// llm-agent's requests answered).
    pub turns: Option<u32>,
    /// Tool calls the model asked for, where the agent reports them (Claude Code's
    /// `tool_use` blocks, its own tools included; the llm-agent's calls).
    pub tool_call_count: Option<u32>,
    /// The agent's version, where the agent itself says it (an ACP agent's `agentInfo`).
    pub version: Option<String>,
    /// Set when it failed because it cannot continue the conversation (`ended` says so).
    pub cannot_continue: Option<CannotContinue>,
}

impl AgentOutcome {
    /// An agent that could not run (or did not finish), for `reason`.
    pub fn failed(reason: impl Into<String>) -> Self {
        AgentOutcome {
            ended: Ended::Failed(reason.into()),
            answer: String::new(),
            stdout: String::new(),
            stderr: String::new(),
            usage: None,
            tool_calls: Vec::new(),
            turns: None,
            tool_call_count: None,
            version: None,
            cannot_continue: None,
        }
    }

    /// An agent that cannot continue the conversation, for `reason`.
    pub(crate) fn unable_to_continue(reason: CannotContinue) -> Self {
        let text = reason.to_string();
        AgentOutcome {
            cannot_continue: Some(reason),
            ..AgentOutcome::failed(text)
        }
    }

    /// Whether it finished on its own with success.
    pub fn passed(&self) -> bool {
        self.ended.passed()
    }

    /// Why it failed; empty when it passed.
    pub fn reason(&self) -> &str {
        self.ended.reason()
    }
}

/// Why an agent cannot continue a conversation: the turn it could not take, and why (the
/// session of the turn before is unknown, say). The run names the agent and its version
/// after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CannotContinue {
    /// The turn it could not take.
    pub turn: u32,
    /// Why.
    pub why: String,
}

impl std::fmt::Display for CannotContinue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot continue the conversation (turn {}): {}",
            self.turn, self.why
        )
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

/// Agent runs for unit tests.
#[cfg(test)]
pub(crate) mod test_runs {
    use std::path::Path;

    use super::{AgentOutcome, AgentRun};

    /// The prompt `hi` in `dir` (its working and private directory), with `mcp_config` and
    /// `env`, no server, 5 s.
    pub(crate) fn in_dir<'a>(
        dir: &'a Path,
        mcp_config: &'a Path,
        env: &'a [(String, String)],
    ) -> AgentRun<'a> {
        AgentRun {
            prompt: "hi",
            servers: &[],
            mcp_config_file: mcp_config,
            work_dir: dir,
            private_dir: dir,
            env,
            live: false,
            timeout: std::time::Duration::from_secs(5),
        }
    }

    /// `agent`'s outcome when nothing is on PATH (an empty directory), no server, 5 s.
    pub(crate) async fn with_empty_path(
        agent: impl AsyncFnOnce(&AgentRun<'_>) -> AgentOutcome,
    ) -> AgentOutcome {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let env = [("PATH".to_owned(), dir.path().display().to_string())];
        let (config, private) = (dir.path().join("m.json"), dir.path().join("c"));
        let run = AgentRun {
            private_dir: &private,
            ..in_dir(dir.path(), &config, &env)
        };
        agent(&run).await
    }
}
