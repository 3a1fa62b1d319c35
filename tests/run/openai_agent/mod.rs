//! The builtin llm-agent with an `openai:` model end to end: our test MCP server behind real recording proxies,
//! and a fake OpenAI Chat Completions API scripted per test.

use crate::support;

use std::time::Duration;

use mcpeval::agent::ProxiedServer;
use mcpeval::agent::llm_agent::{LlmAgentOptions, LlmAgentRun, run_llm_agent};
use mcpeval::llm::{ApiClient, ApiKey, OpenAiConfig, Provider, RetryPolicy};
use mcpeval::proxy::CallRecorder;
use serde_json::Value;
use support::fake_openai::FakeOpenAi;
use support::setup::Proxied;

mod api;
mod tools;

pub(super) const KEY: &str = "sk-test-secret-key";

pub(super) fn client(base_url: &str, timeout: Duration) -> ApiClient {
    let mut config = OpenAiConfig::new(base_url, ApiKey::new(KEY));
    config.timeout = timeout;
    config.retry = RetryPolicy {
        max_retries: 4,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
    };
    ApiClient::new(Provider::OpenAi, config, "").unwrap()
}

pub(super) fn options() -> LlmAgentOptions {
    LlmAgentOptions::new(Provider::OpenAi, "m")
}

pub(super) fn server(name: &str, setup: &Proxied, allowed: &[&str]) -> ProxiedServer {
    ProxiedServer {
        name: name.into(),
        url: setup.proxy.url().to_owned(),
        allowed_tools: allowed.iter().map(|t| t.to_string()).collect(),
    }
}

pub(super) async fn run_with(
    fake: &FakeOpenAi,
    servers: &[ProxiedServer],
    max_steps: u32,
) -> LlmAgentRun {
    let options = LlmAgentOptions {
        max_steps,
        ..LlmAgentOptions::new(Provider::OpenAi, "gpt-test")
    };
    let llm = client(&fake.base_url, Duration::from_secs(10));
    run_llm_agent(&options, "Do the task.", servers, &llm).await
}

/// The recorded tool calls: (name, arguments, outcome).
pub(super) fn calls(recorder: &CallRecorder) -> Vec<(String, Value, &'static str)> {
    recorder
        .trace()
        .calls
        .into_iter()
        .map(|c| {
            let label = c.outcome.label();
            (c.name, c.arguments.unwrap_or(Value::Null), label)
        })
        .collect()
}

pub(super) fn call(
    name: &str,
    arguments: Value,
    outcome: &'static str,
) -> (String, Value, &'static str) {
    (name.to_owned(), arguments, outcome)
}

pub(super) fn offered(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["function"]["name"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// The `role: tool` messages of a request: (tool_call_id, content).
pub(super) fn tool_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or("").to_owned(),
                m["content"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}
