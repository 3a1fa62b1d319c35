//! mcpchecker's builtin agents, as an eval (`config.agent.type: builtin.…`) or an Agent
//! file (`builtin.type`) names them: `claude-code`, and `llm-agent` with its `provider:model`
//! strings and deprecated aliases.

use super::agent::{Agent, AgentOptions};
use super::check::Checker;
use super::error::did_you_mean;

/// The builtin agents of mcpchecker: `llm-agent` (with its deprecated aliases
/// `openai-agent` and `openai-acp`) and `claude-code`.
pub(super) const BUILTIN_TYPES: [&str; 4] =
    ["claude-code", "llm-agent", "openai-agent", "openai-acp"];

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
        "llm-agent" | "openai-agent" | "openai-acp" => {
            let Some(model) = model.filter(|m| !m.trim().is_empty()) else {
                check.error(
                    keys.model,
                    format!("{prefix}{kind} needs `model` (e.g. openai:gpt-4o)"),
                );
                return None;
            };
            match llm_agent_model(&model) {
                Ok(model) => Some(Agent::OpenAi {
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

/// The model of a `provider:model` string of mcpchecker's llm-agent (a bare name means
/// `openai:`). Only the openai provider runs today.
pub fn llm_agent_model(model: &str) -> Result<String, String> {
    let model = model.trim();
    let (provider, name) = model.split_once(':').unwrap_or(("openai", model));
    match provider {
        "openai" if !name.trim().is_empty() => Ok(name.trim().to_owned()),
        "openai" => Err(format!("`{model}` names no model after `openai:`")),
        "anthropic" | "gemini" | "google" => Err(format!(
            "the `{provider}` provider of builtin.llm-agent is not supported yet: mcpeval's llm-agent runs `openai:` models (an OpenAI-compatible Chat Completions API)"
        )),
        other => Err(format!(
            "unknown provider `{other}` in `{model}`; expected `provider:model` with provider openai (anthropic and gemini are not supported yet)"
        )),
    }
}
