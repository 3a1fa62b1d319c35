//! The `mcpeval` binary as a user runs it from the repository's root, and how to read
//! what it printed.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// `mcpeval ARGS` in the repository's root, writing under `output` when given.
pub fn mcpeval(args: &[&str], output: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if let Some(output) = output {
        command.env("MCPEVAL_OUTPUT_DIR", output);
    }
    command.output().expect("run mcpeval")
}

/// `mcpeval check EVAL` writing under `output`, its llm-agent's OpenAI API at `base_url`,
/// with none of the caller's key, record mode, pricing file or `CI`, then `env` on top.
pub fn check_with_openai(
    eval: &Path,
    output: &Path,
    base_url: &str,
    env: &[(&str, &str)],
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .arg("check")
        .arg(eval)
        .env("MCPEVAL_OUTPUT_DIR", output)
        .env("RUST_BACKTRACE", "0")
        .env("OPENAI_BASE_URL", base_url);
    for var in [
        "CI",
        "OPENAI_API_KEY",
        "MODEL_KEY",
        "MCPEVAL_RECORD_MODE",
        "MCPEVAL_PRICING",
    ] {
        command.env_remove(var);
    }
    command.envs(env.iter().copied());
    command.output().expect("run mcpeval check")
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The results file `results/<stem>.json` under `output`.
pub fn result_file(output: &Path, stem: &str) -> Value {
    let file = output.join(format!("results/{stem}.json"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file:?}: {e}"))
}

/// The failure message of `test` in libtest's output: from its `---- test ----` line to
/// the next section.
pub fn failure_of<'a>(stdout: &'a str, test: &str) -> &'a str {
    let start = stdout
        .find(&format!("---- {test} ----"))
        .unwrap_or_else(|| panic!("no failure section for {test}:\n{stdout}"));
    let rest = &stdout[start..];
    let end = rest[5..].find("\n---- ").map_or(rest.len(), |i| i + 5);
    &rest[..end]
}

/// Every file under `dir` (recursively): what a run left behind.
pub fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}
