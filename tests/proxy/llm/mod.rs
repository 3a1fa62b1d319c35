//! The LLM record/replay proxy end to end, offline: a fake LLM API on loopback plays the
//! live upstream while recording; replay runs with the upstream URL pointing at a closed
//! port and no API key.

use crate::support::fake_llm;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use fake_llm::{FakeLlm, Reply};
use mcpeval::llm_proxy::{
    LlmApi, LlmProxy, LlmProxyConfig, LlmProxyError, LlmProxyOutcome, PathMask, RecordMode, Secret,
};
use serde_json::{Value, json};

mod failures;
mod modes;
mod recording;
mod replay;

pub(super) const KEY: &str = "sk-test-llm-proxy-key-0123456789";
const TEST_NAME: &str = "llm_proxy::case";

/// The machine-specific parts of an agent's requests.
#[derive(Clone)]
pub(super) struct Machine {
    cwd: String,
    home: String,
    date: (&'static str, &'static str),
}

pub(super) fn machine() -> Machine {
    Machine {
        cwd: "/tmp/run-a/.tmpWorkAbc".into(),
        home: "/tmp/run-a/home".into(),
        date: ("2026-11-23", "Monday, November 23, 2026"),
    }
}

pub(super) fn other_machine() -> Machine {
    Machine {
        cwd: "/var/tmp/other/.tmpWorkXyz".into(),
        home: "/home/someone-else".into(),
        date: ("2026-11-26", "Thursday, November 26, 2026"),
    }
}

/// A value that differs on every call, like the ids agents make up.
fn volatile() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1_763_900_000_000);
    NEXT.fetch_add(7919, Ordering::Relaxed)
}

pub(super) fn script() -> Vec<Reply> {
    vec![
        Reply::ToolCall {
            name: "add".into(),
            args: json!({"a": 2, "b": 3}),
        },
        Reply::Text("The sum is 5.".into()),
    ]
}

/// The two requests of a conversation that calls `add` once: the prompt, then the tool
/// result `result`.
pub(super) fn conversation(
    api: LlmApi,
    stream: bool,
    machine: &Machine,
    result: &str,
) -> [Value; 2] {
    let Machine { cwd, home, date } = machine;
    let system = format!(
        "You are an agent.\nWorking directory: {cwd}\nMemory: {home}/.agent\nToday's date is {}.",
        date.0
    );
    match api {
        LlmApi::Anthropic => {
            let first = json!({"model": "claude-test", "max_tokens": 1000, "stream": stream,
                "metadata": {"user_id": format!("device-{}", volatile())},
                "system": [{"type": "text", "text": format!("cc_version=2.1.330.{:x}", volatile() % 4096)}, {"type": "text", "text": system}],
                "tools": [{"name": "add", "description": "Adds two numbers", "input_schema": {"type": "object"}}],
                "messages": [{"role": "user", "content": "add 2 and 3"}]});
            let mut second = first.clone();
            second["messages"].as_array_mut().unwrap().extend([
                json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "add them", "signature": "EqQBCkYIBxgCKkD+/opaque=="},
                    {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}}]}),
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": result}]}]}),
            ]);
            [first, second]
        }
        LlmApi::OpenAiChat => {
            let first = json!({"model": "gpt-test", "stream": stream,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": "add 2 and 3"}],
                "tools": [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]});
            let mut second = first.clone();
            second["messages"].as_array_mut().unwrap().extend([
                json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                    "function": {"name": "add", "arguments": "{\"a\":2,\"b\":3}"}}]}),
                json!({"role": "tool", "tool_call_id": "call_1", "content": result}),
            ]);
            [first, second]
        }
        LlmApi::OpenAiResponses => {
            let first = json!({"model": "gpt-test", "stream": stream, "instructions": system,
                "prompt_cache_key": format!("{}", volatile()), "client_metadata": {"installation_id": format!("{}", volatile())},
                "input": [{"type": "message", "id": format!("msg_{}", volatile()), "role": "user",
                    "content": [{"type": "input_text", "text": "add 2 and 3"}]}],
                "tools": [{"type": "function", "name": "add", "parameters": {"type": "object"}}]});
            let mut second = first.clone();
            second["input"].as_array_mut().unwrap().extend([
                json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAABopaque-reasoning=="}),
                json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add", "arguments": "{\"a\":2,\"b\":3}"}),
                json!({"type": "function_call_output", "id": format!("fco_{}", volatile()), "call_id": "call_1",
                    "output": format!("Wall time: 0.{} seconds\nOutput:\n{result}", volatile() % 1000)}),
            ]);
            [first, second]
        }
        LlmApi::Gemini => {
            let call_id = format!("mcp_srv_add_{}_0", volatile());
            let first = json!({"systemInstruction": {"parts": [{"text": format!("{system}\nToday is {}.", date.1)}]},
                "contents": [{"role": "user", "parts": [{"text": "add 2 and 3"}]}],
                "tools": [{"functionDeclarations": [{"name": "add", "parameters": {"type": "object"}}]}]});
            let mut second = first.clone();
            second["contents"].as_array_mut().unwrap().extend([
                json!({"role": "model", "parts": [{"functionCall": {"id": call_id, "name": "add", "args": {"a": 2, "b": 3}}, "thoughtSignature": "CiQBopaque=="}]}),
                json!({"role": "user", "parts": [{"functionResponse": {"id": call_id, "name": "add", "response": {"content": [{"type": "text", "text": result}]}}}]}),
            ]);
            [first, second]
        }
    }
}

/// `(the path of the upstream base URL, the request path after it)`.
fn route(api: LlmApi, stream: bool) -> (&'static str, &'static str) {
    match (api, stream) {
        (LlmApi::Anthropic, _) => ("", "/v1/messages?beta=true"),
        (LlmApi::OpenAiChat, _) => ("/v1", "/chat/completions"),
        (LlmApi::OpenAiResponses, _) => ("/v1", "/responses"),
        (LlmApi::Gemini, true) => (
            "",
            "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
        ),
        (LlmApi::Gemini, false) => ("", "/v1beta/models/gemini-test:generateContent"),
    }
}

pub(super) fn config(
    api: LlmApi,
    upstream: &str,
    cassette: &Path,
    mode: RecordMode,
    machine: &Machine,
) -> LlmProxyConfig {
    let mut config = LlmProxyConfig::new(api, cassette, TEST_NAME);
    config.upstream_base_url = format!("{upstream}{}", route(api, false).0);
    config.mode = mode;
    config.paths = vec![
        PathMask::new("CWD", &machine.cwd),
        PathMask::new("HOME", &machine.home),
    ];
    config.secrets = vec![Secret::new("the API key", KEY)];
    config.agent = "test-agent".into();
    config
}

/// A URL where nothing listens.
pub(super) fn closed_port() -> String {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

/// What the agent received.
#[derive(Debug, PartialEq)]
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) content_type: Option<String>,
    pub(super) body: String,
}

impl Answer {
    /// The SSE events as `(event, data)`, data parsed when it is JSON.
    pub(super) fn events(&self) -> Vec<(Option<String>, Value)> {
        self.body
            .replace("\r\n", "\n")
            .split("\n\n")
            .filter(|block| !block.trim().is_empty())
            .map(|block| {
                let mut event = None;
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(name) = line.strip_prefix("event: ") {
                        event = Some(name.to_owned());
                    } else if let Some(text) = line.strip_prefix("data: ") {
                        data.push_str(text);
                    }
                }
                let data = serde_json::from_str(&data).unwrap_or(Value::String(data));
                (event, data)
            })
            .collect()
    }

    pub(super) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.body))
    }
}

pub(super) async fn send(
    proxy_url: &str,
    api: LlmApi,
    stream: bool,
    body: &Value,
    key: Option<&str>,
) -> Answer {
    let mut url = format!("{proxy_url}{}", route(api, stream).1);
    if let (LlmApi::Gemini, Some(key)) = (api, key) {
        url.push_str(if url.contains('?') { "&key=" } else { "?key=" });
        url.push_str(key);
    }
    let mut request = mcpeval::tls::client_builder()
        .build()
        .unwrap()
        .post(&url)
        .header("user-agent", "test-agent/1.0 (linux; x64)");
    if let Some(key) = key {
        request = match api {
            LlmApi::Anthropic => request.header("x-api-key", key),
            LlmApi::OpenAiChat | LlmApi::OpenAiResponses => request.bearer_auth(key),
            LlmApi::Gemini => request.header("x-goog-api-key", key),
        };
    }
    let response = request.json(body).send().await.expect("the proxy answers");
    Answer {
        status: response.status().as_u16(),
        content_type: response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned()),
        body: response.text().await.unwrap(),
    }
}

/// Runs `requests` through a proxy started with `config`, in order; the agent sends the
/// API key only when `key` is set.
pub(super) async fn run(
    config: LlmProxyConfig,
    stream: bool,
    requests: &[Value],
    key: Option<&str>,
) -> (Vec<Answer>, Result<LlmProxyOutcome, LlmProxyError>) {
    let api = config.api;
    let proxy = LlmProxy::start(config).expect("the proxy starts");
    let mut answers = Vec::new();
    for request in requests {
        answers.push(send(proxy.base_url(), api, stream, request, key).await);
    }
    (answers, proxy.finish().await)
}

/// Records `conversation` through the proxy against a fake upstream, in mode `mode`.
pub(super) async fn record(
    api: LlmApi,
    stream: bool,
    cassette: &Path,
    mode: RecordMode,
) -> (Vec<Answer>, LlmProxyOutcome) {
    let fake = FakeLlm::start(script()).await;
    let requests = conversation(api, stream, &machine(), "5");
    let (answers, outcome) = run(
        config(api, &fake.url, cassette, mode, &machine()),
        stream,
        &requests,
        Some(KEY),
    )
    .await;
    (answers, outcome.expect("recording succeeds"))
}

pub(super) fn cassette_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("cassettes/eval__task.json")
}
