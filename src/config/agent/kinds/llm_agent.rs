//! `builtin.llm-agent` (with its deprecated aliases `openai-agent` and `openai-acp`):
//! mcpeval's own agent loop over the API of the model's provider (`crate::agent::llm_agent`),
//! and its `provider:model` strings.

use super::{BuiltinKind, KindId, VersionSource};
use crate::config::files::error::did_you_mean;
use crate::llm::Provider;

pub(super) const KIND: BuiltinKind = BuiltinKind {
    id: KindId::LlmAgent,
    name: "llm-agent",
    aliases: &["openai-agent", "openai-acp"],
    // The model's provider decides the API.
    provider: None,
    llm: None,
    needs_tool_list: false,
    program: None,
    version: VersionSource::Mcpeval,
    counts_turns: true,
    skills: None,
};

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
