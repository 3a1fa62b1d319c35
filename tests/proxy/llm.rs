//! The LLM record/replay proxy end to end, offline: a fake LLM API on loopback plays the
//! live upstream while recording; replay runs with the upstream URL pointing at a closed
//! port and no API key.

use crate::support::fake_llm;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use fake_llm::{FakeLlm, Reply};
use mcpeval::llm_proxy::{
    LlmApi, LlmProxy, LlmProxyConfig, LlmProxyError, LlmProxyOutcome, ModeUsed, PathMask,
    RecordMode, Secret,
};
use serde_json::{Value, json};

const KEY: &str = "sk-test-llm-proxy-key-0123456789";
const TEST_NAME: &str = "llm_proxy::case";

/// The machine-specific parts of an agent's requests.
#[derive(Clone)]
struct Machine {
    cwd: String,
    home: String,
    date: (&'static str, &'static str),
}

fn machine() -> Machine {
    Machine {
        cwd: "/tmp/run-a/.tmpWorkAbc".into(),
        home: "/tmp/run-a/home".into(),
        date: ("2026-11-23", "Monday, November 23, 2026"),
    }
}

fn other_machine() -> Machine {
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

fn script() -> Vec<Reply> {
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
fn conversation(api: LlmApi, stream: bool, machine: &Machine, result: &str) -> [Value; 2] {
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

fn config(
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
fn closed_port() -> String {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

/// What the agent received.
#[derive(Debug, PartialEq)]
struct Answer {
    status: u16,
    content_type: Option<String>,
    body: String,
}

impl Answer {
    /// The SSE events as `(event, data)`, data parsed when it is JSON.
    fn events(&self) -> Vec<(Option<String>, Value)> {
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

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.body))
    }
}

async fn send(
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
async fn run(
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
async fn record(
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

fn cassette_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("cassettes/eval__task.json")
}

#[tokio::test]
async fn each_api_replays_what_it_recorded_streaming_and_not() {
    for api in LlmApi::ALL {
        for stream in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let cassette = cassette_in(&dir);
            let (recorded, outcome) = record(api, stream, &cassette, RecordMode::Once).await;
            let case = format!("{api} stream={stream}");
            assert_eq!(
                (outcome.used, outcome.recorded),
                (ModeUsed::Recorded, 2),
                "{case}"
            );
            assert!(
                recorded.iter().all(|a| a.status == 200),
                "{case}: {recorded:?}"
            );
            let text = std::fs::read_to_string(&cassette).unwrap();
            assert!(!text.contains(KEY), "{case}: the key is in the cassette");

            let requests = conversation(api, stream, &machine(), "5");
            let replay = config(api, &closed_port(), &cassette, RecordMode::None, &machine());
            let (replayed, outcome) = run(replay, stream, &requests, None).await;
            let outcome = outcome.unwrap();
            assert_eq!(
                (outcome.used, outcome.replayed),
                (ModeUsed::Replayed, 2),
                "{case}"
            );
            assert_eq!(outcome.failure(), None, "{case}");
            for (recorded, replayed) in recorded.iter().zip(&replayed) {
                assert_eq!(replayed.status, recorded.status, "{case}");
                assert_eq!(replayed.content_type, recorded.content_type, "{case}");
                if stream {
                    assert_eq!(replayed.events(), recorded.events(), "{case}");
                    assert!(replayed.events().len() > 1, "{case}");
                } else {
                    assert_eq!(
                        replayed.body, recorded.body,
                        "{case}: the same bytes of JSON"
                    );
                }
            }
        }
    }
}

#[tokio::test]
async fn opaque_fields_round_trip_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    record(LlmApi::Anthropic, false, &cassette, RecordMode::Once).await;
    let requests = conversation(LlmApi::Anthropic, false, &machine(), "5");
    let replay = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let (answers, _) = run(replay, false, &requests, None).await;
    assert_eq!(
        answers[0].json()["content"][0]["signature"],
        "EqQBCkYIBxgCKkD+/opaque=="
    );
}

#[tokio::test]
async fn another_work_dir_home_and_date_still_match() {
    for api in LlmApi::ALL {
        let dir = tempfile::tempdir().unwrap();
        let cassette = cassette_in(&dir);
        record(api, true, &cassette, RecordMode::Once).await;
        let elsewhere = other_machine();
        let requests = conversation(api, true, &elsewhere, "5");
        let replay = config(api, &closed_port(), &cassette, RecordMode::None, &elsewhere);
        let (_, outcome) = run(replay, true, &requests, None).await;
        let outcome = outcome.unwrap();
        assert_eq!(outcome.failure(), None, "{api}");
        assert_eq!(outcome.replayed, 2, "{api}");
    }
}

#[tokio::test]
async fn a_cassette_recorded_before_an_ignore_pattern_was_added_matches_with_it() {
    let api = LlmApi::Anthropic;
    let with_request_id = |id: &str| {
        conversation(api, false, &machine(), "5").map(|mut request| {
            request["messages"][0]["content"] = json!(format!("add 2 and 3 (request {id})"));
            request
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let fake = FakeLlm::start(script()).await;
    let recording = config(api, &fake.url, &cassette, RecordMode::Once, &machine());
    let (_, outcome) = run(recording, false, &with_request_id("r-111"), Some(KEY)).await;
    assert_eq!(outcome.unwrap().recorded, 2);
    assert!(
        std::fs::read_to_string(&cassette)
            .unwrap()
            .contains("r-111")
    );

    // The pattern comes later: the stored requests are normalised by it as well.
    let mut replay = config(api, &closed_port(), &cassette, RecordMode::None, &machine());
    replay.ignore = vec![regex::Regex::new(r"r-\d+").unwrap()];
    let (_, outcome) = run(replay, false, &with_request_id("r-222"), None).await;
    let outcome = outcome.unwrap();
    assert_eq!(outcome.failure(), None);
    assert_eq!(outcome.replayed, 2);
}

#[tokio::test]
async fn a_changed_tool_result_diverges_and_shows_both_texts() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    record(LlmApi::Anthropic, true, &cassette, RecordMode::Once).await;
    let requests = conversation(LlmApi::Anthropic, true, &machine(), "6");
    let replay = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let proxy = LlmProxy::start(replay).unwrap();
    let signal = proxy.divergence_signal();
    let first = send(
        proxy.base_url(),
        LlmApi::Anthropic,
        true,
        &requests[0],
        None,
    )
    .await;
    assert_eq!(first.status, 200);
    assert!(!signal.is_cancelled());
    let second = send(
        proxy.base_url(),
        LlmApi::Anthropic,
        true,
        &requests[1],
        None,
    )
    .await;
    assert_eq!(second.status, 403);
    assert!(signal.is_cancelled(), "the signal fires at the divergence");
    let error = second.json();
    assert_eq!(error["type"], "error");
    assert_eq!(error["error"]["type"], "permission_error");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("matches no recorded request")
    );

    let outcome = proxy.finish().await.unwrap();
    let message = outcome.failure().expect("the run fails");
    let expected = [
        "LLM request #2 (POST /v1/messages?beta=true) matches no recorded request".to_owned(),
        format!(
            "cassette {} (mode none): 2 interactions, 1 played",
            cassette.display()
        ),
        "agent test-agent/1.0 (recorded with test-agent/1.0)".to_owned(),
        "closest recording: #2 (3 conversation items, the first 2 the same)".to_owned(),
        "first difference at $.messages[2].content[0].content[0].text:".to_owned(),
        "recorded: \"5\"".to_owned(),
        "now:      \"6\"".to_owned(),
        "The MCP server's tool result differs from the recording.".to_owned(),
        "If intended, re-record: MCPEVAL_RECORD_MODE=all cargo test -- llm_proxy::case --exact"
            .to_owned(),
    ];
    for line in expected {
        assert!(message.contains(&line), "missing {line:?} in:\n{message}");
    }
    assert_eq!(outcome.divergence.unwrap().request_number, 2);
    assert_eq!(
        outcome.unplayed, None,
        "a divergence is the one failure reported"
    );
}

#[tokio::test]
async fn fewer_calls_than_recorded_fail_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    record(LlmApi::OpenAiChat, false, &cassette, RecordMode::Once).await;
    let requests = conversation(LlmApi::OpenAiChat, false, &machine(), "5");
    let replay = config(
        LlmApi::OpenAiChat,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let (_, outcome) = run(replay, false, &requests[..1], None).await;
    let outcome = outcome.unwrap();
    let message = outcome.failure().expect("the run fails");
    assert!(
        message.starts_with("the agent made fewer LLM calls than recorded: 1 of 2 played"),
        "{message}"
    );
    assert!(
        message.contains("first unplayed: #2 (POST /chat/completions)"),
        "{message}"
    );
    assert!(
        message.contains(&cassette.display().to_string()),
        "{message}"
    );
}

#[tokio::test]
async fn mode_none_without_a_cassette_names_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let config = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let error = LlmProxy::start(config).unwrap_err();
    assert!(matches!(error, LlmProxyError::CassetteMissing { .. }));
    let message = error.to_string();
    assert!(
        message.contains(&cassette.display().to_string()),
        "{message}"
    );
    assert!(
        message.contains("MCPEVAL_RECORD_MODE=once cargo test -- llm_proxy::case --exact"),
        "{message}"
    );
}

#[tokio::test]
async fn a_malformed_cassette_names_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    std::fs::create_dir_all(cassette.parent().unwrap()).unwrap();
    std::fs::write(&cassette, r#"{"version": 1, "meta": {"agent": "a", "api": "anthropic"}, "interactions": [{"seq": 1}]}"#).unwrap();
    let config = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let message = LlmProxy::start(config).unwrap_err().to_string();
    assert!(
        message.contains(&cassette.display().to_string()),
        "{message}"
    );
    assert!(
        message.contains("at interactions[0]: missing field `request`"),
        "{message}"
    );
}

#[tokio::test]
async fn once_records_when_missing_and_replays_when_present() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let (_, outcome) = record(LlmApi::Gemini, true, &cassette, RecordMode::Once).await;
    assert_eq!(outcome.used, ModeUsed::Recorded);
    let fake = FakeLlm::start(script()).await;
    let requests = conversation(LlmApi::Gemini, true, &machine(), "5");
    let again = config(
        LlmApi::Gemini,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let (_, outcome) = run(again, true, &requests, Some(KEY)).await;
    let outcome = outcome.unwrap();
    assert_eq!(
        (outcome.used, outcome.replayed, outcome.recorded),
        (ModeUsed::Replayed, 2, 0)
    );
    assert!(
        fake.seen().is_empty(),
        "replaying never contacts the upstream"
    );
}

#[tokio::test]
async fn new_episodes_replays_then_records_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let requests = conversation(LlmApi::Anthropic, false, &machine(), "5");
    let fake = FakeLlm::start(script()).await;
    let first_only = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    run(first_only, false, &requests[..1], Some(KEY))
        .await
        .1
        .unwrap();

    let fake = FakeLlm::start(vec![Reply::Text("The sum is 5.".into())]).await;
    let extend = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::NewEpisodes,
        &machine(),
    );
    let proxy = LlmProxy::start(extend).unwrap();
    let signal = proxy.divergence_signal();
    for request in &requests {
        let answer = send(
            proxy.base_url(),
            LlmApi::Anthropic,
            false,
            request,
            Some(KEY),
        )
        .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
    let outcome = proxy.finish().await.unwrap();
    assert_eq!(
        (outcome.used, outcome.replayed, outcome.recorded),
        (ModeUsed::Extended, 1, 1)
    );
    // Timed by their number in the cassette written: the replayed call took no time.
    let times: Vec<(usize, bool)> = (outcome.turn_times.iter())
        .map(|t| (t.seq, t.took.is_some()))
        .collect();
    assert_eq!(times, [(1, false), (2, true)]);
    assert!(outcome.turn_times[0].asked <= outcome.turn_times[1].asked);
    assert!(
        !signal.is_cancelled(),
        "new_episodes goes live instead of failing"
    );
    assert_eq!(outcome.failure(), None);
    assert_eq!(fake.seen().len(), 1, "only the new request went upstream");

    let replay = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let (answers, outcome) = run(replay, false, &requests, None).await;
    let outcome = outcome.unwrap();
    assert_eq!(outcome.replayed, 2);
    assert_eq!(answers[1].json()["content"][1]["text"], "The sum is 5.");
    let times: Vec<(usize, bool)> = (outcome.turn_times.iter())
        .map(|t| (t.seq, t.took.is_some()))
        .collect();
    assert_eq!(times, [(1, false), (2, false)]);
}

#[tokio::test]
async fn all_re_records() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    record(LlmApi::OpenAiResponses, false, &cassette, RecordMode::Once).await;
    let fake = FakeLlm::start(vec![
        Reply::ToolCall {
            name: "add".into(),
            args: json!({"a": 2, "b": 3}),
        },
        Reply::Text("Five.".into()),
    ])
    .await;
    let requests = conversation(LlmApi::OpenAiResponses, false, &machine(), "5");
    let again = config(
        LlmApi::OpenAiResponses,
        &fake.url,
        &cassette,
        RecordMode::All,
        &machine(),
    );
    let (answers, outcome) = run(again, false, &requests, Some(KEY)).await;
    assert_eq!(outcome.unwrap().used, ModeUsed::Recorded);
    assert_eq!(fake.seen().len(), 2);
    assert_eq!(
        answers[1].json()["output"][1]["content"][0]["text"],
        "Five."
    );
    assert!(
        std::fs::read_to_string(&cassette)
            .unwrap()
            .contains("Five.")
    );
}

#[tokio::test]
async fn passthrough_reads_and_writes_no_cassette() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let fake = FakeLlm::start(script()).await;
    let requests = conversation(LlmApi::OpenAiChat, true, &machine(), "5");
    let live = config(
        LlmApi::OpenAiChat,
        &fake.url,
        &cassette,
        RecordMode::Passthrough,
        &machine(),
    );
    let (answers, outcome) = run(live, true, &requests, Some(KEY)).await;
    let outcome = outcome.unwrap();
    assert_eq!(
        (outcome.used, outcome.passed_through),
        (ModeUsed::Passthrough, 2)
    );
    assert_eq!(answers[1].events().last().unwrap().1, json!("[DONE]"));
    assert!(!cassette.exists() && !cassette.parent().unwrap().exists());
    let seen = fake.seen();
    let auth = seen[0]
        .headers
        .get("authorization")
        .unwrap()
        .to_str()
        .unwrap();
    assert_eq!(auth, format!("Bearer {KEY}"), "headers pass through");
}

#[tokio::test]
async fn recording_the_same_conversation_twice_gives_the_same_file() {
    for api in LlmApi::ALL {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (
            dir.path().join("first.json"),
            dir.path().join("second.json"),
        );
        record(api, true, &first, RecordMode::All).await;
        record(api, true, &second, RecordMode::All).await;
        let first = std::fs::read(&first).unwrap();
        assert_eq!(first, std::fs::read(&second).unwrap(), "{api}");
    }
}

#[tokio::test]
async fn a_secret_in_the_recording_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let fake = FakeLlm::start(vec![Reply::Text(format!("your key is {KEY}"))]).await;
    let requests = conversation(LlmApi::Anthropic, false, &machine(), "5");
    let recording = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let (answers, outcome) = run(recording, false, &requests[..1], Some(KEY)).await;
    assert_eq!(answers[0].status, 200);
    let error = outcome.unwrap_err();
    assert!(matches!(error, LlmProxyError::SecretInCassette { .. }));
    let message = error.to_string();
    assert!(
        message.contains("the API key") && !message.contains(KEY),
        "{message}"
    );
    assert!(!format!("{error:?}").contains(KEY));
    assert!(!cassette.exists());
    assert_eq!(
        std::fs::read_dir(cassette.parent().unwrap())
            .map(|d| d.count())
            .unwrap_or(0),
        0
    );
}

#[tokio::test]
async fn other_paths_get_404_and_never_reach_the_upstream() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let fake = FakeLlm::start(script()).await;
    let recording = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let proxy = LlmProxy::start(recording).unwrap();
    let client = mcpeval::tls::client_builder().build().unwrap();
    let base = proxy.base_url().to_owned();
    let answers = [
        client
            .post(format!("{base}/api/event_logging/batch"))
            .body("{}")
            .send()
            .await
            .unwrap(),
        client
            .post(format!("{base}/v1/messages/count_tokens"))
            .body("{}")
            .send()
            .await
            .unwrap(),
        client
            .get(format!("{base}/v1/messages"))
            .send()
            .await
            .unwrap(),
    ];
    for answer in answers {
        assert_eq!(answer.status(), 404);
    }
    let outcome = proxy.finish().await.unwrap();
    assert!(fake.seen().is_empty());
    assert_eq!(
        outcome.refused,
        [
            "POST /api/event_logging/batch",
            "POST /v1/messages/count_tokens",
            "GET /v1/messages"
        ]
    );
}

#[tokio::test]
async fn requests_with_the_same_key_replay_in_recorded_order() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let overloaded =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let fake = FakeLlm::start(vec![
        Reply::Error(529, overloaded.clone()),
        Reply::Text("hi".into()),
    ])
    .await;
    let requests = conversation(LlmApi::Anthropic, false, &machine(), "5");
    let retried = [requests[0].clone(), requests[0].clone()];
    let recording = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let (recorded, _) = run(recording, false, &retried, Some(KEY)).await;
    assert_eq!((recorded[0].status, recorded[1].status), (529, 200));
    let replay = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let (replayed, outcome) = run(replay, false, &retried, None).await;
    assert_eq!(replayed, recorded);
    assert_eq!(replayed[0].json(), overloaded);
    assert_eq!(outcome.unwrap().failure(), None);
}

#[tokio::test]
async fn an_unreachable_upstream_is_answered_502_and_noted() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let requests = conversation(LlmApi::Gemini, false, &machine(), "5");
    let recording = config(
        LlmApi::Gemini,
        &closed_port(),
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let (answers, outcome) = run(recording, false, &requests[..1], Some(KEY)).await;
    assert_eq!(answers[0].status, 502);
    assert_eq!(answers[0].json()["error"]["status"], "UNAVAILABLE");
    let outcome = outcome.unwrap();
    assert_eq!(outcome.problems.len(), 2, "{:?}", outcome.problems);
    assert!(
        outcome.problems[0].contains("cannot reach the LLM API"),
        "{:?}",
        outcome.problems
    );
    assert!(!outcome.problems.concat().contains(KEY));
}

#[tokio::test]
async fn a_recorded_cassette_is_valid_against_the_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/cassette.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for api in LlmApi::ALL {
        for stream in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let cassette = cassette_in(&dir);
            record(api, stream, &cassette, RecordMode::Once).await;
            let file: Value =
                serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&file)
                .map(|e| format!("{e} at {}", e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{api} stream={stream}: {errors:#?}");
        }
    }
    let mut broken: Value = json!({"version": 1, "meta": {"agent": "a", "api": "anthropic"}, "interactions": [
        {"seq": 1, "request": {"method": "POST", "path": "/v1/messages", "key": "sha256:00", "normalized": {}},
         "response": {"status": 200, "json": {}, "text": "both"}}]});
    assert!(!validator.is_valid(&broken));
    broken["interactions"][0]["response"]["headers"] = json!({});
    assert!(!validator.is_valid(&broken));
}

#[tokio::test]
async fn a_stream_reaches_the_agent_as_it_arrives_and_is_recorded_whole() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let gate = std::sync::Arc::new(tokio::sync::Notify::new());
    let fake = FakeLlm::start(vec![Reply::Gated("slow".into(), gate.clone())]).await;
    let requests = conversation(LlmApi::Anthropic, true, &machine(), "5");
    let recording = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let proxy = LlmProxy::start(recording).unwrap();
    let url = format!("{}/v1/messages", proxy.base_url());
    let first_event = async {
        let mut response = mcpeval::tls::client_builder()
            .build()
            .unwrap()
            .post(url)
            .json(&requests[0])
            .send()
            .await
            .unwrap();
        let first = response.chunk().await.unwrap().unwrap();
        (response, first)
    };
    let (mut response, first) =
        tokio::time::timeout(std::time::Duration::from_secs(10), first_event)
            .await
            .expect("the first event arrives while the upstream holds the rest");
    assert!(String::from_utf8_lossy(&first).contains("message_start"));
    let held = std::time::Duration::from_millis(300);
    tokio::time::sleep(held).await;
    gate.notify_one();
    let mut rest = String::new();
    while let Some(chunk) = response.chunk().await.unwrap() {
        rest.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(rest.contains("message_stop"), "{rest}");
    let outcome = proxy.finish().await.unwrap();
    assert_eq!(outcome.recorded, 1);
    // The call's time runs to the stream's last byte, not to its first.
    let took = outcome.turn_times[0].took.expect("a live answer is timed");
    assert!(took >= held, "{took:?}");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    assert_eq!(
        file["interactions"][0]["response"]["sse"]
            .as_array()
            .unwrap()
            .len(),
        8
    );
}
