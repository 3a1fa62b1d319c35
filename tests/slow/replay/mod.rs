//! Recording and replaying the LLM side through the whole harness, with the real Claude
//! Code (`.ci/install-peers.sh`): recorded once against our fake Anthropic API acting as the
//! live upstream, then replayed with the fake stopped, the base URL pointing nowhere and no
//! API key, while the MCP servers run live. The same for agents that speak Chat Completions
//! and their LLM judges (`judges`).

mod divergence;
mod judges;
mod recording;

use crate::support;
use crate::support::fake_anthropic::FakeAnthropic;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

pub(super) const KEY: &str = "sk-ant-recording-key-0123456789";

/// A copy of the claude fixture eval in a fresh directory, with `snapshot` and extra
/// `config` lines.
pub(super) fn eval_copy(snapshot: &str, extra_config: &str) -> tempfile::TempDir {
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
pub(super) enum Llm<'a> {
    Live(&'a FakeAnthropic),
    Nowhere,
}

/// Runs one task of the eval in `dir` with `mcpeval check`; `env` adds variables (`CI`,
/// `MCPEVAL_RECORD_MODE`).
pub(super) fn check(
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

pub(super) fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

pub(super) fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub(super) fn results_of(output: &Path, task: &str) -> Value {
    let file = output.join("results").join(format!("claude__{task}.json"));
    serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap()
}
