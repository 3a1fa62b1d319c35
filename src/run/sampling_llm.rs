//! The judge model as the servers' sampling model: when a task's `sampling` rule says
//! `llm: judge`, an LLM proxy in front of the eval's judge API (recording into and
//! replaying from the cassette's `sampling` section) and a [`Sampler`] through it, for the
//! run's MCP proxies.

use std::sync::Arc;

use crate::config::{AgentLlm, Eval};
use crate::llm::Sampler;
use crate::llm_proxy::LlmApi;
use crate::run::llm_phase::{LlmTarget, StartedProxy, start_llm_proxy};
use crate::run::report::{LlmClient, RunOptions};
use crate::steps::resolve_judge;
use crate::user::ScriptedModel;

/// The judge model of a run's sampling rules and the LLM proxy its calls go through.
pub(crate) struct SamplingLlm {
    /// The LLM proxy, finished once the run's MCP proxies are shut down.
    pub proxy: StartedProxy,
    /// What the MCP proxies ask.
    pub sampler: Arc<Sampler>,
}

/// Starts the judge model for `model`'s rules when one of them says `llm: judge`; an
/// error naming the rule when the eval has no judge, or naming the variables the judge
/// needs that are not set.
pub(crate) fn start_sampling_llm(
    eval: &Eval,
    model: Option<&ScriptedModel>,
    target: &LlmTarget<'_>,
    options: &RunOptions,
) -> Result<Option<SamplingLlm>, String> {
    let Some(rule) = model.and_then(ScriptedModel::judge_rule) else {
        return Ok(None);
    };
    let Some(config) = &eval.llm_judge else {
        return Err(format!(
            "{}.llm: `judge` answers with the eval's judge model, and the eval has no config.llmJudge",
            rule.key_path
        ));
    };
    let llm = AgentLlm {
        api: LlmApi::OpenAiChat,
        base_url_env: config.base_url_var().to_owned(),
    };
    let key_vars = config.api_key_vars();
    let proxy = start_llm_proxy(LlmClient::Sampling, eval, &llm, &key_vars, target, options)?;
    let lookup = |name: &str| {
        (proxy.env.iter().rev())
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
            .or_else(|| options.var(name))
    };
    let settings =
        resolve_judge(config, &lookup).map_err(|why| format!("{}.llm: {why}", rule.key_path))?;
    let client = settings.client()?;
    Ok(Some(SamplingLlm {
        proxy,
        sampler: Arc::new(Sampler::new(Box::new(client), settings.model)),
    }))
}
