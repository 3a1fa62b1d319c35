//! mcpchecker's builtin agents, as an eval (`config.agent.type: builtin.…`) or an Agent
//! file (`builtin.type`) names them: `claude-code`, and `llm-agent` with its `provider:model`
//! strings and deprecated aliases; and mcpeval's own `codex` and `gemini-cli` (mcpchecker
//! runs those through Agent files).

use super::definition::{Agent, AgentOptions};
use crate::config::files::check::Checker;
use crate::config::files::error::did_you_mean;
use crate::llm::Provider;

/// One builtin agent kind, described once: the lists and lookups over the kinds (the names
/// an error offers, whether a model is required, the key variable `mcpeval init` names, the
/// program its workflow installs) derive from [`BUILTINS`].
pub(crate) struct BuiltinKind {
    /// Its name after `builtin.`.
    pub name: &'static str,
    /// Deprecated names that mean it too.
    pub aliases: &'static [&'static str],
    /// The API its program talks to; `None`: the model's `provider:` decides (and a model is
    /// required).
    pub provider: Option<Provider>,
    /// Its program's npm package at the version mcpeval is tested with
    /// (.ci/install-peers.sh); `None`: mcpeval runs it itself. Read by `mcpeval init`.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub npm_package: Option<&'static str>,
}

/// The builtin agents: mcpchecker's `claude-code` and `llm-agent` (with its deprecated
/// aliases `openai-agent` and `openai-acp`); mcpeval's `codex` and `gemini-cli`.
pub(crate) const BUILTINS: [BuiltinKind; 4] = [
    BuiltinKind {
        name: "claude-code",
        aliases: &[],
        provider: Some(Provider::Anthropic),
        npm_package: Some("@anthropic-ai/claude-code@2.1.330"),
    },
    BuiltinKind {
        name: "llm-agent",
        aliases: &["openai-agent", "openai-acp"],
        provider: None,
        npm_package: None,
    },
    BuiltinKind {
        name: "codex",
        aliases: &[],
        provider: Some(Provider::OpenAi),
        npm_package: Some("@openai/codex@0.169.0"),
    },
    BuiltinKind {
        name: "gemini-cli",
        aliases: &[],
        provider: Some(Provider::Gemini),
        npm_package: Some("@google/gemini-cli@0.61.0"),
    },
];

/// The builtin kind named `name` (or one of its aliases).
pub(crate) fn builtin_kind(name: &str) -> Option<&'static BuiltinKind> {
    BUILTINS
        .iter()
        .find(|kind| kind.name == name || kind.aliases.contains(&name))
}

/// Every name a builtin agent is written with, aliases after their kind.
pub(crate) fn builtin_names() -> Vec<&'static str> {
    BUILTINS
        .iter()
        .flat_map(|kind| std::iter::once(kind.name).chain(kind.aliases.iter().copied()))
        .collect()
}

/// The variable that holds the API key of builtin agent `name` with `model`: its API's first
/// key variable, the model's provider deciding for `llm-agent`.
pub fn key_variable(name: &str, model: Option<&str>) -> Option<&'static str> {
    let provider = match builtin_kind(name)?.provider {
        Some(provider) => provider,
        None => llm_agent_model(model?).ok()?.0,
    };
    provider.key_vars().first().copied()
}

/// Where a builtin agent is written: the keys of its type and model, and how its type is
/// spelled there (`builtin.` in an eval file, nothing in an Agent file's `builtin.type`).
pub(in crate::config) struct BuiltinKeys<'a> {
    pub kind: &'a str,
    pub model: &'a str,
    pub prefix: &'a str,
}

/// The builtin agent `kind` (without `builtin.`) with its `model`.
pub(in crate::config) fn builtin_agent(
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
            let known: Vec<String> = builtin_names()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_alias_is_listed_once_and_finds_its_kind() {
        let names = builtin_names();
        assert_eq!(
            names,
            [
                "claude-code",
                "llm-agent",
                "openai-agent",
                "openai-acp",
                "codex",
                "gemini-cli"
            ]
        );
        assert_eq!(
            builtin_kind("openai-acp").map(|k| k.name),
            Some("llm-agent")
        );
        assert!(builtin_kind("claude").is_none());
    }

    #[test]
    fn the_key_variable_is_the_apis_and_the_models_for_llm_agent() {
        assert_eq!(key_variable("claude-code", None), Some("ANTHROPIC_API_KEY"));
        assert_eq!(key_variable("codex", Some("o4")), Some("OPENAI_API_KEY"));
        assert_eq!(key_variable("gemini-cli", None), Some("GEMINI_API_KEY"));
        assert_eq!(
            key_variable("llm-agent", Some("gemini:m")),
            Some("GEMINI_API_KEY")
        );
        assert_eq!(
            key_variable("openai-agent", Some("gpt-4o")),
            Some("OPENAI_API_KEY")
        );
        assert_eq!(key_variable("llm-agent", None), None);
        assert_eq!(key_variable("nope", None), None);
    }
}
