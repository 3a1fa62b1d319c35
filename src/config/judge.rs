//! The LLM judge of `llmJudge` steps (`config.llmJudge`): mcpchecker's `ref` to an
//! llm-agent, or its deprecated `env` form naming the variables of endpoint, key and model.

use serde::Deserialize;

use super::agent::definition::{Agent, BuiltinAgent};
use super::agent::file::RawAgentRef;
use super::agent::kinds::KindId;
use super::files::check::Checker;
use crate::llm::Provider;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawJudgeConfig {
    env: Option<RawJudgeEnv>,
    #[serde(rename = "ref")]
    agent_ref: Option<RawAgentRef>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawJudgeEnv {
    base_url_key: Option<String>,
    api_key_key: Option<String>,
    model_name_key: Option<String>,
}

/// The LLM judge of `llmJudge` steps: an OpenAI-compatible Chat Completions API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JudgeConfig {
    /// `env` (mcpchecker's deprecated form): the variables that hold the judge's endpoint,
    /// key and model.
    Env {
        /// Name of the variable holding the base URL.
        base_url_key: String,
        /// Name of the variable holding the API key.
        api_key_key: String,
        /// Name of the variable holding the model name.
        model_name_key: String,
    },
    /// `ref` to a `builtin.llm-agent` (directly or through an Agent file): this model, at
    /// `OPENAI_BASE_URL` (or `MODEL_BASE_URL`, else the public API) with `OPENAI_API_KEY`
    /// (or `MODEL_KEY`), as the openai agent.
    Model(String),
}

impl JudgeConfig {
    /// The variable that carries the judge's base URL.
    pub fn base_url_var(&self) -> &str {
        match self {
            JudgeConfig::Env { base_url_key, .. } => base_url_key,
            JudgeConfig::Model(_) => "OPENAI_BASE_URL",
        }
    }

    /// The variables that may carry its API key, in order.
    pub fn api_key_vars(&self) -> Vec<&str> {
        match self {
            JudgeConfig::Env { api_key_key, .. } => vec![api_key_key],
            JudgeConfig::Model(_) => vec!["OPENAI_API_KEY", "MODEL_KEY"],
        }
    }
}

impl RawJudgeConfig {
    /// Validates `config.llmJudge`: exactly one of `ref` and `env`.
    pub(super) fn validate(self, check: &mut Checker<'_>) -> Option<JudgeConfig> {
        let path = "config.llmJudge";
        match (self.env, self.agent_ref) {
            (Some(_), Some(_)) => {
                check.error(
                    path,
                    "both `env` and `ref` are set; expected one (`ref` is mcpchecker's current form)",
                );
                None
            }
            (None, Some(agent_ref)) => judge_of_ref(check, agent_ref),
            (Some(env), None) => env.validate(check),
            (None, None) => {
                check.error(
                    path,
                    "expected `ref: {type: builtin.llm-agent, model: openai:<model>}` or `env: {baseUrlKey, apiKeyKey, modelNameKey}`",
                );
                None
            }
        }
    }
}

impl RawJudgeEnv {
    fn validate(self, check: &mut Checker<'_>) -> Option<JudgeConfig> {
        let mut key = |name: &str, value: Option<String>| {
            check
                .non_empty(&format!("config.llmJudge.env.{name}"), value.as_deref())
                .map(str::to_owned)
        };
        let base_url_key = key("baseUrlKey", self.base_url_key);
        let api_key_key = key("apiKeyKey", self.api_key_key);
        let model_name_key = key("modelNameKey", self.model_name_key);
        Some(JudgeConfig::Env {
            base_url_key: base_url_key?,
            api_key_key: api_key_key?,
            model_name_key: model_name_key?,
        })
    }
}

/// `llmJudge.ref`: an agent reference whose agent is the openai llm-agent (directly, or
/// an Agent file naming it); other agents cannot judge yet.
fn judge_of_ref(check: &mut Checker<'_>, agent_ref: RawAgentRef) -> Option<JudgeConfig> {
    match agent_ref.validate_at(check, "config.llmJudge.ref")? {
        Agent::Builtin(BuiltinAgent {
            kind: KindId::LlmAgent,
            provider: Provider::OpenAi,
            model: Some(model),
            ..
        }) => Some(JudgeConfig::Model(model)),
        Agent::Builtin(BuiltinAgent {
            kind: KindId::LlmAgent,
            provider,
            ..
        }) => {
            check.error(
                "config.llmJudge.ref.model",
                format!(
                    "a judge with the `{provider}` provider is not supported yet: the judge speaks an OpenAI-compatible Chat Completions API (an `openai:` model)"
                ),
            );
            None
        }
        other => {
            check.error(
                "config.llmJudge.ref",
                format!(
                    "the judge must be a builtin.llm-agent with an `openai:` model; `{}` cannot judge yet",
                    other.name()
                ),
            );
            None
        }
    }
}
