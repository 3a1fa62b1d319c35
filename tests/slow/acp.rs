//! ACP agents through `mcpeval check`: mcpeval's own `mcpeval acp-agent` (an Agent file's
//! `acp: {cmd, args}`) in front of the demo server, and the real Claude Code over ACP
//! (`@agentclientprotocol/claude-agent-acp@0.49.0`, installed by `.ci/install-peers.sh`)
//! against our fake Anthropic API: its calls live, recorded, then replayed with no key.

use crate::support;
use crate::support::fake_anthropic;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use fake_anthropic::{FakeAnthropic, Turn};
use serde_json::{Value, json};
use support::cli::{failure_of, result_file, text};

const ACP_EVAL: &str = "tests/fixtures/acp/eval.yaml";

/// Runs the test `name` of `eval` with `mcpeval check`, with `env`, writing under `output`.
fn check(eval: &str, name: &str, env: &[(&str, &str)], output: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .args(["check", eval, "--", "--exact", name])
        .env("MCPEVAL_OUTPUT_DIR", output)
        .env("RUST_BACKTRACE", "0")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run mcpeval")
}

fn output_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("acp-runs")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn passed(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

fn schema_valid(result: &Value) {
    let violations = support::results_schema::violations(result);
    assert!(violations.is_empty(), "{violations:#?}\n{result:#}");
}

#[test]
fn our_acp_agent_calls_the_tools_and_reports_answer_tool_calls_usage_and_version() {
    let output = output_dir("add");
    let out = check(ACP_EVAL, "acp::add", &[], &output);
    passed(&out);
    let result = result_file(&output, "acp__add");
    schema_valid(&result);
    // The answer is the last message, not every message of the turn.
    assert_eq!(result["taskOutput"], "The sum is 42.");
    let calls: Vec<&str> = result["callHistory"]["toolCalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["name"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["add", "echo"]);
    // Its own Skill call and the two MCP calls.
    assert_eq!(result["agentToolCalls"], 3, "{result:#}");
    assert!(result["agentTokenUsage"]["totalTokens"].as_u64().unwrap() > 0);
    let version = result["agentVersion"].as_str().unwrap();
    assert!(version.starts_with("mcpeval-acp-agent "), "{version}");
}

#[test]
fn a_tool_outside_the_allowed_list_is_refused_permission() {
    let output = output_dir("denied");
    let out = check(ACP_EVAL, "acp::denied", &[], &output);
    passed(&out);
    let result = result_file(&output, "acp__denied");
    assert_eq!(result["callHistory"]["toolCalls"], json!([]), "{result:#}");
    let agent_output = result["agentOutput"]["steps"][0]["output"]
        .as_str()
        .unwrap();
    assert!(
        agent_output.contains(
            "permission for mcp__demo__delete_user {\"id\":\"2\"}: rejected: not an allowed tool"
        ),
        "{agent_output}"
    );
}

#[test]
fn files_are_served_inside_the_working_directory_and_refused_outside() {
    let output = output_dir("read");
    // Each task's verify script checks the answer: the mounted skill's text inside, the
    // refusal outside.
    passed(&check(ACP_EVAL, "acp::read-inside", &[], &output));
    passed(&check(ACP_EVAL, "acp::read-outside", &[], &output));
}

#[test]
fn a_hanging_acp_agent_is_cancelled_and_its_process_group_reaped_within_the_task_timeout() {
    let output = output_dir("hangs");
    let started = Instant::now();
    let out = check(ACP_EVAL, "acp::hangs", &[], &output);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    let failure = failure_of(&stdout, "acp::hangs");
    assert!(
        failure.contains("agent failed: the ACP agent did not finish in the")
            && failure.contains("mcpeval sent session/cancel and then killed its process group"),
        "{failure}"
    );
    let pid: i32 = failure
        .split("acp-agent: pid ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {failure}"));
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim()
                .starts_with('Z')),
        "the agent {pid} survived the run"
    );
}

#[test]
fn an_acp_agent_that_exits_mid_prompt_fails_with_its_exit_code() {
    let output = output_dir("crashes");
    let out = check(ACP_EVAL, "acp::crashes", &[], &output);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    let failure = failure_of(&stdout, "acp::crashes");
    assert!(
        failure.contains(
            "agent failed: the ACP agent ended before answering `session/prompt` (exit code 3)"
        ),
        "{failure}"
    );
    schema_valid(&result_file(&output, "acp__crashes"));
}

// The real Claude Code over ACP.

const CLAUDE_EVAL: &str = "tests/fixtures/claude-acp/eval.yaml";

/// `PATH` with the installed claude-agent-acp first, or `None` (skipped) when missing.
fn path_with_adapter() -> Option<String> {
    let adapter = support::peers::require("node_modules/.bin/claude-agent-acp")?;
    let bin = adapter.parent().expect("a directory");
    Some(format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    ))
}

fn add_script() -> Vec<Turn> {
    vec![
        Turn::ToolUse {
            name: "mcp__demo__add".into(),
            input: json!({"a": 2, "b": 40}),
        },
        Turn::ToolUse {
            name: "mcp__demo__echo".into(),
            input: json!({"text": "42"}),
        },
        Turn::Text("The sum is 42.".into()),
    ]
}

/// Runs `name` of `eval` with Claude Code over ACP against `api` (live, no cassette).
fn check_claude(eval: &str, name: &str, api: &FakeAnthropic, output: &Path) -> Option<Output> {
    let path = path_with_adapter()?;
    Some(check(
        eval,
        name,
        &[
            ("PATH", &path),
            ("ANTHROPIC_BASE_URL", &api.base_url),
            ("ANTHROPIC_API_KEY", "sk-ant-fake-key-for-tests"),
            ("MCPEVAL_RECORD_MODE", "passthrough"),
            ("ENABLE_TOOL_SEARCH", "false"),
        ],
        output,
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_over_acp_calls_the_allowed_tools_and_reports_what_it_knows() {
    let api = FakeAnthropic::start(add_script()).await;
    let output = output_dir("claude-add");
    let Some(out) = check_claude(CLAUDE_EVAL, "claude-acp::add", &api, &output) else {
        return;
    };
    passed(&out);
    let result = result_file(&output, "claude-acp__add");
    schema_valid(&result);
    assert_eq!(result["taskOutput"], "The sum is 42.");
    assert_eq!(result["agentName"], "claude-code");
    let version = result["agentVersion"].as_str().unwrap_or_default();
    assert!(version.contains("claude-agent-acp 0.49.0"), "{version}");
    assert!(
        result["agentTokenUsage"]["totalTokens"]
            .as_u64()
            .unwrap_or(0)
            > 0
    );
    assert!(
        result["agentTurns"].as_u64().unwrap_or(0) >= 3,
        "{result:#}"
    );
    assert!(
        result["agentToolCalls"].as_u64().unwrap_or(0) >= 2,
        "{result:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_over_acp_is_refused_a_tool_outside_the_allowed_list() {
    let api = FakeAnthropic::start(vec![
        Turn::ToolUse {
            name: "mcp__demo__delete_user".into(),
            input: json!({"id": "2"}),
        },
        Turn::Text("I may not delete users.".into()),
    ])
    .await;
    let output = output_dir("claude-forbidden");
    let Some(out) = check_claude(CLAUDE_EVAL, "claude-acp::forbidden", &api, &output) else {
        return;
    };
    passed(&out);
    let result = result_file(&output, "claude-acp__forbidden");
    assert_eq!(result["callHistory"]["toolCalls"], json!([]), "{result:#}");
    let agent_output = result["agentOutput"]["steps"][0]["output"]
        .as_str()
        .unwrap();
    assert!(
        agent_output.contains("mcp__demo__delete_user") && agent_output.contains("rejected"),
        "{agent_output}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_over_acp_fails_with_the_status_and_message_the_api_refused_it_with() {
    // A 403 (Claude Code retries a 401 until its own timeout).
    let api = FakeAnthropic::start(vec![Turn::Error(
        403,
        "this key may not use the model".into(),
    )])
    .await;
    let output = output_dir("claude-refused");
    let Some(out) = check_claude(CLAUDE_EVAL, "claude-acp::add", &api, &output) else {
        return;
    };
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    let failure = failure_of(&stdout, "claude-acp::add");
    assert!(
        failure.contains(
            "the agent's LLM API refused its last call: 403 Forbidden: this key may not use the model"
        ),
        "{failure}"
    );
    assert!(!failure.contains("sk-ant-fake-key-for-tests"), "{failure}");
}

/// A conversation with an ACP agent that does not load sessions: turn 2 fails saying it
/// cannot continue, naming the agent and its version, and does not start over.
#[test]
fn an_acp_agent_that_cannot_load_its_session_fails_turn_two_naming_agent_and_version() {
    let output = output_dir("without-load");
    let eval = "tests/fixtures/acp/without-load.yaml";
    let out = check(eval, "acp-without-load::conversation", &[], &output);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    let failure = failure_of(&stdout, "acp-without-load::conversation");
    let expected = format!(
        "agent failed in turn 2: cannot continue the conversation (turn 2): the ACP agent does \
         not load sessions (its `initialize` answer lacks agentCapabilities.loadSession) \
         (agent acp-agent-without-load, mcpeval-acp-agent {})",
        env!("CARGO_PKG_VERSION")
    );
    assert!(failure.contains(&expected), "{failure}");
    let result = result_file(&output, "acp-without-load__conversation");
    let turns: Vec<(bool, u64)> = (result["turns"].as_array().unwrap().iter())
        .map(|turn| (turn["passed"] == true, turn["calls"].as_u64().unwrap()))
        .collect();
    assert_eq!(turns, [(true, 1), (false, 0)], "{result:#}");
}

/// What recording the task `task` of a copy of the claude-acp fixture against `api`, then
/// replaying it with no key and a closed port, left.
struct RecordedThenReplayed {
    /// The recording's requests to the API.
    asked: Vec<serde_json::Value>,
    /// The replay's results file.
    replayed: serde_json::Value,
}

/// Records the task `task` of a copy of the claude-acp fixture against `api` (checking the
/// cassette holds no key), then replays it with no key and a closed port; both must pass
/// and the replay must not ask the API. `None` when the adapter is not installed.
fn record_then_replay(task: &str, api: &FakeAnthropic) -> Option<RecordedThenReplayed> {
    let path = path_with_adapter()?;
    // A copy of the fixture: the cassette is written beside the eval file.
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude-acp");
    crate::support::files::copy_tree(&fixture, dir.path());
    let eval = dir.path().join("eval.yaml");
    let eval = eval.to_str().unwrap();
    let name = format!("claude-acp::{task}");
    let stem = format!("claude-acp__{task}");
    let output = output_dir(&format!("claude-record-{task}"));
    let recorded = check(
        eval,
        &name,
        &[
            ("PATH", &path),
            ("ANTHROPIC_BASE_URL", &api.base_url),
            ("ANTHROPIC_API_KEY", "sk-ant-fake-key-for-tests"),
            ("MCPEVAL_RECORD_MODE", "all"),
            ("ENABLE_TOOL_SEARCH", "false"),
        ],
        &output,
    );
    passed(&recorded);
    let cassette = dir.path().join(format!("cassettes/{stem}.json"));
    let text_of_cassette = std::fs::read_to_string(&cassette).unwrap();
    assert!(!text_of_cassette.contains("sk-ant-fake-key-for-tests"));
    let asked = api.requests();
    // Replay: no key, and the API's address is a closed port.
    let output = output_dir(&format!("claude-replay-{task}"));
    let replayed = check(
        eval,
        &name,
        &[
            ("PATH", &path),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
            ("MCPEVAL_RECORD_MODE", "none"),
            ("ENABLE_TOOL_SEARCH", "false"),
        ],
        &output,
    );
    passed(&replayed);
    assert_eq!(
        api.requests().len(),
        asked.len(),
        "the replay asked the API"
    );
    let replayed = result_file(&output, &stem);
    Some(RecordedThenReplayed { asked, replayed })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_over_acp_is_recorded_then_replayed_with_no_key() {
    let api = FakeAnthropic::start(add_script()).await;
    let Some(run) = record_then_replay("add", &api) else {
        return;
    };
    assert_eq!(run.replayed["taskOutput"], "The sum is 42.");
    assert_eq!(
        run.replayed["llmCalls"][0]["used"], "replayed",
        "{:#}",
        run.replayed
    );
}

/// A conversation: the second turn's process loads the session of the first
/// (`session/load`, which our agent offers) and is prompted on it, against the same server.
#[test]
fn our_acp_agent_loads_its_session_for_a_conversations_second_turn() {
    let output = output_dir("conversation");
    let out = check(ACP_EVAL, "acp::conversation", &[], &output);
    passed(&out);
    let result = result_file(&output, "acp__conversation");
    schema_valid(&result);
    let answers: Vec<&str> = (result["turns"].as_array().unwrap().iter())
        .map(|turn| turn["answer"].as_str().unwrap())
        .collect();
    assert_eq!(answers, ["new session", "loaded session"]);
    let turns: Vec<(&str, u64)> = (result["callHistory"]["toolCalls"].as_array().unwrap())
        .iter()
        .map(|call| {
            (
                call["name"].as_str().unwrap(),
                call["turn"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(turns, [("add", 1), ("echo", 2)]);
}

/// A conversation with Claude Code over ACP: the second turn's adapter loads the session of
/// the first (`session/load`), so the model request carries the first turn; recorded into
/// one cassette, then replayed with no key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_over_acp_loads_its_session_for_a_conversations_second_turn() {
    let api = FakeAnthropic::start(add_script()).await;
    let Some(run) = record_then_replay("conversation", &api) else {
        return;
    };
    schema_valid(&run.replayed);
    let last = run.asked.last().unwrap().to_string();
    assert!(
        last.contains("Say the sum once more.") && last.contains("What is 2 + 40?"),
        "{last}"
    );
    let turns = run.replayed["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "{:#}", run.replayed);
    assert!(
        turns.iter().all(|turn| turn["passed"] == true),
        "{:#}",
        run.replayed
    );
    assert_eq!(
        run.replayed["llmCalls"][0]["used"], "replayed",
        "{:#}",
        run.replayed
    );
}
