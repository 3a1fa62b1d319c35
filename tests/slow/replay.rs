//! Recording and replaying the LLM side through the whole harness, with the real Claude
//! Code (`.ci/install-peers.sh`): recorded once against our fake Anthropic API acting as the
//! live upstream, then replayed with the fake stopped, the base URL pointing nowhere and no
//! API key, while the MCP servers run live.

use crate::support;
use crate::support::fake_anthropic;

use std::path::Path;
use std::process::{Command, Output};

use fake_anthropic::{FakeAnthropic, Turn};
use serde_json::{Value, json};
use support::cli::files_under;

const KEY: &str = "sk-ant-recording-key-0123456789";

/// A copy of the claude fixture eval in a fresh directory, with `snapshot` and extra
/// `config` lines.
fn eval_copy(snapshot: &str, extra_config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude");
    std::fs::create_dir_all(dir.path().join("tasks")).unwrap();
    for file in [
        "mcp-config.yaml",
        "tasks/add.yaml",
        "tasks/time.yaml",
        "tasks/forbidden.yaml",
    ] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    let eval = std::fs::read_to_string(fixture.join("eval.yaml"))
        .unwrap()
        .replace(
            "  snapshot: off\n",
            &format!("  snapshot: {snapshot}\n{extra_config}"),
        );
    std::fs::write(dir.path().join("eval.yaml"), eval).unwrap();
    dir
}

/// How a run reaches its LLM: the fake API with the key, or nothing at all.
enum Llm<'a> {
    Live(&'a FakeAnthropic),
    Nowhere,
}

/// Runs one task of the eval in `dir` with `mcpeval check`; `env` adds variables (`CI`,
/// `MCPEVAL_RECORD_MODE`).
fn check(
    dir: &Path,
    output: &Path,
    task: &str,
    llm: Llm<'_>,
    env: &[(&str, &str)],
) -> Option<Output> {
    let path = support::peers::path_with_claude()?;
    let time_server = support::peers::require("venv/bin/mcp-server-time")?;
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .arg("check")
        .arg(dir.join("eval.yaml"))
        .args(["--", "--exact", &format!("claude::{task}")])
        .env("PATH", path)
        .env("ENABLE_TOOL_SEARCH", "false")
        .env("MCPEVAL_TIME_SERVER", time_server)
        .env("MCPEVAL_OUTPUT_DIR", output)
        .env("RUST_BACKTRACE", "0")
        .env_remove("CI")
        .env_remove("MCPEVAL_RECORD_MODE")
        .env_remove("ANTHROPIC_API_KEY")
        .envs(env.iter().copied());
    match llm {
        Llm::Live(api) => command
            .env("ANTHROPIC_BASE_URL", &api.base_url)
            .env("ANTHROPIC_API_KEY", KEY),
        Llm::Nowhere => command.env("ANTHROPIC_BASE_URL", closed_port_url()),
    };
    Some(command.output().unwrap())
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

fn results_of(output: &Path, task: &str) -> Value {
    let file = output.join("results").join(format!("claude__{task}.json"));
    serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_recorded_once_replays_offline_with_the_same_verdict_and_trace() {
    let eval = eval_copy("strict", "");
    let output = tempfile::tempdir().unwrap();
    let api = FakeAnthropic::start(add_script()).await;
    // Recorded (mode once, no cassette yet) against the fake API as the live upstream.
    let Some(out) = check(eval.path(), output.path(), "add", Llm::Live(&api), &[]) else {
        return;
    };
    // Strict mode: the first trace is new, so the run fails on the snapshot alone.
    assert!(
        text(&out).contains("snapshot: no accepted snapshot yet"),
        "{}",
        text(&out)
    );
    let cassette = eval.path().join("cassettes/claude__add.json");
    assert!(cassette.is_file(), "{}", text(&out));
    let recorded = results_of(output.path(), "add");
    assert_eq!(recorded["llmCalls"][0]["used"], "recorded", "{recorded:#}");
    let snapshot = eval.path().join("snapshots/claude__add.snap");
    std::fs::rename(snapshot.with_extension("snap.new"), &snapshot).unwrap();
    let requests = api.requests().len();
    assert!(requests >= 3, "{requests} requests");

    // The API key used while recording is in no file the run wrote.
    for file in files_under(eval.path())
        .into_iter()
        .chain(files_under(output.path()))
    {
        let bytes = std::fs::read(&file).unwrap();
        let found = bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes());
        assert!(!found, "the API key is in {}", file.display());
    }

    // Replayed twice, from other output (and so working) directories, under CI, with no
    // API and no key, and another login shell or none (Claude Code names it to the model;
    // mcpeval pins it): the same verdict and the same (strict) trace snapshot.
    for shell in ["/usr/bin/zsh", ""] {
        let again = tempfile::tempdir().unwrap();
        let out = check(
            eval.path(),
            again.path(),
            "add",
            Llm::Nowhere,
            &[("CI", "true"), ("SHELL", shell), ("TERM", shell)],
        )
        .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let replayed = results_of(again.path(), "add");
        assert_eq!(replayed["llmCalls"][0]["used"], "replayed", "{replayed:#}");
        assert_eq!(replayed["llmCalls"][0]["replayed"], json!(requests));
        assert_eq!(
            replayed["callHistory"]["toolCalls"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
    }
    assert_eq!(
        api.requests().len(),
        requests,
        "replay never reached the API"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_tool_result_diverges_and_stops_the_agent_naming_both_results() {
    // mcp-server-time answers with the current time: replayed a second later, the tool
    // result in the conversation is not the recorded one.
    let eval = eval_copy("off", "");
    let output = tempfile::tempdir().unwrap();
    let Some(out) = record_then_replay_time(eval.path(), output.path()).await else {
        return;
    };
    let message = text(&out);
    assert_eq!(out.status.code(), Some(101), "{message}");
    assert!(
        message
            .contains("LLM request #2 (POST /v1/messages?beta=true) matches no recorded request"),
        "{message}"
    );
    assert!(
        message.contains("first difference at $.messages["),
        "{message}"
    );
    assert!(
        message.contains("recorded: ") && message.contains("now: "),
        "{message}"
    );
    assert!(message.contains("stopped by mcpeval"), "{message}");
    // The command reruns this one test with the runner it ran in (`mcpeval check`).
    let eval_file = eval.path().join("eval.yaml");
    assert!(
        message.contains(&format!(
            "If intended, re-record: mcpeval check {} --record-mode all -- claude::time --exact",
            eval_file.display()
        )),
        "{message}"
    );
    let results = results_of(output.path(), "time");
    assert!(
        results["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r.as_str().unwrap_or("").starts_with("llm: LLM request #2")),
        "{results:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replay_ignore_masks_what_a_server_varies_by_itself() {
    let ignore = "  replay:\n    ignore: ['\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}[^\"\\\\]*']\n";
    let eval = eval_copy("off", ignore);
    let output = tempfile::tempdir().unwrap();
    let Some(out) = record_then_replay_time(eval.path(), output.path()).await else {
        return;
    };
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

/// Records the `time` task (one call of mcp-server-time) against the fake API, then
/// replays it a second later under CI with no API: the replay's output.
async fn record_then_replay_time(eval: &Path, output: &Path) -> Option<Output> {
    let api = FakeAnthropic::start(vec![
        Turn::ToolUse {
            name: "mcp__time__get_current_time".into(),
            input: json!({"timezone": "Asia/Tokyo"}),
        },
        Turn::Text("It is late in Tokyo.".into()),
    ])
    .await;
    let out = check(eval, output, "time", Llm::Live(&api), &[])?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    std::thread::sleep(std::time::Duration::from_millis(1100));
    check(eval, output, "time", Llm::Nowhere, &[("CI", "1")])
}

#[test]
fn a_missing_cassette_under_ci_fails_with_its_path_and_the_record_command() {
    let eval = eval_copy("off", "");
    let output = tempfile::tempdir().unwrap();
    let Some(out) = check(
        eval.path(),
        output.path(),
        "add",
        Llm::Nowhere,
        &[("CI", "true")],
    ) else {
        return;
    };
    let message = text(&out);
    assert_eq!(out.status.code(), Some(101), "{message}");
    let cassette = eval.path().join("cassettes/claude__add.json");
    assert!(
        message.contains(&cassette.display().to_string()),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "mcpeval check {} --record-mode once -- claude::add --exact",
            eval.path().join("eval.yaml").display()
        )),
        "{message}"
    );
    assert!(!cassette.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_makes_fewer_llm_calls_than_recorded_fails() {
    let eval = eval_copy("off", "");
    let output = tempfile::tempdir().unwrap();
    let api = FakeAnthropic::start(add_script()).await;
    let Some(out) = check(eval.path(), output.path(), "add", Llm::Live(&api), &[]) else {
        return;
    };
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // One more recorded call than the agent will make: the last one, twice.
    let cassette = eval.path().join("cassettes/claude__add.json");
    let mut recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    let interactions = recorded["interactions"].as_array_mut().unwrap();
    let mut extra = interactions.last().unwrap().clone();
    extra["seq"] = json!(interactions.len() + 1);
    interactions.push(extra);
    std::fs::write(&cassette, serde_json::to_string_pretty(&recorded).unwrap()).unwrap();
    let out = check(
        eval.path(),
        output.path(),
        "add",
        Llm::Nowhere,
        &[("CI", "true")],
    )
    .unwrap();
    let message = text(&out);
    assert_eq!(out.status.code(), Some(101), "{message}");
    assert!(
        message.contains("fewer LLM calls than recorded"),
        "{message}"
    );
}

use support::fake_openai;

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

/// A copy of `evals/claude-code-faults` (its cassettes too, no snapshots) in a fresh
/// directory, with `tool-error`'s fault text replaced by `fault`.
fn faults_eval_copy(fault: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let eval = Path::new(env!("CARGO_MANIFEST_DIR")).join("evals/claude-code-faults");
    for sub in ["tasks", "cassettes"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        for entry in std::fs::read_dir(eval.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.path().join(sub).join(path.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(
        eval.join("mcp-config.yaml"),
        dir.path().join("mcp-config.yaml"),
    )
    .unwrap();
    let config = std::fs::read_to_string(eval.join("eval.yaml")).unwrap();
    let config = config.replace("snapshot: review", "snapshot: off");
    std::fs::write(dir.path().join("eval.yaml"), config).unwrap();
    let task = dir.path().join("tasks/tool-error.yaml");
    let text = std::fs::read_to_string(&task).unwrap();
    let recorded = "injected: the adder is warming up, try again";
    assert!(text.contains(recorded), "{text}");
    std::fs::write(&task, text.replace(recorded, fault)).unwrap();
    dir
}

/// Replays `claude-code-faults::tool-error` of `eval` under CI (record mode `none`), the
/// LLM API nowhere.
fn replay_tool_error(eval: &Path, output: &Path) -> Option<Output> {
    let path = support::peers::path_with_claude()?;
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .arg("check")
        .arg(eval.join("eval.yaml"))
        .args(["--", "--exact", "claude-code-faults::tool-error"])
        .env("PATH", path)
        .env("MCPEVAL_BIN", env!("CARGO_BIN_EXE_mcpeval"))
        .env("ENABLE_TOOL_SEARCH", "false")
        .env("MCP_TOOL_TIMEOUT", "5000")
        .env("CI", "true")
        .env("MCPEVAL_OUTPUT_DIR", output)
        .env("ANTHROPIC_BASE_URL", closed_port_url())
        .env("RUST_BACKTRACE", "0")
        .env_remove("MCPEVAL_RECORD_MODE")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    Some(out)
}

/// The faults are part of what the model saw: the recorded fault replays, and a changed
/// rule diverges at the request that carries the faulted result, naming both texts.
#[test]
fn a_run_with_faults_replays_only_with_the_same_faults() {
    let same = faults_eval_copy("injected: the adder is warming up, try again");
    let output = tempfile::tempdir().unwrap();
    let Some(out) = replay_tool_error(same.path(), output.path()) else {
        return;
    };
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("claude-code-faults::tool-error ... ok"),
        "{}",
        text(&out)
    );

    let changed = faults_eval_copy("injected: the adder is broken");
    let output = tempfile::tempdir().unwrap();
    let out = replay_tool_error(changed.path(), output.path()).unwrap();
    let message = text(&out);
    assert_eq!(out.status.code(), Some(101), "{message}");
    assert!(
        message
            .contains("LLM request #2 (POST /v1/messages?beta=true) matches no recorded request"),
        "{message}"
    );
    assert!(
        message.contains("warming up") && message.contains("the adder is broken"),
        "the recorded and the new fault text: {message}"
    );
}
