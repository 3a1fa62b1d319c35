//! builtin.claude-code through the whole harness: the real Claude Code
//! (`@anthropic-ai/claude-code@2.1.330`, installed by `.ci/install-peers.sh`) against our fake
//! Anthropic API, in front of our demo server and `mcp-server-time`.

use crate::support;
use crate::support::fake_anthropic;

use std::path::Path;
use std::process::{Command, Output};

use fake_anthropic::{FakeAnthropic, Turn};
use serde_json::json;

const EVAL: &str = "tests/fixtures/claude/eval.yaml";

/// Runs one task of the claude fixture eval with `mcpeval check`, against `api`.
async fn run_task(api: &FakeAnthropic, task: &str) -> Option<Output> {
    run_test(api, EVAL, &format!("claude::{task}")).await
}

/// Runs the test `name` of `eval` with `mcpeval check`, against `api` (the fake API is the
/// live one here: no cassette is read or written).
async fn run_test(api: &FakeAnthropic, eval: &str, name: &str) -> Option<Output> {
    let time_server = support::peers::require("venv/bin/mcp-server-time")?;
    let env = [
        ("MCPEVAL_RECORD_MODE", "passthrough"),
        ("MCPEVAL_TIME_SERVER", time_server.to_str()?),
    ];
    run_with(&api.base_url, eval, name, &env).await
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_calls_the_scripted_tools_and_the_assertions_pass() {
    let api = FakeAnthropic::start(vec![
        Turn::ToolUse {
            name: "mcp__demo__add".into(),
            input: json!({"a": 2, "b": 40}),
        },
        Turn::ToolUse {
            name: "mcp__demo__echo".into(),
            input: json!({"text": "42"}),
        },
        Turn::Text("The sum is 42.".into()),
    ])
    .await;
    let Some(out) = run_task(&api, "add").await else {
        return;
    };
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    let offered = api.offered_tools();
    for tool in [
        "mcp__demo__add",
        "mcp__demo__echo",
        "mcp__time__get_current_time",
    ] {
        assert!(
            offered.iter().any(|t| t == tool),
            "{tool} not offered: {offered:?}"
        );
    }
    // Claude Code's reported token usage reaches the results file.
    let results =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("claude-runs/results/claude__add.json");
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    assert!(
        result["agentTokenUsage"]["totalTokens"]
            .as_u64()
            .unwrap_or(0)
            > 0,
        "{result:#}"
    );
    // The tool results went back to the model.
    let last = api
        .requests()
        .into_iter()
        .rev()
        .find(|r| r["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .unwrap();
    assert!(last.to_string().contains("tool_result"), "{last}");
    assert!(last.to_string().contains("42"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_works_with_a_2026_protocol_server() {
    let api = FakeAnthropic::start(vec![
        Turn::ToolUse {
            name: "mcp__time__get_current_time".into(),
            input: json!({"timezone": "Asia/Tokyo"}),
        },
        Turn::Text("It is late in Tokyo.".into()),
    ])
    .await;
    let Some(out) = run_task(&api, "time").await else {
        return;
    };
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    let results = api
        .requests()
        .iter()
        .map(|r| r.to_string())
        .collect::<String>();
    assert!(
        results.contains("Asia/Tokyo") && results.contains("tool_result"),
        "{results}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forbidden_tool_call_fails_tools_not_used() {
    let api = FakeAnthropic::start(vec![
        Turn::ToolUse {
            name: "mcp__demo__delete_user".into(),
            input: json!({"id": "2"}),
        },
        Turn::Text("Removed.".into()),
    ])
    .await;
    let Some(out) = run_task(&api, "forbidden").await else {
        return;
    };
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(101), "{text}");
    assert!(text.contains("toolsNotUsed (config.taskSets[0])"), "{text}");
    assert!(text.contains("tool demo/delete_user (call #1"), "{text}");
    assert!(
        text.contains("#1 tool demo/delete_user {\"id\":\"2\"} → ok"),
        "{text}"
    );
    assert!(
        text.contains("agent stderr:") && text.contains("turns: 2"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_are_mounted_for_claude_code_and_its_skill_tool_use_is_asserted() {
    let api = FakeAnthropic::start(vec![
        Turn::ToolUse {
            name: "Skill".into(),
            input: json!({"skill": "greeting"}),
        },
        Turn::Text("Hello, Alice! Nice to meet you.".into()),
    ])
    .await;
    let eval = "tests/fixtures/claude-skills/eval.yaml";
    let Some(out) = run_test(&api, eval, "claude-skills::greet").await else {
        return;
    };
    let text = format!("{}\n{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{text}");
    // Claude Code found the mounted skill: it describes it to the model.
    let requests = serde_json::to_string(&api.requests()).unwrap();
    assert!(
        requests.contains("Greets a person by name in a friendly way."),
        "the skill's description never reached the model: {requests}"
    );
}

/// A three-turn conversation with the stateful server (tests/fixtures/conversation): each
/// turn resumes the session before (`--resume`), so its model request carries the turns
/// before, and the one server process sees all four calls (turn 3's verify step reads
/// "(call 4)"); recorded into one cassette, then replayed with no API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_resumes_its_session_through_a_three_turn_conversation() {
    let tool = |name: &str, input| Turn::ToolUse {
        name: format!("mcp__deploy__{name}"),
        input,
    };
    let answers = ["Created web.", "Scaled web to 3.", "web has 1 replica."];
    let api = FakeAnthropic::start(vec![
        tool("create", json!({"name": "web"})),
        Turn::Text(answers[0].into()),
        tool("scale", json!({"name": "web", "replicas": 3})),
        Turn::Text(answers[1].into()),
        tool("undo", json!({})),
        tool("status", json!({"name": "web"})),
        Turn::Text(answers[2].into()),
    ])
    .await;
    // A copy of the fixture, whose cassette is written beside the eval.
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conversation");
    support::files::copy_tree(&fixture, dir.path());
    let eval = dir.path().join("cli/claude-code.yaml");
    let eval = eval.to_str().unwrap();
    let record = [("MCPEVAL_RECORD_MODE", "all")];
    let Some(out) = run_with(&api.base_url, eval, "claude-code::deploy", &record).await else {
        return;
    };
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    let requests = api.requests();
    let last = requests.last().unwrap().to_string();
    assert!(
        last.contains("Undo that")
            && last.contains("Now scale it")
            && last.contains("Create the deployment web")
            && last.contains("Scaled web to 3.")
            && last.contains("tool_result"),
        "{last}"
    );
    let result =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("claude-runs/results/claude-code__deploy.json");
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(result).unwrap()).unwrap();
    let turns: Vec<(&str, u64)> = (result["turns"].as_array().unwrap().iter())
        .map(|turn| {
            (
                turn["answer"].as_str().unwrap(),
                turn["calls"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(turns, [(answers[0], 1), (answers[1], 1), (answers[2], 2)]);

    // Replayed from the one cassette of the conversation: no API.
    drop(api);
    let replay = [("MCPEVAL_RECORD_MODE", "none")];
    let closed = "http://127.0.0.1:9";
    let out = run_with(closed, eval, "claude-code::deploy", &replay)
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

/// Runs the test `name` of `eval` with `mcpeval check` against the API at `base_url`, with
/// `env` on top (the record mode).
async fn run_with(base_url: &str, eval: &str, name: &str, env: &[(&str, &str)]) -> Option<Output> {
    let path = support::peers::path_with_claude()?;
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .args(["check", eval, "--", "--exact", name])
        .env("PATH", path)
        .env("ANTHROPIC_BASE_URL", base_url)
        .env("ANTHROPIC_API_KEY", "sk-ant-fake-key-for-tests")
        .env("ENABLE_TOOL_SEARCH", "false")
        .env(
            "MCPEVAL_OUTPUT_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("claude-runs"),
        )
        .env("RUST_BACKTRACE", "0")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    command.envs(env.iter().copied());
    Some(
        tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap(),
    )
}
