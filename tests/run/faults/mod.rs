//! Faults on purpose (`faults` rules) through the file agent (the script agent) and the
//! demo server: every fault kind reaches the agent as what it is, the trace and the
//! results say it was injected, a rule that never matched is noted, a `probability` rule is
//! reproduced by its seed, and bad rules are load errors at their key paths. The real Claude
//! Code's recorded runs through every fault kind (`evals/claude-code-faults`) hold each
//! fault as its model saw it.

use crate::support;

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use support::cli::result_file;
use support::eval_run::AGENT;

mod claude_code;
mod kinds;
mod rules;

const MCP: &str = "mcpServers:\n  demo:\n    command: ${MCPEVAL_BIN}\n    args: [demo-server]\n";

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A task running the script `lines` (one directive per line) with `faults` (YAML list
/// items, indented for `spec.faults`).
pub(super) fn task(name: &str, lines: &[&str], faults: &str) -> String {
    let prompt = lines.join("\n      ");
    let faults = if faults.is_empty() {
        String::new()
    } else {
        format!("  faults:\n{faults}")
    };
    format!(
        "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: {name}}}\nspec:\n  \
         limits: {{timeout: 60s}}\n{faults}  prompt:\n    inline: |\n      {prompt}\n"
    )
}

pub(super) const ADD: &str = "call demo add {\"a\": 2, \"b\": 3}";

/// An eval whose task set adds `set_faults` (YAML list items) and `assertions`, with the
/// tasks given.
pub(super) fn eval_dir(
    set_faults: &str,
    assertions: &str,
    tasks: &[(&str, String)],
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut eval = "kind: Eval\nmetadata: {name: faulty}\nconfig:\n  agent: {type: file, path: agent.yaml}\n  \
         mcpConfigFile: mcp.yaml\n  snapshot: off\n  taskSets:\n    - glob: tasks/*.yaml\n"
        .to_owned();
    if !set_faults.is_empty() {
        eval.push_str(&format!("      faults:\n{set_faults}"));
    }
    if !assertions.is_empty() {
        eval.push_str(&format!("      assertions:\n{assertions}"));
    }
    write(dir.path(), "eval.yaml", &eval);
    write(dir.path(), "agent.yaml", AGENT);
    write(dir.path(), "mcp.yaml", MCP);
    for (name, text) in tasks {
        write(dir.path(), &format!("tasks/{name}.yaml"), text);
    }
    dir
}

pub(super) fn check(dir: &Path, seed: Option<&str>, libtest: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .arg("check")
        .arg(dir.join("eval.yaml"))
        .arg("--")
        .args(libtest)
        .env("MCPEVAL_OUTPUT_DIR", dir.join("out"))
        .env("RUST_BACKTRACE", "0")
        .env_remove("MCPEVAL_SEED");
    if let Some(seed) = seed {
        command.env("MCPEVAL_SEED", seed);
    }
    command.output().expect("run mcpeval check")
}

pub(super) fn result(dir: &Path, task: &str) -> Value {
    result_file(&dir.join("out"), &format!("faulty__{task}"))
}

pub(super) fn calls(result: &Value) -> Vec<Value> {
    result["callHistory"]["toolCalls"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

pub(super) fn injected(call: &Value) -> Option<&str> {
    call["injected"]["fault"].as_str()
}
