//! A builtin agent as an eval (`config.agent.type: builtin.…`) or an Agent file
//! (`builtin.type`) names it, validated into its [`Agent`]; what each kind is lives in
//! `kinds/`.

use super::definition::{Agent, AgentOptions, BuiltinAgent};
use super::kinds::{builtin_kind, builtin_names, llm_agent_model};
use crate::config::files::check::Checker;
use crate::config::files::error::did_you_mean;

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
    let Some(builtin) = builtin_kind(kind) else {
        let known: Vec<String> = builtin_names()
            .iter()
            .map(|t| format!("{prefix}{t}"))
            .collect();
        let other = format!("{prefix}{kind}");
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
        return None;
    };
    let model = model.filter(|m| !m.trim().is_empty());
    let (provider, model) = match (builtin.provider, model) {
        (Some(provider), model) => (provider, model),
        // The model's provider decides the API: a model is required.
        (None, None) => {
            check.error(
                keys.model,
                format!("{prefix}{kind} needs `model` (e.g. openai:gpt-4o)"),
            );
            return None;
        }
        (None, Some(model)) => match llm_agent_model(&model) {
            Ok((provider, model)) => (provider, Some(model)),
            Err(message) => {
                check.error(keys.model, message);
                return None;
            }
        },
    };
    Some(Agent::Builtin(BuiltinAgent {
        kind: builtin.id,
        model,
        provider,
        options: AgentOptions::default(),
    }))
}
