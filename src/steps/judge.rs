//! `llmJudge` steps: an OpenAI-compatible Chat Completions API judges whether the agent's
//! answer semantically contains the expected text (`contains`) or is equivalent to it
//! (`exact`), and returns a structured verdict `{passed, reason}`.
//! The API is reached through the crate's one LLM client ([`crate::llm`]); the API key
//! never appears in a reason, an output or a `Debug` rendering.

use crate::plumbing::ended::Ended;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{Phase, StepContext, StepResult};
use crate::config::{JudgeConfig, JudgeStep};
use crate::llm::{
    ApiClient, ApiKey, ChatClient, DEFAULT_OPENAI_BASE_URL, OpenAiConfig, Provider, RetryPolicy,
};
use crate::plumbing::text::shorten;

/// How much of an unexpected reply a reason quotes.
const QUOTE_LIMIT: usize = 300;

/// The LLM judge of a run: where its API is, its key and its model, read from the
/// environment variables that the eval's `config.llmJudge.env` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeSettings {
    /// Base URL of an OpenAI-compatible API, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer <api_key>`; never shown.
    pub api_key: ApiKey,
    /// The model that judges.
    pub model: String,
}

impl JudgeSettings {
    /// The client that asks the judge: two retries, half a second apart at first.
    pub(crate) fn client(&self) -> Result<ApiClient, String> {
        let mut config = OpenAiConfig::new(self.base_url.clone(), self.api_key.clone());
        config.name = "the judge API";
        config.retry = RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(500),
            ..RetryPolicy::default()
        };
        ApiClient::new(Provider::OpenAi, config, "").map_err(|e| e.to_string())
    }
}

/// Reads the judge's settings through `lookup` (the process environment in a real run):
/// from the variables that `config.llmJudge.env` names, or for a `ref` to the llm-agent from
/// the openai agent's variables. An unset variable that has no default is an error naming
/// every such variable and what it is for.
pub fn resolve_judge(
    config: &JudgeConfig,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<JudgeSettings, String> {
    let value = |name: &str| {
        lookup(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let mut missing = Vec::new();
    let settings = match config {
        JudgeConfig::Env {
            base_url_key,
            api_key_key,
            model_name_key,
        } => {
            let mut read = |name: &str, what: &str, key: &str| {
                value(name).unwrap_or_else(|| {
                    missing.push(format!("{name} ({what}, config.llmJudge.env.{key})"));
                    String::new()
                })
            };
            JudgeSettings {
                base_url: read(base_url_key, "base URL", "baseUrlKey"),
                api_key: ApiKey::new(read(api_key_key, "API key", "apiKeyKey")),
                model: read(model_name_key, "model name", "modelNameKey"),
            }
        }
        JudgeConfig::Model(model) => JudgeSettings {
            base_url: value("OPENAI_BASE_URL")
                .or_else(|| value("MODEL_BASE_URL"))
                .unwrap_or_else(|| DEFAULT_OPENAI_BASE_URL.to_owned()),
            api_key: ApiKey::new(
                value("OPENAI_API_KEY")
                    .or_else(|| value("MODEL_KEY"))
                    .unwrap_or_else(|| {
                        missing.push(
                            "OPENAI_API_KEY (API key of the judge's config.llmJudge.ref)".into(),
                        );
                        String::new()
                    }),
            ),
            model: model.clone(),
        },
    };
    if missing.is_empty() {
        Ok(settings)
    } else {
        Err(format!(
            "the LLM judge needs environment variables that are not set: {}",
            missing.join(", ")
        ))
    }
}

pub(super) async fn run_judge(
    phase: Phase,
    index: usize,
    step: &JudgeStep,
    context: &StepContext,
) -> StepResult {
    let (mode, expected) = match step {
        JudgeStep::Contains(text) => ("contains", text),
        JudgeStep::Exact(text) => ("exact", text),
    };
    let label = format!(
        "{}[{index}] llmJudge {mode} {:?}",
        phase.name(),
        shorten(expected, 60)
    );
    let mut result = StepResult::new(label, false);
    let Some(settings) = &context.judge else {
        result.fail("no LLM judge is configured: set config.llmJudge in the eval file".to_owned());
        return result;
    };
    let Some(answer) = &context.agent_output else {
        result
            .fail("there is no agent answer to judge (llmJudge steps belong in verify)".to_owned());
        return result;
    };
    let request = judge_request(&settings.model, step, &context.prompt, answer);
    let verdict = ask(settings, &request).await.and_then(|content| {
        parse_verdict(&content).ok_or_else(|| {
            format!(
                "the judge's reply is not a verdict: {:?}",
                shorten(&content, QUOTE_LIMIT)
            )
        })
    });
    match verdict {
        Ok(verdict) => {
            result.output = format!(
                "judge {}: {}: {}",
                settings.model,
                if verdict.passed { "yes" } else { "no" },
                verdict.reason
            );
            result.ended = match verdict.passed {
                true => Ended::Passed,
                false => Ended::Failed(format!("the judge says no: {}", verdict.reason)),
            };
        }
        Err(reason) => result.fail(settings.api_key.redact(&reason)),
    }
    result
}

/// The Chat Completions request body that asks for a verdict.
fn judge_request(model: &str, step: &JudgeStep, task: &str, answer: &str) -> Value {
    let (criterion, expected) = match step {
        JudgeStep::Contains(text) => (
            "CONTAINS: the answer passes when it conveys all of the information in the \
             reference, in any wording or format. Extra information that does not contradict \
             the reference is fine. It fails when core information is missing or contradicted.",
            text,
        ),
        JudgeStep::Exact(text) => (
            "EXACT: the answer passes when it means the same as the reference; rephrasing is \
             fine. It fails when it leaves out information, adds information (even correct \
             information) or means something else.",
            text,
        ),
    };
    let system = format!(
        "You judge an AI agent's answer to a task against a reference answer by meaning, \
         not by wording.\nCriterion: {criterion}\nReply with a JSON object only: \
         {{\"passed\": true or false, \"reason\": \"one or two sentences on why\"}}."
    );
    let user = format!(
        "<task>\n{task}\n</task>\n\n<reference>\n{expected}\n</reference>\n\n\
         <answer>\n{answer}\n</answer>\n\nDoes the answer pass the criterion?"
    );
    json!({
        "model": model,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "verdict",
                "strict": true,
                "schema": {
                    "type": "object",
                    "properties": {
                        "passed": {"type": "boolean"},
                        "reason": {"type": "string"},
                    },
                    "required": ["passed", "reason"],
                    "additionalProperties": false,
                },
            },
        },
    })
}

/// Asks the judge once (with the client's retries) and returns the text of the first
/// choice's message.
async fn ask(settings: &JudgeSettings, request: &Value) -> Result<String, String> {
    let client = settings.client()?;
    let reply = client.complete(request).await.map_err(|e| e.to_string())?;
    match reply
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
    {
        Some(content) => Ok(content.to_owned()),
        None => Err(format!(
            "the judge API's answer has no message content: {:?}",
            shorten(&reply.to_string(), QUOTE_LIMIT)
        )),
    }
}

/// The judge's verdict.
#[derive(Debug, Deserialize)]
struct JudgeVerdict {
    passed: bool,
    #[serde(default)]
    reason: String,
}

/// The verdict in a reply: a JSON object, also inside ```json fences or other text.
fn parse_verdict(content: &str) -> Option<JudgeVerdict> {
    let text = content.trim();
    if let Ok(verdict) = serde_json::from_str(text) {
        return Some(verdict);
    }
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    serde_json::from_str(text.get(start..=end)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_found_in_plain_fenced_and_chatty_replies() {
        let plain = parse_verdict(r#"{"passed": true, "reason": "ok"}"#);
        assert!(plain.is_some_and(|v| v.passed && v.reason == "ok"));
        let fenced = parse_verdict("```json\n{\"passed\": false, \"reason\": \"no\"}\n```");
        assert!(fenced.is_some_and(|v| !v.passed && v.reason == "no"));
        let chatty = parse_verdict("Sure! {\"passed\": true, \"reason\": \"r\"} Hope it helps");
        assert!(chatty.is_some_and(|v| v.passed));
        assert!(parse_verdict("yes, it passes").is_none());
        assert!(parse_verdict(r#"{"verdict": "yes"}"#).is_none());
    }

    #[test]
    fn settings_debug_hides_the_key() {
        let settings = JudgeSettings {
            base_url: "http://x".into(),
            api_key: ApiKey::new("sk-secret"),
            model: "m".into(),
        };
        assert!(!format!("{settings:?}").contains("sk-secret"));
    }
}
