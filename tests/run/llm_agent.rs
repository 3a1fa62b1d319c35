//! The builtin llm-agent with `anthropic:` and `gemini:` models: our test MCP server behind
//! a real recording proxy, and the fake LLM API (`support/fake_llm.rs`) answering in each
//! API's own shape. What each API is sent (tools, tool results, the reply's own content
//! sent back), what the agent reports, and how refusals and missing keys fail the run.

use crate::support;

use std::time::Duration;

use mcpeval::agent::ProxiedServer;
use mcpeval::agent::llm_agent::{
    LlmAgentOptions, LlmAgentRun, run_llm_agent, run_llm_agent_from_env,
};
use mcpeval::llm::{ApiKey, LlmConfig, PLACEHOLDER_KEY, Provider, RetryPolicy, TokenUsage};
use mcpeval::proxy::CallRecorder;
use serde_json::{Value, json};
use support::fake_llm::{FakeLlm, Reply, Seen};
use support::setup::Proxied;

const KEY: &str = "sk-llm-agent-test-key-0123456789";

fn quick_retries() -> RetryPolicy {
    RetryPolicy {
        max_retries: 1,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
    }
}

fn model(provider: Provider) -> &'static str {
    match provider {
        Provider::Gemini => "gemini-test",
        _ => "claude-test",
    }
}

/// Runs the agent for `provider` against `fake` with our key and quick retries.
async fn run_against(provider: Provider, fake: &FakeLlm, servers: &[ProxiedServer]) -> LlmAgentRun {
    let mut config = LlmConfig::new(&fake.url, ApiKey::new(KEY));
    config.retry = quick_retries();
    let client = provider.client(config, model(provider)).unwrap();
    let options = LlmAgentOptions::new(provider, model(provider));
    run_llm_agent(&options, "Do the task.", servers, client.as_ref()).await
}

fn server(setup: &Proxied) -> ProxiedServer {
    ProxiedServer {
        name: "test".into(),
        url: setup.proxy.url().to_owned(),
        allowed_tools: vec!["echo".into(), "fail".into()],
    }
}

fn tool_call(name: &str, args: Value) -> Reply {
    Reply::ToolCall {
        name: name.into(),
        args,
    }
}

/// The recorded tool calls: (name, arguments, outcome).
fn calls(recorder: &CallRecorder) -> Vec<(String, Value, &'static str)> {
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

fn header<'a>(seen: &'a Seen, name: &str) -> Option<&'a str> {
    seen.headers.get(name).and_then(|v| v.to_str().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_tool_use_goes_through_the_proxy_and_comes_back_as_a_tool_result() {
    let setup = Proxied::start().await;
    let fake = FakeLlm::start(vec![
        tool_call("echo", json!({"text": "hi"})),
        Reply::Text("done".into()),
    ])
    .await;
    let run = run_against(Provider::Anthropic, &fake, &[server(&setup)]).await;

    assert!(run.passed(), "{}", run.reason());
    assert_eq!(
        (run.answer.as_str(), run.turns, run.tool_calls),
        ("done", 2, 1)
    );
    assert_eq!(run.usage, TokenUsage::new(20, 10, None));
    assert_eq!(
        calls(&setup.recorder),
        [("echo".to_owned(), json!({"text": "hi"}), "ok")]
    );
    let seen = fake.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].path, "/v1/messages");
    assert_eq!(header(&seen[0], "x-api-key"), Some(KEY));
    assert_eq!(header(&seen[0], "anthropic-version"), Some("2023-06-01"));
    assert!(header(&seen[0], "authorization").is_none());
    let first = &seen[0].body;
    assert_eq!(first["model"], "claude-test");
    assert_eq!(first["max_tokens"], 4096);
    assert_eq!(
        first["messages"],
        json!([{"role": "user", "content": "Do the task."}])
    );
    assert_eq!(
        first["tools"][0],
        json!({"name": "echo", "description": "Echoes its text",
            "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}}})
    );
    let second = &seen[1].body;
    // The reply's content (a thinking block with its signature, the tool_use) goes back
    // verbatim.
    let assistant = &second["messages"][1];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(
        assistant["content"][0]["signature"],
        "EqQBCkYIBxgCKkD+/opaque=="
    );
    assert_eq!(assistant["content"][1]["id"], "toolu_1");
    assert_eq!(
        second["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "echo: hi"}]})
    );
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_function_calls_go_through_the_proxy_and_come_back_as_function_responses() {
    let setup = Proxied::start().await;
    let fake = FakeLlm::start(vec![
        tool_call("echo", json!({"text": "hi"})),
        Reply::Text("done".into()),
    ])
    .await;
    let run = run_against(Provider::Gemini, &fake, &[server(&setup)]).await;

    assert!(run.passed(), "{}", run.reason());
    assert_eq!(
        (run.answer.as_str(), run.turns, run.tool_calls),
        ("done", 2, 1)
    );
    assert_eq!(run.usage, TokenUsage::new(20, 10, Some(30)));
    assert_eq!(
        calls(&setup.recorder),
        [("echo".to_owned(), json!({"text": "hi"}), "ok")]
    );
    let seen = fake.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].path, "/v1beta/models/gemini-test:generateContent");
    assert_eq!(header(&seen[0], "x-goog-api-key"), Some(KEY));
    let first = &seen[0].body;
    assert_eq!(
        first["contents"],
        json!([{"role": "user", "parts": [{"text": "Do the task."}]}])
    );
    assert_eq!(
        first["tools"],
        json!([{"functionDeclarations": [
            {"name": "echo", "description": "Echoes its text",
             "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}},
            {"name": "fail", "description": "Fails with isError",
             "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}}]}])
    );
    let second = &seen[1].body;
    // The model's parts go back verbatim, thoughtSignature included.
    assert_eq!(
        second["contents"][1],
        json!({"role": "model", "parts": [{"functionCall": {"name": "echo", "args": {"text": "hi"}},
            "thoughtSignature": "CiQBopaque=="}]})
    );
    assert_eq!(
        second["contents"][2],
        json!({"role": "user", "parts": [{"functionResponse":
            {"name": "echo", "response": {"result": "echo: hi"}}}]})
    );
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_tool_calls_are_fed_back_as_errors_in_each_api() {
    for provider in [Provider::Anthropic, Provider::Gemini] {
        let setup = Proxied::start().await;
        let fake = FakeLlm::start(vec![
            tool_call("fail", json!({})),
            tool_call("no_such_tool", json!({})),
            Reply::Text("I could not.".into()),
        ])
        .await;
        let run = run_against(provider, &fake, &[server(&setup)]).await;

        assert!(run.passed(), "{provider}: {}", run.reason());
        assert_eq!((run.turns, run.tool_calls), (3, 2), "{provider}");
        assert_eq!(
            calls(&setup.recorder),
            [("fail".to_owned(), json!({}), "is_error")]
        );
        let seen = fake.seen();
        let (failed, unknown) = match provider {
            Provider::Gemini => (
                seen[1].body["contents"][2]["parts"][0]["functionResponse"]["response"].clone(),
                seen[2].body["contents"][4]["parts"][0]["functionResponse"]["response"]["error"]
                    .clone(),
            ),
            _ => (
                seen[1].body["messages"][2]["content"][0].clone(),
                seen[2].body["messages"][4]["content"][0]["content"].clone(),
            ),
        };
        match provider {
            Provider::Gemini => assert_eq!(failed, json!({"error": "Error: it failed"})),
            _ => assert_eq!(
                failed,
                json!({"type": "tool_result", "tool_use_id": "toolu_1",
                    "content": "Error: it failed", "is_error": true})
            ),
        }
        let unknown = unknown.as_str().unwrap_or_default();
        assert!(
            unknown.starts_with("Error: there is no tool `no_such_tool`"),
            "{provider}: {unknown}"
        );
        setup.stop().await;
    }
}

/// Each API's error body for `status` with `message`.
fn api_error(provider: Provider, status: u16, message: &str) -> Reply {
    let body = match provider {
        Provider::Gemini => {
            json!({"error": {"code": status, "message": message, "status": "PERMISSION_DENIED"}})
        }
        _ => {
            json!({"type": "error", "error": {"type": "authentication_error", "message": message}})
        }
    };
    Reply::Error(status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_fails_the_run_with_the_status_and_the_api_message() {
    for provider in [Provider::Anthropic, Provider::Gemini] {
        let fake = FakeLlm::start(vec![
            api_error(provider, 401, "invalid x-api-key"),
            Reply::Text("never".into()),
        ])
        .await;
        let run = run_against(provider, &fake, &[]).await;

        assert!(!run.passed(), "{provider}");
        assert!(
            run.reason()
                .contains("answered 401 Unauthorized: invalid x-api-key"),
            "{provider}: {}",
            run.reason()
        );
        assert!(!run.reason().contains(KEY) && !run.log.contains(KEY));
        assert_eq!(fake.seen().len(), 1, "{provider}: a 401 is not retried");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_are_retried_then_named_with_the_api_message() {
    for provider in [Provider::Anthropic, Provider::Gemini] {
        let busy = || api_error(provider, 429, "rate limit reached for requests");
        let fake = FakeLlm::start(vec![busy(), Reply::Text("after a retry".into())]).await;
        let run = run_against(provider, &fake, &[]).await;
        assert!(run.passed(), "{provider}: {}", run.reason());
        assert_eq!(run.answer, "after a retry");

        let fake = FakeLlm::start(vec![busy(), busy(), busy()]).await;
        let run = run_against(provider, &fake, &[]).await;
        assert!(!run.passed(), "{provider}");
        assert!(
            run.reason()
                .contains("answered 429 Too Many Requests after 2 attempts: rate limit reached"),
            "{provider}: {}",
            run.reason()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_and_base_urls_come_from_mcpcheckers_variables() {
    let cases = [
        (
            Provider::Anthropic,
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_API_KEY",
            "x-api-key",
        ),
        (
            Provider::Gemini,
            "GOOGLE_GEMINI_BASE_URL",
            "GOOGLE_API_KEY",
            "x-goog-api-key",
        ),
        (
            Provider::Gemini,
            "GOOGLE_GEMINI_BASE_URL",
            "GEMINI_API_KEY",
            "x-goog-api-key",
        ),
    ];
    for (provider, base_var, key_var, header_name) in cases {
        let fake = FakeLlm::start(vec![Reply::Text("from env".into())]).await;
        let url = fake.url.clone();
        let env = move |name: &str| {
            (name == base_var)
                .then(|| url.clone())
                .or_else(|| (name == key_var).then(|| "sk-from-env".to_owned()))
        };
        let options = LlmAgentOptions::new(provider, model(provider));
        let run = run_llm_agent_from_env(&options, "p", &[], env).await;
        assert!(run.passed(), "{key_var}: {}", run.reason());
        assert_eq!(
            header(&fake.seen()[0], header_name),
            Some("sk-from-env"),
            "{key_var}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_key_fails_the_run_naming_the_variables() {
    for (provider, words) in [
        (
            Provider::Anthropic,
            "no API key for the Anthropic API: set ANTHROPIC_API_KEY",
        ),
        (
            Provider::Gemini,
            "no API key for the Gemini API: set GEMINI_API_KEY (or GOOGLE_API_KEY)",
        ),
    ] {
        let options = LlmAgentOptions::new(provider, model(provider));
        let run = run_llm_agent_from_env(&options, "p", &[], |_| None).await;
        assert!(!run.passed());
        assert!(run.reason().contains(words), "{provider}: {}", run.reason());
        assert_eq!(run.turns, 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_placeholder_key_says_which_variable_to_set() {
    // What the harness hands an agent when no key is set, refused by a live API.
    let fake = FakeLlm::start(vec![api_error(
        Provider::Anthropic,
        401,
        "invalid x-api-key",
    )])
    .await;
    let url = fake.url.clone();
    let env = move |name: &str| match name {
        "ANTHROPIC_BASE_URL" => Some(url.clone()),
        "ANTHROPIC_API_KEY" => Some(PLACEHOLDER_KEY.to_owned()),
        _ => None,
    };
    let options = LlmAgentOptions::new(Provider::Anthropic, "claude-test");
    let run = run_llm_agent_from_env(&options, "p", &[], env).await;
    assert!(!run.passed());
    assert!(
        run.reason()
            .contains("invalid x-api-key (no API key is set")
            && run.reason().contains("set ANTHROPIC_API_KEY"),
        "{}",
        run.reason()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_replies_name_the_api_and_the_problem() {
    for (provider, reply, words) in [
        (
            Provider::Anthropic,
            json!({"id": "msg_1", "type": "message"}),
            "the Anthropic API sent a malformed reply: it has no `content` array",
        ),
        (
            Provider::Gemini,
            json!({"promptFeedback": {"blockReason": "SAFETY"}}),
            "the Gemini API sent a malformed reply: it has no candidates: the prompt was blocked (SAFETY)",
        ),
    ] {
        let fake = FakeLlm::start(vec![Reply::Raw(reply)]).await;
        let run = run_against(provider, &fake, &[]).await;
        assert!(!run.passed());
        assert!(run.reason().contains(words), "{provider}: {}", run.reason());
    }
}
