//! One task run whole through `mcpeval check`, from files written into a fresh directory:
//! the `script-agent` (which makes the calls its prompt lists and tolerates tool errors)
//! or another agent ([`RunAgent`]), the given MCP servers, and the given assertions.
#![allow(dead_code)]

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

/// What one run left.
pub struct TaskRun {
    /// `mcpeval check`'s exit code (0 passed, 101 failed).
    pub code: Option<i32>,
    /// Its stdout: libtest's lines and the failure message.
    pub stdout: String,
    /// The results file of the task.
    pub result: Value,
    /// How long `mcpeval check` took.
    pub took: Duration,
    /// The directory the eval was written into (kept while this lives).
    pub dir: tempfile::TempDir,
}

impl TaskRun {
    /// The failure message (the results file's copy of it).
    pub fn message(&self) -> &str {
        self.result["failureMessage"].as_str().unwrap_or("")
    }

    /// Whether the task passed.
    pub fn passed(&self) -> bool {
        self.result["taskPassed"] == true
    }

    /// Panics unless the results file matches `schema/results.schema.json`.
    pub fn assert_result_matches_schema(&self) {
        let errors = super::results_schema::violations(&self.result);
        assert!(errors.is_empty(), "{errors:#?}\n{:#}", self.result);
    }
}

/// The script agent as an Agent file (`agent.yaml`): `"$MCPEVAL_BIN" script-agent …`.
pub const AGENT: &str = r#"kind: Agent
metadata:
  name: script-agent
commands:
  shell: true
  timeout: 60s
  runPrompt: '"$MCPEVAL_BIN" script-agent --mcp-config {{ .McpServerFileArgs }} {{ .Prompt }}'
"#;

/// The agent of a run: its `config.agent`, and what `mcpeval check` runs it with.
pub struct RunAgent {
    /// `config.agent` as inline YAML: `{type: builtin.codex, model: m}`.
    pub config: String,
    /// Variables set for `mcpeval check` (its API's base URL and key, `PATH`, …).
    pub env: Vec<(String, String)>,
}

impl RunAgent {
    /// The `script-agent`, as an Agent file (`agent.yaml`).
    pub fn script() -> Self {
        Self {
            config: "{type: file, path: agent.yaml}".into(),
            env: Vec::new(),
        }
    }
}

/// Runs the task `faults::task` of an eval whose servers are `mcp_servers` (the YAML
/// mapping under `mcpServers`, indented by four spaces), whose prompt is `prompt` (script
/// lines) and whose task set has `assertions` (YAML under `assertions:`, indented by eight
/// spaces; may be empty), with the `script-agent`. `dir` gets the files; the task times out
/// after 60 s.
pub async fn run_task(
    dir: tempfile::TempDir,
    mcp_servers: &str,
    prompt: &str,
    assertions: &str,
) -> TaskRun {
    run_task_as(&RunAgent::script(), dir, mcp_servers, prompt, assertions).await
}

/// [`run_task`] with `agent`.
pub async fn run_task_as(
    agent: &RunAgent,
    dir: tempfile::TempDir,
    mcp_servers: &str,
    prompt: &str,
    assertions: &str,
) -> TaskRun {
    let eval = format!(
        "kind: Eval\nmetadata: {{name: faults}}\nconfig:\n  agent: {}\n  \
         mcpConfigFile: mcp.yaml\n  snapshot: off\n  taskSets:\n    - path: task.yaml\n      \
         assertions:\n{assertions}\n",
        agent.config
    );
    let prompt: String = prompt
        .lines()
        .map(|line| format!("      {line}\n"))
        .collect();
    let task = format!(
        "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: task}}\nspec:\n  \
         limits: {{timeout: 60s}}\n  prompt:\n    inline: |\n{prompt}"
    );
    write(dir.path(), "agent.yaml", AGENT);
    write(dir.path(), "eval.yaml", &eval);
    write(
        dir.path(),
        "mcp.yaml",
        &format!("mcpServers:\n{mcp_servers}\n"),
    );
    write(dir.path(), "task.yaml", &task);
    let output_dir = dir.path().join("out");
    let started = Instant::now();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .arg("check")
        .arg(dir.path().join("eval.yaml"))
        .args(["--", "--exact", "faults::task"])
        .env("MCPEVAL_OUTPUT_DIR", &output_dir)
        .env("RUST_BACKTRACE", "0")
        .envs(agent.env.iter().map(|(name, value)| (name, value)))
        .output()
        .await
        .expect("run mcpeval check");
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let results = output_dir.join("results").join("faults__task.json");
    let text = std::fs::read_to_string(&results).unwrap_or_else(|e| {
        panic!(
            "no results file {}: {e}\nstdout:\n{stdout}\nstderr:\n{}",
            results.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    TaskRun {
        code: out.status.code(),
        stdout,
        result: serde_json::from_str(&text).expect("the results file is JSON"),
        took,
        dir,
    }
}

/// The `mcpServers` entry of a stdio server named `name`.
pub fn stdio_server(name: &str, command: &str, args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(|arg| format!("{arg:?}")).collect();
    format!(
        "    {name}:\n      command: {command:?}\n      args: [{}]",
        args.join(", ")
    )
}

/// The `mcpServers` entry of an http server named `name`.
pub fn http_server(name: &str, url: &str) -> String {
    format!("    {name}:\n      type: http\n      url: {url:?}")
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("write {name}: {e}"));
}
