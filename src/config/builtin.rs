//! mcpchecker's builtin agents, as an eval (`config.agent.type: builtin.…`) or an Agent
//! file (`builtin.type`) names them: `claude-code`, and `llm-agent` with its `provider:model`
//! strings and deprecated aliases; and mcpeval's own `codex` and `gemini-cli` (mcpchecker
//! runs those through Agent files).

use super::agent::{Agent, AgentOptions};
use super::check::Checker;
use super::error::did_you_mean;
use crate::llm::Provider;

/// The builtin agents: mcpchecker's `llm-agent` (with its deprecated aliases
/// `openai-agent` and `openai-acp`) and `claude-code`; mcpeval's `codex` and `gemini-cli`.
pub(crate) const BUILTIN_TYPES: [&str; 6] = [
    "claude-code",
    "llm-agent",
    "openai-agent",
    "openai-acp",
    "codex",
    "gemini-cli",
];

/// Where a builtin agent is written: the keys of its type and model, and how its type is
/// spelled there (`builtin.` in an eval file, nothing in an Agent file's `builtin.type`).
pub(super) struct BuiltinKeys<'a> {
    pub kind: &'a str,
    pub model: &'a str,
    pub prefix: &'a str,
}

/// The builtin agent `kind` (without `builtin.`) with its `model`.
pub(super) fn builtin_agent(
    check: &mut Checker<'_>,
    keys: &BuiltinKeys<'_>,
    kind: &str,
    model: Option<String>,
) -> Option<Agent> {
    let prefix = keys.prefix;
    match kind {
        "claude-code" => Some(Agent::ClaudeCode {
            model,
            options: AgentOptions::default(),
        }),
        "codex" => Some(Agent::Codex {
            model: model.filter(|m| !m.trim().is_empty()),
            options: AgentOptions::default(),
        }),
        "gemini-cli" => Some(Agent::GeminiCli {
            model: model.filter(|m| !m.trim().is_empty()),
            options: AgentOptions::default(),
        }),
        "llm-agent" | "openai-agent" | "openai-acp" => {
            let Some(model) = model.filter(|m| !m.trim().is_empty()) else {
                check.error(
                    keys.model,
                    format!("{prefix}{kind} needs `model` (e.g. openai:gpt-4o)"),
                );
                return None;
            };
            match llm_agent_model(&model) {
                Ok((provider, model)) => Some(Agent::LlmAgent {
                    provider,
                    model,
                    options: AgentOptions::default(),
                }),
                Err(message) => {
                    check.error(keys.model, message);
                    None
                }
            }
        }
        other => {
            let known: Vec<String> = BUILTIN_TYPES
                .iter()
                .map(|t| format!("{prefix}{t}"))
                .collect();
            let other = format!("{prefix}{other}");
            check.error(
                keys.kind,
                format!(
                    "unknown {} `{other}`; expected one of {}{}",
                    if prefix.is_empty() {
                        "builtin agent"
                    } else {
                        "agent type"
                    },
                    known.join(", "),
                    did_you_mean(&other, known.iter().map(String::as_str))
                ),
            );
            None
        }
    }
}

/// The provider and model of a `provider:model` string of mcpchecker's llm-agent: `openai`,
/// `anthropic`, `gemini` or `google` (the same as `gemini`); a bare name means `openai:`.
pub fn llm_agent_model(model: &str) -> Result<(Provider, String), String> {
    let model = model.trim();
    let (name, rest) = model.split_once(':').unwrap_or(("openai", model));
    let Some(provider) = Provider::parse(name) else {
        return Err(format!(
            "unknown provider `{name}` in `{model}`; expected `provider:model` with provider openai, anthropic, gemini or google{}",
            did_you_mean(name, ["openai", "anthropic", "gemini", "google"])
        ));
    };
    match rest.trim() {
        "" => Err(format!("`{model}` names no model after `{name}:`")),
        rest => Ok((provider, rest.to_owned())),
    }
}
