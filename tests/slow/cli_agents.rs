//! builtin.codex and builtin.gemini-cli through the whole harness: the real Codex CLI
//! (`@openai/codex@0.169.0`) and Gemini CLI (`@google/gemini-cli@0.61.0`), installed into
//! `.peers/` by `.ci/install-peers.sh`, against our fake LLM API (`support/fake_llm.rs`:
//! the OpenAI Responses API, Gemini's streamGenerateContent) in front of our demo server;
//! recorded, then replayed with no key and no API; refused by the API; hanging; missing.

use crate::support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::fake_llm::{FakeLlm, Reply};

const FIXTURE: &str = "tests/fixtures/cli-agents";
/// A key that must never reach a cassette, a results file or a message.
const KEY: &str = "sk-cli-agents-secret-key-0123456789";
/// The fake model's answer, which the task's verify step expects.
const ANSWER: &str = "User 1 is Ada Lovelace.";

/// One of the two programs, as its eval, its API and its fake script see it.
#[derive(Debug, Clone, Copy)]
struct Program {
    /// The eval (`<eval>.yaml` in the fixture) and the agent's name.
    eval: &'static str,
    /// The command in `.peers/node_modules/.bin`.
    bin: &'static str,
    /// The npm package.
    package: &'static str,
    /// What the results file's `agentVersion` says.
    version: &'static str,
    /// The variables of its API's base URL and key.
    base_url_var: &'static str,
    key_var: &'static str,
    /// What the fake's URL needs appended to be the API's base URL.
    base_path: &'static str,
}

const CODEX: Program = Program {
    eval: "codex",
    bin: "codex",
    package: "@openai/codex",
    version: "codex-cli 0.169.0",
    base_url_var: "OPENAI_BASE_URL",
    key_var: "OPENAI_API_KEY",
    base_path: "/v1",
};

const GEMINI: Program = Program {
    eval: "gemini-cli",
    bin: "gemini",
    package: "@google/gemini-cli",
    version: "@google/gemini-cli 0.61.0",
    base_url_var: "GOOGLE_GEMINI_BASE_URL",
    key_var: "GEMINI_API_KEY",
    base_path: "",
};

impl Program {
    /// The model calls the demo server's `lookup_user("1")`, then answers.
    fn lookup_script(self) -> Vec<Reply> {
        let args = json!({"id": "1"});
        let call = match self.eval {
            "codex" => Reply::NamespacedCall {
                namespace: "mcp__demo".into(),
                name: "lookup_user".into(),
                args,
            },
            _ => Reply::ToolCall {
                name: "mcp_demo_lookup_user".into(),
                args,
            },
        };
        vec![call, Reply::Text(ANSWER.into())]
    }

    /// The API's 401 answer to a bad key, in its own shape.
    fn refusal(self) -> Reply {
        let body = match self.eval {
            "codex" => json!({"error": {"message": "Incorrect API key provided: sk-cl***",
                "type": "invalid_request_error", "code": "invalid_api_key"}}),
            _ => {
                json!({"error": {"code": 401, "message": "API key not valid. Please pass a valid API key.",
                "status": "UNAUTHENTICATED"}})
            }
        };
        Reply::Error(401, body)
    }

    /// The MCP tools the model was offered in `request` (Codex: the `mcp__demo`
    /// namespace's; Gemini CLI: the `mcp_demo_` functions).
    fn offered_tools(self, request: &Value) -> Vec<String> {
        let tools = request["tools"].as_array().into_iter().flatten();
        let names: Vec<&Value> = match self.eval {
            "codex" => tools
                .filter(|tool| tool["name"] == "mcp__demo")
                .flat_map(|tool| tool["tools"].as_array().into_iter().flatten())
                .map(|tool| &tool["name"])
                .collect(),
            _ => tools
                .flat_map(|tool| {
                    tool["functionDeclarations"]
                        .as_array()
                        .into_iter()
                        .flatten()
                })
                .map(|function| &function["name"])
                .filter(|name| name.as_str().is_some_and(|n| n.starts_with("mcp_demo_")))
                .collect(),
        };
        names
            .into_iter()
            .filter_map(|name| name.as_str().map(str::to_owned))
            .collect()
    }
}

/// Where the program's LLM calls go.
enum Llm<'a> {
    /// The fake API, with the key.
    Live(&'a FakeLlm),
    /// A closed port and no key (replaying needs neither).
    Nowhere,
}

/// What one `mcpeval check` left.
struct Run {
    code: Option<i32>,
    text: String,
    result: Value,
    took: Duration,
    /// What the run left in the user's HOME (a fresh directory): nothing, the programs get
    /// private ones.
    home_left: Vec<String>,
}

impl Run {
    fn message(&self) -> &str {
        self.result["failureMessage"].as_str().unwrap_or("")
    }
}

/// `PATH` with the installed program's directory first, or `None` when it is not installed
/// (see `support::peers::require`).
fn path_with(program: Program) -> Option<String> {
    let bin = support::peers::require(&format!("node_modules/.bin/{}", program.bin))?;
    let dir = bin.parent().expect("the program has a directory");
    Some(format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    ))
}

/// Runs the task `task` of the program's eval in `dir` with `mcpeval check` (`PATH` as
/// given, the record mode `mode`), writing into `output`.
async fn check(
    program: Program,
    dir: &Path,
    output: &Path,
    task: &str,
    path: &str,
    llm: Llm<'_>,
    mode: &str,
) -> Run {
    let home = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .env("HOME", home.path())
        .arg("check")
        .arg(dir.join(format!("{}.yaml", program.eval)))
        .args(["--", "--exact", &format!("{}::{task}", program.eval)])
        .env("PATH", path)
        .env("MCPEVAL_OUTPUT_DIR", output)
        .env("MCPEVAL_RECORD_MODE", mode)
        .env("RUST_BACKTRACE", "0")
        .env_remove("CI");
    for var in [
        "OPENAI_API_KEY",
        "MODEL_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
    ] {
        command.env_remove(var);
    }
    match llm {
        Llm::Live(api) => command
            .env(
                program.base_url_var,
                format!("{}{}", api.url, program.base_path),
            )
            .env(program.key_var, KEY),
        Llm::Nowhere => command.env(program.base_url_var, closed_port_url()),
    };
    let started = Instant::now();
    let out = command.output().await.expect("run mcpeval check");
    let took = started.elapsed();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let file = output
        .join("results")
        .join(format!("{}__{task}.json", program.eval));
    let result = std::fs::read_to_string(&file)
        .map(|text| serde_json::from_str(&text).expect("the results file is JSON"))
        .unwrap_or_else(|e| panic!("no results file {}: {e}\n{text}", file.display()));
    let home_left = std::fs::read_dir(home.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    Run {
        code: out.status.code(),
        text,
        result,
        took,
        home_left,
    }
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)
}

/// A copy of the fixture in a fresh directory (recording writes cassettes beside the eval).
fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::support::files::copy_tree(&fixture(), dir.path());
    dir
}

fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

/// The processes whose environment mentions `needle` (a run's own directory).
fn processes_mentioning(needle: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|entry| {
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            String::from_utf8_lossy(&environ)
                .contains(needle)
                .then(|| std::fs::read_to_string(entry.path().join("cmdline")).unwrap_or_default())
        })
        .map(|cmdline| cmdline.replace('\0', " "))
        .collect()
}

async fn works_the_task_and_reports_what_it_knows(program: Program) {
    let Some(path) = path_with(program) else {
        return;
    };
    let api = FakeLlm::start(program.lookup_script()).await;
    let output = tempfile::tempdir().unwrap();
    let run = check(
        program,
        &fixture(),
        output.path(),
        "lookup",
        &path,
        Llm::Live(&api),
        "passthrough",
    )
    .await;
    assert_eq!(run.code, Some(0), "{}", run.text);
    let result = &run.result;
    assert_eq!(result["taskOutput"], ANSWER, "{result:#}");
    assert_eq!(result["agentName"], program.eval, "{result:#}");
    assert_eq!(result["agentVersion"], program.version, "{result:#}");
    assert_eq!(result["agentTurns"], 2, "{result:#}");
    assert_eq!(result["agentToolCalls"], 1, "{result:#}");
    // The fake answers 10 input and 5 output tokens per request.
    assert_eq!(
        result["agentTokenUsage"],
        json!({"promptTokens": 20, "completionTokens": 10, "totalTokens": 30}),
        "{result:#}"
    );
    let calls = &result["callHistory"]["toolCalls"];
    assert_eq!(calls.as_array().map(Vec::len), Some(1), "{result:#}");
    assert_eq!(calls[0]["name"], "lookup_user", "{result:#}");
    let errors = support::results_schema::violations(result);
    assert!(errors.is_empty(), "{errors:#?}\n{result:#}");

    let seen = api.seen();
    assert_eq!(seen.len(), 2, "{seen:#?}");
    // Only the allowed tools were offered, and the tool's result went back to the model.
    assert_eq!(
        program.offered_tools(&seen[0].body),
        ["echo", "lookup_user"].map(|tool| match program.eval {
            "codex" => tool.to_owned(),
            _ => format!("mcp_demo_{tool}"),
        })
    );
    let second = seen[1].body.to_string();
    assert!(second.contains("user 1: Ada Lovelace"), "{second}");
    assert!(!run.text.contains(KEY) && !result.to_string().contains(KEY));
    assert!(
        run.home_left.is_empty(),
        "HOME touched: {:?}",
        run.home_left
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_works_the_task_through_the_demo_server_and_reports_what_it_knows() {
    works_the_task_and_reports_what_it_knows(CODEX).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_works_the_task_through_the_demo_server_and_reports_what_it_knows() {
    works_the_task_and_reports_what_it_knows(GEMINI).await;
}

async fn recorded_once_replays_offline_without_a_key(program: Program) {
    let Some(path) = path_with(program) else {
        return;
    };
    let eval = fixture_copy();
    let api = FakeLlm::start(program.lookup_script()).await;
    let output = tempfile::tempdir().unwrap();
    let recorded = check(
        program,
        eval.path(),
        output.path(),
        "lookup",
        &path,
        Llm::Live(&api),
        "all",
    )
    .await;
    assert_eq!(recorded.code, Some(0), "{}", recorded.text);
    assert_eq!(recorded.result["llmCalls"][0]["used"], "recorded");
    let cassette = eval
        .path()
        .join(format!("cassettes/{}__lookup.json", program.eval));
    let text = std::fs::read_to_string(&cassette).expect("the cassette was written");
    assert!(!text.contains(KEY), "the key reached the cassette");
    assert!(
        !text.contains(".peers/node_modules"),
        "the install path reached the cassette"
    );
    drop(api);

    let output = tempfile::tempdir().unwrap();
    let replayed = check(
        program,
        eval.path(),
        output.path(),
        "lookup",
        &path,
        Llm::Nowhere,
        "none",
    )
    .await;
    assert_eq!(replayed.code, Some(0), "{}", replayed.text);
    let result = &replayed.result;
    assert_eq!(result["llmCalls"][0]["used"], "replayed", "{result:#}");
    assert_eq!(result["llmCalls"][0]["replayed"], 2, "{result:#}");
    assert_eq!(result["taskOutput"], ANSWER, "{result:#}");
    assert_eq!(result["agentTurns"], 2, "{result:#}");
    assert_eq!(
        result["callHistory"]["toolCalls"][0]["name"], "lookup_user",
        "{result:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_recorded_once_replays_offline_without_a_key() {
    recorded_once_replays_offline_without_a_key(CODEX).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_recorded_once_replays_offline_without_a_key() {
    recorded_once_replays_offline_without_a_key(GEMINI).await;
}

async fn an_api_refusal_fails_the_task_with_status_and_message(program: Program, said: &str) {
    let Some(path) = path_with(program) else {
        return;
    };
    // Codex retries five times; every attempt is refused.
    let api = FakeLlm::start(vec![program.refusal(); 8]).await;
    let output = tempfile::tempdir().unwrap();
    let run = check(
        program,
        &fixture(),
        output.path(),
        "lookup",
        &path,
        Llm::Live(&api),
        "passthrough",
    )
    .await;
    assert_eq!(run.code, Some(101), "{}", run.text);
    let message = run.message();
    assert!(message.contains(said), "{message}");
    assert!(!message.contains(KEY), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_refused_by_the_api_fails_with_the_status_and_the_message() {
    an_api_refusal_fails_the_task_with_status_and_message(
        CODEX,
        "agent failed: Codex failed with exit code 1: unexpected status 401 Unauthorized: \
         Incorrect API key provided: sk-cl***",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_refused_by_the_api_fails_with_the_status_and_the_message() {
    an_api_refusal_fails_the_task_with_status_and_message(
        GEMINI,
        ": API error 401 UNAUTHENTICATED: API key not valid. Please pass a valid API key.",
    )
    .await;
}

async fn a_hanging_program_is_stopped_by_the_task_timeout(program: Program) {
    let Some(path) = path_with(program) else {
        return;
    };
    // The answer's first event arrives, the rest never does.
    let gate = Arc::new(tokio::sync::Notify::new());
    let api = FakeLlm::start(vec![Reply::Gated("hello".into(), gate); 4]).await;
    let output = tempfile::tempdir().unwrap();
    let run = check(
        program,
        &fixture(),
        output.path(),
        "hang",
        &path,
        Llm::Live(&api),
        "passthrough",
    )
    .await;
    assert_eq!(run.code, Some(101), "{}", run.text);
    assert!(
        run.message().contains(
            "timed out: the task took longer than its timeout; it was in the agent phase"
        ),
        "{}",
        run.message()
    );
    assert!(run.took < Duration::from_secs(60), "took {:?}", run.took);
    // It hung where the answer stopped (its timeout, 12 s, leaves it time to get there).
    assert!(!api.seen().is_empty(), "the program never asked the API");
    // Its process group went with it: no process of the run is left.
    let left = processes_mentioning(&output.path().display().to_string());
    assert!(left.is_empty(), "left running: {left:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_hanging_is_stopped_by_the_task_timeout_and_reaped() {
    a_hanging_program_is_stopped_by_the_task_timeout(CODEX).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_hanging_is_stopped_by_the_task_timeout_and_reaped() {
    a_hanging_program_is_stopped_by_the_task_timeout(GEMINI).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_program_fails_the_task_naming_its_package() {
    for program in [CODEX, GEMINI] {
        let output = tempfile::tempdir().unwrap();
        let run = check(
            program,
            &fixture(),
            output.path(),
            "lookup",
            "/usr/bin:/bin",
            Llm::Nowhere,
            "passthrough",
        )
        .await;
        assert_eq!(run.code, Some(101), "{}", run.text);
        let expected = format!(
            "`{}` is not on PATH: builtin.{} runs ",
            program.bin, program.eval
        );
        let message = run.message();
        assert!(
            message.contains(&expected) && message.contains(program.package),
            "{message}"
        );
    }
}

/// A three-turn conversation with the stateful server (tests/fixtures/conversation): each
/// turn resumes the program's session of the one before (Codex's `exec resume`, Gemini
/// CLI's `--resume latest`), so its model request carries the turns before, and the one
/// server process sees all four calls (turn 3's verify step reads "(call 4)"); recorded
/// into one cassette, then replayed with no API.
async fn a_conversation_resumes_the_session_recorded_then_replayed(program: Program) {
    let Some(path) = path_with(program) else {
        return;
    };
    let copy = tempfile::tempdir().unwrap();
    let conversation = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conversation");
    crate::support::files::copy_tree(&conversation, copy.path());
    let eval = copy.path().join("cli");
    let call = |name: &str, args: Value| match program.eval {
        "codex" => Reply::NamespacedCall {
            namespace: "mcp__deploy".into(),
            name: name.into(),
            args,
        },
        _ => Reply::ToolCall {
            name: format!("mcp_deploy_{name}"),
            args,
        },
    };
    let answers = ["Created web.", "Scaled web to 3.", "web has 1 replica."];
    let api = FakeLlm::start(vec![
        call("create", json!({"name": "web"})),
        Reply::Text(answers[0].into()),
        call("scale", json!({"name": "web", "replicas": 3})),
        Reply::Text(answers[1].into()),
        call("undo", json!({})),
        call("status", json!({"name": "web"})),
        Reply::Text(answers[2].into()),
    ])
    .await;
    let output = tempfile::tempdir().unwrap();
    let llm = Llm::Live(&api);
    let recorded = check(program, &eval, output.path(), "deploy", &path, llm, "all").await;
    assert_eq!(recorded.code, Some(0), "{}", recorded.text);
    let seen = api.seen();
    let last = seen.last().unwrap().body.to_string();
    assert!(
        last.contains("Undo that")
            && last.contains("Now scale it")
            && last.contains("Create the deployment"),
        "{last}"
    );
    let turns: Vec<(&str, usize)> = (recorded.result["turns"].as_array().unwrap().iter())
        .map(|turn| {
            let answer = turn["answer"].as_str().unwrap_or_default();
            (answer, turn["calls"].as_u64().unwrap_or(0) as usize)
        })
        .collect();
    assert_eq!(turns, [(answers[0], 1), (answers[1], 1), (answers[2], 2)]);
    drop(api);

    let output = tempfile::tempdir().unwrap();
    let llm = Llm::Nowhere;
    let replayed = check(program, &eval, output.path(), "deploy", &path, llm, "none").await;
    assert_eq!(replayed.code, Some(0), "{}", replayed.text);
    assert_eq!(replayed.result["turns"][2]["answer"], answers[2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_resumes_its_session_in_a_conversation() {
    a_conversation_resumes_the_session_recorded_then_replayed(CODEX).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_resumes_its_session_in_a_conversation() {
    a_conversation_resumes_the_session_recorded_then_replayed(GEMINI).await;
}
