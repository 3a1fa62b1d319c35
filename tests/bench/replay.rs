//! What replaying the LLM side costs: `cargo bench --bench replay`.
//!
//! Runs one Claude Code task (the claude fixture's `add`: two tool calls on mcpeval's demo
//! server, three LLM turns) through `mcpeval check`, alternately with its LLM calls replayed
//! from a cassette and against an instant fake Anthropic API (passthrough), and prints the
//! median wall time of each and their ratio. Goal: replay within 1.1× of the fake API (no
//! added waits). `MCPEVAL_BENCH_RUNS` sets the runs of each (default 7). Needs the peers of
//! `.ci/install-peers.sh`.

#[path = "../support/fake_anthropic.rs"]
mod fake_anthropic;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use fake_anthropic::{FakeAnthropic, Turn};
use serde_json::json;

fn main() {
    let peers = Path::new(env!("CARGO_MANIFEST_DIR")).join(".peers");
    let claude_bin = peers.join("node_modules/.bin");
    if !claude_bin.join("claude").exists() {
        eprintln!("skipped: Claude Code is not installed: run .ci/install-peers.sh");
        return;
    }
    let runs: usize = std::env::var("MCPEVAL_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(7);
    let runtime = tokio::runtime::Runtime::new().expect("a runtime for the fake API");
    let api = runtime.block_on(FakeAnthropic::start(vec![
        Turn::ToolUse {
            name: "mcp__demo__add".into(),
            input: json!({"a": 2, "b": 40}),
        },
        Turn::ToolUse {
            name: "mcp__demo__echo".into(),
            input: json!({"text": "42"}),
        },
        Turn::Text("The sum is 42.".into()),
    ]));
    let dir = tempfile::tempdir().expect("a temporary directory");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude");
    std::fs::create_dir_all(dir.path().join("tasks")).expect("tasks/");
    for file in [
        "eval.yaml",
        "mcp-config.yaml",
        "tasks/add.yaml",
        "tasks/time.yaml",
        "tasks/forbidden.yaml",
    ] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).expect("the fixture");
    }
    let path = format!(
        "{}:{}",
        claude_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |mode: &str| -> Duration {
        let output = tempfile::tempdir().expect("an output directory");
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
            .arg("check")
            .arg(dir.path().join("eval.yaml"))
            .args(["--record-mode", mode, "--", "--exact", "claude::add"])
            .env("PATH", &path)
            .env("ANTHROPIC_BASE_URL", &api.base_url)
            .env("ANTHROPIC_API_KEY", "sk-ant-bench-key")
            .env("ENABLE_TOOL_SEARCH", "false")
            .env("MCPEVAL_OUTPUT_DIR", output.path())
            .env(
                "MCPEVAL_TIME_SERVER",
                peers.join("venv/bin/mcp-server-time"),
            )
            .output()
            .expect("mcpeval check");
        let elapsed = started.elapsed();
        assert!(
            out.status.success(),
            "{mode}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        elapsed
    };
    run("all");
    let (mut replayed, mut live) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        replayed.push(run("none"));
        live.push(run("passthrough"));
    }
    let median = |times: &mut Vec<Duration>| {
        times.sort();
        times[times.len() / 2]
    };
    let (replayed, live) = (median(&mut replayed), median(&mut live));
    println!("one Claude Code task (3 LLM turns, 2 tool calls), median of {runs} runs each:");
    println!(
        "  LLM replayed from the cassette: {:>8.0} ms",
        replayed.as_secs_f64() * 1000.0
    );
    println!(
        "  against an instant fake API:    {:>8.0} ms",
        live.as_secs_f64() * 1000.0
    );
    println!(
        "  ratio: {:.2}× (goal ≤ 1.1×)",
        replayed.as_secs_f64() / live.as_secs_f64()
    );
}
