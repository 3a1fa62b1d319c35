//! Agents: what works a task's prompt through the proxied MCP servers.

pub mod acp;
mod claude;
mod cli;
mod codex;
mod command_line;
pub(crate) mod contract;
mod dispatch;
mod file;
mod gemini_cli;
pub mod llm_agent;
mod shell;
mod skills;
mod version;

pub use crate::plumbing::ended::Ended;
pub use claude::{ClaudeResult, allowed_tool_names, parse_stream_json, run_claude_code};
pub use cli::package_dir;
pub use codex::{CODEX_PACKAGE, CodexResult, codex_config, parse_codex_events, run_codex};
pub use command_line::CommandLine;
pub use contract::{AgentOutcome, AgentRun, ProxiedServer, write_agent_mcp_config};
pub use dispatch::run_agent;
pub use file::{render_command, run_file_agent};
pub use gemini_cli::{
    GEMINI_CLI_PACKAGE, GeminiResult, gemini_settings, parse_gemini_events, run_gemini_cli,
};
pub(crate) use shell::pinned_shell;
pub use skills::mount_skills;
pub use version::{agent_version, builtin_version, program_install_dir, program_version};

#[cfg(test)]
pub(crate) use contract::test_runs;
