//! The `mcpeval` binary: `validate`, `--version`, `--help`, exit codes, stdout vs stderr.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mcpeval(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn validate_prints_the_planned_test_names_and_exits_zero() {
    let out = mcpeval(&[
        "validate",
        "tests/fixtures/examples/simple-builtin/eval.yaml",
        "tests/fixtures/examples/multi-task/eval.yaml",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "kubernetes-basic::create-pod\ncomprehensive-eval::list-pods\ncomprehensive-eval::list-namespaces\n\
         comprehensive-eval::scale-deployment\ncomprehensive-eval::replace-pod\n"
    );
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn validate_prints_every_error_to_stderr_and_exits_two() {
    let out = mcpeval(&[
        "validate",
        "tests/fixtures/examples/flexible/eval.yaml",
        "tests/fixtures/invalid/unknown-key-suggestion.yaml",
        "tests/fixtures/invalid/negative-count.yaml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "stdout: {}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(
        "error: tests/fixtures/invalid/unknown-key-suggestion.yaml:13:13: \
         config.taskSets[0].assertions.toolsUsed[0].toolPatern: unknown field; did you mean toolPattern?"
    ), "{stderr}");
    assert!(stderr.contains("negative-count.yaml:10:20: config.taskSets[0].assertions.maxToolCalls: must be 0 or more"), "{stderr}");
    assert!(stderr.contains("2 errors in 2 eval files"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn validate_of_a_missing_file_is_an_error_not_a_panic() {
    let out = mcpeval(&["validate", "no/such/eval.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no/such/eval.yaml: cannot read file"),
        "{stderr}"
    );
}

#[test]
fn validate_resolves_paths_against_the_eval_file_not_the_working_directory() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/examples/flexible");
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["validate", &dir.join("eval.yaml").display().to_string()])
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        "flexible-eval::creative-task\n",
        "{}",
        text(&out.stderr)
    );
    assert!(Path::new(&dir).is_dir());
}

#[test]
fn version_names_the_crate_version_and_the_commit() {
    let out = mcpeval(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let version = text(&out.stdout);
    assert!(
        version.starts_with(&format!("mcpeval {} (", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    assert!(version.trim_end().ends_with(')'), "{version}");
}

#[test]
fn help_lists_validate() {
    let out = mcpeval(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("validate"));
    let usage = mcpeval(&[]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(text(&usage.stderr).contains("Usage"));
}

#[test]
fn validate_and_check_know_their_own_path_as_mcpeval_bin() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["validate", "evals/demo/eval.yaml"])
        .env_remove("MCPEVAL_BIN")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        "demo::arithmetic\ndemo::lookup-user\n",
        "{}",
        text(&out.stderr)
    );
}
