//! One run of an agent: the runner of its kind (for a builtin agent, the one match over
//! [`KindId`] outside `config/agent/kinds/`; the compiler names it when a kind is added).

use super::acp;
use super::claude::run_claude_code;
use super::codex::run_codex;
use super::contract::{AgentOutcome, AgentRun};
use super::file::run_file_agent;
use super::gemini_cli::run_gemini_cli;
use crate::config::{Agent, KindId};

/// Runs `agent` once. Never panics: an agent that cannot start, fails or times out is an
/// [`AgentOutcome`] that says so.
pub async fn run_agent(agent: &Agent, run: &AgentRun<'_>) -> AgentOutcome {
    match agent {
        Agent::Builtin(builtin) => {
            let model = builtin.model.as_deref();
            match builtin.kind {
                KindId::ClaudeCode => run_claude_code(model, run).await,
                KindId::Codex => run_codex(model, run).await,
                KindId::GeminiCli => run_gemini_cli(model, run).await,
                KindId::LlmAgent => {
                    let model = model.unwrap_or_default();
                    super::llm_agent::run_llm_agent_for(builtin.provider, model, run).await
                }
            }
        }
        Agent::Command(command) => run_file_agent(command, run).await,
        Agent::Acp(acp) => acp::run_acp_agent(acp, run).await,
    }
}
