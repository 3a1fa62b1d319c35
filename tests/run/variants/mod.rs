//! `config.variants`: each task × variant is a test of its own (`<eval>::<task>@<variant>`)
//! with its own results file; a variant's agent variables, tool-description overrides,
//! decoy tools and `servers: none` reach the run, and what each did is in the results.

use crate::support;

use std::path::Path;
use std::process::Output;

use mcpeval::plan::validate_eval_with;
use serde_json::Value;
use support::cli::result_file;
use support::eval_run::AGENT;

mod claude_code;
mod comparison;
mod errors;
mod runs;

/// The demo server, started by `mcpeval demo-server`; `${DEMO_ARG}` lets a variant start
/// something else.
pub(super) const MCP: &str =
    "mcpServers:\n  demo:\n    command: ${MCPEVAL_BIN}\n    args: [\"${DEMO_ARG}\"]\n";

const VARIANTS: &str = r#"
  variants:
    - name: base
    - name: flag
      env: {FLAG: "on"}
    - name: described
      baseline: true
      toolOverrides:
        demo:
          add:
            title: Adder
            description: Sums two numbers and nothing else, exactly as a pocket calculator would do it
            inputSchema:
              properties:
                a: {description: the first number to add}
    - name: decoyed
      decoys:
        demo:
          - name: add_numbers
            description: Adds numbers
            inputSchema: {type: object, properties: {a: {type: number}}}
    - name: misnamed
      toolOverrides:
        demo:
          nope: {description: a tool the server does not have}
    - name: alone
      servers: none
    - name: broken-build
      env: {DEMO_ARG: no-such-command}
"#;

/// What `${VAR}` in the MCP config finds when an eval is validated here.
fn lookup(name: &str) -> Option<String> {
    match name {
        "MCPEVAL_BIN" => Some(env!("CARGO_BIN_EXE_mcpeval").to_owned()),
        "DEMO_ARG" => Some("demo-server".to_owned()),
        _ => None,
    }
}

pub(super) fn validate_eval(path: &Path) -> Result<Vec<String>, mcpeval::config::ConfigErrors> {
    validate_eval_with(path, &lookup)
}

pub(super) fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

pub(super) fn task(name: &str, prompt: &str) -> String {
    format!(
        "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: {name}}}\nspec:\n  \
         limits: {{timeout: 60s}}\n  prompt:\n    inline: |\n      {prompt}\n  verify:\n    \
         - script:\n        inline: 'echo \"flag=${{FLAG:-unset}}\"'\n"
    )
}

/// An eval `vary` with two tasks (`sum`: list the tools, call `add`; `decoy`: call
/// `add_numbers`) and the variants above.
pub(super) fn eval_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let eval = format!(
        "kind: Eval\nmetadata: {{name: vary}}\nconfig:\n  agent: {{type: file, path: agent.yaml}}\n  \
         mcpConfigFile: mcp.yaml\n  snapshot: off\n  taskSets:\n    - glob: tasks/*.yaml\n      \
         assertions:\n        toolsUsed: [{{server: demo, tool: add}}]\n{VARIANTS}"
    );
    write(dir.path(), "eval.yaml", &eval);
    write(dir.path(), "agent.yaml", AGENT);
    write(dir.path(), "mcp.yaml", MCP);
    std::fs::create_dir(dir.path().join("tasks")).unwrap();
    let sum = "list demo\n      call demo add {\"a\": 2, \"b\": 3}";
    write(dir.path(), "tasks/sum.yaml", &task("sum", sum));
    let decoy = "call demo add_numbers {\"a\": 1}\n      call demo add {\"a\": 1, \"b\": 1}";
    write(dir.path(), "tasks/decoy.yaml", &task("decoy", decoy));
    dir
}

pub(super) fn check(dir: &Path, libtest: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .arg("check")
        .arg(dir.join("eval.yaml"))
        .arg("--")
        .args(libtest)
        .env("MCPEVAL_OUTPUT_DIR", dir.join("out"))
        .env("DEMO_ARG", "demo-server")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run mcpeval check")
}

pub(super) fn result(dir: &Path, stem: &str) -> Value {
    result_file(&dir.join("out"), stem)
}
