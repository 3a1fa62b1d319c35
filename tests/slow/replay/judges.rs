//! Agents that speak Chat Completions (a file agent, the OpenAI agent) and their LLM judges:
//! recorded, then replayed with both APIs stopped and no key.

use super::{KEY, closed_port_url, text};
use crate::support::fake_openai;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};

/// Runs `test` of the eval in `dir`, whose agent and LLM judge speak Chat Completions
/// (`OPENAI_BASE_URL`, `JUDGE_BASE_URL`); `apis` are their live APIs, or none (the agent's
/// base URL a closed port, no key). `env` adds variables (`CI`, the judge's model).
fn check_with_judge(
    dir: &Path,
    test: &str,
    output: &Path,
    apis: Option<(&str, &str)>,
    env: &[(&str, &str)],
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .arg("check")
        .arg(dir.join("eval.yaml"))
        .args(["--", "--exact", test])
        .env("MCPEVAL_OUTPUT_DIR", output)
        .env("RUST_BACKTRACE", "0")
        .env_remove("CI")
        .env_remove("MCPEVAL_RECORD_MODE")
        .env_remove("OPENAI_API_KEY")
        .env_remove("JUDGE_API_KEY")
        .envs(env.iter().copied());
    match apis {
        Some((agent, judge)) => command
            .env("OPENAI_BASE_URL", agent)
            .env("OPENAI_API_KEY", KEY)
            .env("JUDGE_BASE_URL", judge)
            .env("JUDGE_API_KEY", KEY),
        None => command
            .env("OPENAI_BASE_URL", closed_port_url())
            .env_remove("JUDGE_BASE_URL"),
    };
    command.output().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_agent_and_its_judge_are_recorded_then_replayed_without_api_or_key() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replay-file-agent");
    std::fs::create_dir_all(dir.path().join("tasks")).unwrap();
    for file in [
        "eval.yaml",
        "agent.yaml",
        "agent.py",
        "mcp-config.yaml",
        "tasks/ask.yaml",
    ] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    let agent = fake_openai::FakeOpenAi::start(vec![fake_openai::text("The sum is 42.")]).await;
    let judge = fake_openai::FakeOpenAi::start(vec![fake_openai::text(
        r#"{"passed": true, "reason": "It says 42."}"#,
    )])
    .await;
    let agent_py = dir.path().join("agent.py").display().to_string();
    let env = [
        ("ASK_AGENT", agent_py.as_str()),
        ("JUDGE_MODEL_NAME", "tiny-judge"),
        ("MCPEVAL_BIN", env!("CARGO_BIN_EXE_mcpeval")),
    ];
    let check = |output: &Path, apis: Option<(&str, &str)>, ci: &[(&str, &str)]| {
        let env = [ci, &env[..]].concat();
        check_with_judge(dir.path(), "fileagent::ask", output, apis, &env)
    };
    let output = tempfile::tempdir().unwrap();
    let out = check(output.path(), Some((&agent.base_url, &judge.base_url)), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let recorded = results_of_eval(output.path(), "fileagent__ask");
    let used: Vec<&str> = recorded["llmCalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|calls| calls["used"].as_str().unwrap())
        .collect();
    assert_eq!(used, ["recorded", "recorded"], "{recorded:#}");
    // The judge's calls are the `judge` section of the task's one cassette.
    let cassette: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("cassettes/fileagent__ask.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(cassette["interactions"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        cassette["sections"]["judge"]["interactions"]
            .as_array()
            .map(Vec::len),
        Some(1),
        "{cassette:#}"
    );
    assert!(
        !dir.path()
            .join("cassettes/fileagent__ask.judge.json")
            .exists()
    );
    drop((agent, judge));

    let output = tempfile::tempdir().unwrap();
    let out = check(output.path(), None, &[("CI", "true")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let replayed = results_of_eval(output.path(), "fileagent__ask");
    assert_eq!(replayed["llmCalls"][0]["used"], "replayed", "{replayed:#}");
    assert_eq!(replayed["llmCalls"][1]["used"], "replayed", "{replayed:#}");
    assert_eq!(replayed["taskOutput"], "The sum is 42.");
    assert_eq!(replayed["verifyOutput"]["success"], true, "{replayed:#}");
}

fn results_of_eval(output: &Path, stem: &str) -> Value {
    let file = output.join("results").join(format!("{stem}.json"));
    serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_agent_and_its_judge_replay_with_their_apis_stopped() {
    // evals/openai-agent, copied: the agent calls add(2, 40) on the live demo server.
    let dir = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("evals/openai-agent");
    std::fs::create_dir_all(dir.path().join("tasks")).unwrap();
    for file in ["eval.yaml", "mcp-config.yaml", "tasks/add.yaml"] {
        std::fs::copy(source.join(file), dir.path().join(file)).unwrap();
    }
    let agent = fake_openai::FakeOpenAi::start(vec![
        fake_openai::tool_calls(&[("call_1", "add", fake_openai::args(json!({"a": 2, "b": 40})))]),
        fake_openai::text("The sum is 42."),
    ])
    .await;
    let judge = fake_openai::FakeOpenAi::start(vec![fake_openai::text(
        r#"{"passed": true, "reason": "It says 42."}"#,
    )])
    .await;
    let run = |apis: Option<(&str, &str)>, ci: &[(&str, &str)]| {
        let output = tempfile::tempdir().unwrap();
        let env = [ci, &[("JUDGE_MODEL_NAME", "fake-judge")]].concat();
        let out = check_with_judge(dir.path(), "openai-agent::add", output.path(), apis, &env);
        (out, results_of_eval(output.path(), "openai-agent__add"))
    };
    let (out, recorded) = run(Some((&agent.base_url, &judge.base_url)), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(recorded["llmCalls"][0]["recorded"], 2, "{recorded:#}");
    let (agent_asked, judge_asked) = (agent.requests().len(), judge.requests().len());
    drop((agent, judge));
    let (out, replayed) = run(None, &[("CI", "true")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(replayed["llmCalls"][0]["replayed"], json!(agent_asked));
    assert_eq!(replayed["llmCalls"][1]["replayed"], json!(judge_asked));
    assert_eq!(
        replayed["callHistory"]["toolCalls"][0]["name"], "add",
        "the MCP server is called live: {replayed:#}"
    );
}
