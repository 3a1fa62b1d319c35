//! A replay the recording no longer matches: a changed tool result or fault diverges,
//! naming both; `replay.ignore` masks what a server varies by itself.

use super::{Llm, check, closed_port_url, eval_copy, results_of, text};
use crate::support;
use crate::support::fake_anthropic::{FakeAnthropic, Turn};
use serde_json::json;
use std::path::Path;
use std::process::{Command, Output};

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
