//! The harness as a user meets it: the `mcpeval check` door (the same trials as
//! `cargo test --test evals`), its names, filters, list formats, JSON events, exit codes and
//! failure messages, its results files, `serial` tasks, runs under `cargo nextest`, and no
//! process left behind.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

mod failures;
mod processes;
mod results;
mod selection;
mod serial;
mod under_nextest;

pub(super) fn check(eval: &str, libtest: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .arg("check")
        .arg(eval)
        .arg("--")
        .args(libtest)
        .envs(env.iter().copied())
        .env("RUST_BACKTRACE", "0")
        .env(
            "MCPEVAL_OUTPUT_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("harness-runs"),
        )
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

pub(super) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The failure message of each failed test, from libtest's `---- name ----` sections.
pub(super) fn failure_sections(text: &str) -> BTreeMap<String, String> {
    let mut sections = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" ----"))
        {
            if let Some((name, body)) = current.take() {
                sections.insert(name, body);
            }
            current = Some((name.trim().to_owned(), String::new()));
        } else if line == "failures:" {
            if let Some((name, body)) = current.take() {
                sections.insert(name, body);
            }
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    sections
}

pub(super) const FAILING: &str = "tests/fixtures/failing/eval.yaml";

pub(super) fn results_of(dir: &Path, file: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("results").join(file))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// `cargo nextest` on this package's `fixture` test binary running `fixture` (a directory
/// under tests/fixtures): one process per task.
pub(super) fn nextest(fixture: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    nextest_into(&format!("nextest-{fixture}"), fixture, args, env)
}

/// [`nextest`] with the output directory `<CARGO_TARGET_TMPDIR>/<output>`.
pub(super) fn nextest_into(
    output: &str,
    fixture: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Output {
    crate::support::cargo::command()
        .args([
            "nextest",
            "run",
            "--test",
            "fixture",
            "--no-fail-fast",
            "--color",
            "never",
        ])
        .args(args)
        .envs(env.iter().copied())
        .env("MCPEVAL_FIXTURE", format!("tests/fixtures/{fixture}"))
        .env("RUST_BACKTRACE", "0")
        .env(
            "MCPEVAL_OUTPUT_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(output),
        )
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}
