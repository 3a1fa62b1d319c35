//! One run of an agent: the runner of its kind.

use super::acp;
use super::claude::run_claude_code;
use super::codex::run_codex;
use super::contract::{AgentOutcome, AgentRun};
use super::file::run_file_agent;
use super::gemini_cli::run_gemini_cli;
use crate::config::Agent;

/// Runs `agent` once. Never panics: an agent that cannot start, fails or times out is an
/// [`AgentOutcome`] that says so.
pub async fn run_agent(agent: &Agent, run: &AgentRun<'_>) -> AgentOutcome {
    match agent {
        Agent::ClaudeCode { model, .. } => run_claude_code(model.as_deref(), run).await,
        Agent::Codex { model, .. } => run_codex(model.as_deref(), run).await,
        Agent::GeminiCli { model, .. } => run_gemini_cli(model.as_deref(), run).await,
        Agent::LlmAgent {
            provider, model, ..
        } => super::llm_agent::run_llm_agent_for(*provider, model, run).await,
        Agent::Command(command) => run_file_agent(command, run).await,
        Agent::Acp(acp) => acp::run_acp_agent(acp, run).await,
    }
}
