//! The llm-agent with `anthropic:` and `gemini:` models through the whole harness
//! (`mcpeval check`), in front of the live demo server: recorded once against the fake LLM
//! API as the live upstream, then replayed with the fake stopped, the base URL pointing
//! nowhere and no key; an API that refuses, and a key that is not set, fail the task with
//! the status and the API's message.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};
use support::cli::files_under;
use support::fake_llm::{FakeLlm, Reply};

const KEY: &str = "sk-llm-agent-recording-key-0123456789";

/// A provider as the eval and its environment name it.
#[derive(Debug, Clone, Copy)]
struct Api {
    model: &'static str,
    base_url_var: &'static str,
    key_var: &'static str,
    key_header: &'static str,
}

const ANTHROPIC: Api = Api {
    model: "anthropic:claude-test",
    base_url_var: "ANTHROPIC_BASE_URL",
    key_var: "ANTHROPIC_API_KEY",
    key_header: "x-api-key",
};

const GEMINI: Api = Api {
    model: "gemini:gemini-test",
    base_url_var: "GOOGLE_GEMINI_BASE_URL",
    // mcpchecker's second choice: the harness must not hand over its placeholder as
    // GEMINI_API_KEY (which the agent prefers) when only this one is set.
    key_var: "GOOGLE_API_KEY",
    key_header: "x-goog-api-key",
};

/// A copy of tests/fixtures/llm-agent in a fresh directory, with `api`'s model.
fn eval_copy(api: Api) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llm-agent");
    std::fs::create_dir_all(dir.path().join("tasks")).unwrap();
    for file in ["mcp-config.yaml", "tasks/add.yaml"] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    let eval = std::fs::read_to_string(fixture.join("eval.yaml"))
        .unwrap()
        .replace("model: MODEL", &format!("model: '{}'", api.model));
    std::fs::write(dir.path().join("eval.yaml"), eval).unwrap();
    dir
}

/// Runs `llm::add` of the eval in `dir` with `mcpeval check`: against `live` (its URL, with
/// `key` when given) or against a closed port; `env` adds variables.
fn check(
    dir: &Path,
    output: &Path,
    api: Api,
    live: Option<&str>,
    key: Option<&str>,
    env: &[(&str, &str)],
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .arg("check")
        .arg(dir.join("eval.yaml"))
        .args(["--", "--exact", "llm::add"])
        .env("MCPEVAL_OUTPUT_DIR", output)
        .env("RUST_BACKTRACE", "0")
        .env_remove("CI")
        .env_remove("MCPEVAL_RECORD_MODE");
    for var in [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
    ] {
        command.env_remove(var);
    }
    let closed = closed_port_url();
    command.env(api.base_url_var, live.unwrap_or(&closed));
    if let Some(key) = key {
        command.env(api.key_var, key);
    }
    command.envs(env.iter().copied());
    command.output().unwrap()
}

fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn results_of(output: &Path) -> Value {
    let file = output.join("results/llm__add.json");
    serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap()
}

/// Records the add task against the fake API, checks what the results say, then replays it
/// twice with no API and no key.
async fn record_then_replay(api: Api) {
    let eval = eval_copy(api);
    let fake = FakeLlm::start(vec![
        Reply::ToolCall {
            name: "add".into(),
            args: json!({"a": 2, "b": 40}),
        },
        Reply::Text("The sum is 42.".into()),
    ])
    .await;
    let output = tempfile::tempdir().unwrap();
    let out = check(
        eval.path(),
        output.path(),
        api,
        Some(&fake.url),
        Some(KEY),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let recorded = results_of(output.path());
    assert_eq!(recorded["llmCalls"][0]["used"], "recorded", "{recorded:#}");
    assert_eq!(recorded["llmCalls"][0]["recorded"], 2, "{recorded:#}");
    assert_eq!(recorded["callHistory"]["toolCalls"][0]["name"], "add");
    assert_eq!(
        recorded["callHistory"]["toolCalls"][0]["arguments"],
        json!({"a": 2, "b": 40})
    );
    // What the agent reports.
    assert_eq!(recorded["agentName"], "llm-agent");
    assert_eq!(
        recorded["agentVersion"],
        format!("mcpeval {}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(recorded["taskOutput"], "The sum is 42.");
    assert_eq!(recorded["agentTurns"], 2, "{recorded:#}");
    assert_eq!(recorded["agentToolCalls"], 1, "{recorded:#}");
    assert_eq!(
        recorded["agentTokenUsage"],
        json!({"promptTokens": 20, "completionTokens": 10, "totalTokens": 30}),
        "{recorded:#}"
    );
    let violations = support::results_schema::violations(&recorded);
    assert!(violations.is_empty(), "{violations:#?}");
    let cassette = eval.path().join("cassettes/llm__add.json");
    assert!(cassette.is_file(), "{}", text(&out));
    // The key used while recording is in no file the run wrote.
    for file in files_under(eval.path())
        .into_iter()
        .chain(files_under(output.path()))
    {
        let bytes = std::fs::read(&file).unwrap();
        let found = bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes());
        assert!(!found, "the API key is in {}", file.display());
    }
    let seen = fake.seen();
    assert!(
        seen.iter().all(|request| request
            .headers
            .get(api.key_header)
            .is_some_and(|v| v == KEY)),
        "the API got the key from {}",
        api.key_var
    );
    let asked = seen.len();
    drop(fake);

    for _ in 0..2 {
        let output = tempfile::tempdir().unwrap();
        let out = check(
            eval.path(),
            output.path(),
            api,
            None,
            None,
            &[("CI", "true")],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let replayed = results_of(output.path());
        assert_eq!(replayed["llmCalls"][0]["used"], "replayed", "{replayed:#}");
        assert_eq!(replayed["llmCalls"][0]["replayed"], json!(asked));
        assert_eq!(
            replayed["callHistory"]["toolCalls"][0]["name"], "add",
            "the MCP server is called live: {replayed:#}"
        );
        assert_eq!(replayed["agentTurns"], 2);
        assert_eq!(replayed["agentToolCalls"], 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anthropic_model_is_recorded_then_replayed_without_api_or_key() {
    record_then_replay(ANTHROPIC).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gemini_model_is_recorded_then_replayed_without_api_or_key() {
    record_then_replay(GEMINI).await;
}

/// Runs the task live (no cassette) against an API that answers `status` with `body`;
/// the failure message and the results.
async fn refused(api: Api, key: Option<&str>, status: u16, body: Value) -> (String, Value) {
    let eval = eval_copy(api);
    let fake = FakeLlm::start(vec![Reply::Error(status, body)]).await;
    let output = tempfile::tempdir().unwrap();
    let out = check(
        eval.path(),
        output.path(),
        api,
        Some(&fake.url),
        key,
        &[("MCPEVAL_RECORD_MODE", "passthrough")],
    );
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    (text(&out), results_of(output.path()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_refusal_fails_the_task_with_the_status_and_the_message() {
    let anthropic = json!({"type": "error", "error": {"type": "authentication_error",
        "message": "invalid x-api-key"}});
    let gemini = json!({"error": {"code": 400, "status": "INVALID_ARGUMENT",
        "message": "API key not valid. Please pass a valid API key."}});
    for (api, status, body, words) in [
        (
            ANTHROPIC,
            401,
            anthropic,
            "the Anthropic API at http://127.0.0.1:",
        ),
        (GEMINI, 400, gemini, "the Gemini API at http://127.0.0.1:"),
    ] {
        let (message, results) = refused(api, Some(KEY), status, body).await;
        let expected = match status {
            401 => "answered 401 Unauthorized: invalid x-api-key",
            _ => "answered 400 Bad Request: API key not valid. Please pass a valid API key.",
        };
        assert!(message.contains(expected), "{}: {message}", api.model);
        assert!(message.contains(words), "{}: {message}", api.model);
        assert!(!message.contains(KEY), "{message}");
        assert_eq!(results["agentExecutionError"], true, "{results:#}");
        assert!(
            results["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r.as_str().unwrap_or("").contains(expected)),
            "{results:#}"
        );
        assert_eq!(results["agentTurns"], 0, "{results:#}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_key_fails_the_task_naming_the_variable_to_set() {
    for api in [ANTHROPIC, GEMINI] {
        let body = json!({"error": {"message": "missing or invalid API key"}});
        let (message, _) = refused(api, None, 401, body).await;
        assert!(
            message.contains(
                "answered 401 Unauthorized: missing or invalid API key (no API key is set"
            ),
            "{}: {message}",
            api.model
        );
        let vars = match api.key_header {
            "x-api-key" => "set ANTHROPIC_API_KEY",
            _ => "set GEMINI_API_KEY (or GOOGLE_API_KEY)",
        };
        assert!(message.contains(vars), "{}: {message}", api.model);
    }
}
