//! mcpchecker extensions through real eval files (`tests/fixtures/extensions`): our notebook
//! extension, a Python script speaking the extension protocol, as a local package. Its steps
//! in setup, verify and cleanup; its logs, message and outputs in the step output; arguments
//! checked against the operation's schema before setup; the per-step timeout; crashes,
//! protocol garbage and missing packages failing only the tasks that need them; one start
//! and one shutdown per eval.

use crate::support::output;

use output::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const FIXTURES: &str = "tests/fixtures/extensions";

/// Runs `mcpeval check` on an eval of the fixtures, with its notebook files in `dir`.
fn check(eval: &str, libtest: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .arg("check")
        .arg(format!("{FIXTURES}/{eval}"))
        .arg("--")
        .args(libtest)
        .env("NOTEBOOK_DIR", dir)
        .env("NOTEBOOK_TOKEN", "tok-secret-4711")
        .env("MCPEVAL_OUTPUT_DIR", dir.join("out"))
        .env("RUST_BACKTRACE", "0")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn results(dir: &Path, eval: &str, task: &str) -> Value {
    let file = dir.join(format!("out/results/{eval}__{task}.json"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_default()
}

/// The step outputs of a phase of a results file: (label, passed, reason, output).
fn steps(result: &Value, phase: &str) -> Vec<(String, bool, String, String)> {
    result[phase]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let field = |k: &str| s[k].as_str().unwrap_or("").to_owned();
            (
                field("label"),
                s["passed"] == true,
                field("reason"),
                field("output"),
            )
        })
        .collect()
}

#[test]
fn steps_run_in_setup_verify_and_cleanup_with_logs_and_results_in_their_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = check("eval.yaml", &["ext::passes", "--exact"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        read(dir.path().join("notes.txt")),
        "setup: > first line\ncleanup: > cleaned up\n"
    );
    let result = results(dir.path(), "ext", "passes");
    let setup = steps(&result, "setupOutput");
    assert_eq!(setup[0].0, "setup[0] nb.append");
    assert!(setup[0].1);
    let output = &setup[0].3;
    for line in [
        r#"[info] appending first line {"phase":"setup"}"#,
        "message: appended to the notebook",
        r#"outputs: {"lines":"1"}"#,
    ] {
        assert!(output.contains(line), "{line} not in:\n{output}");
    }
    let verify = steps(&result, "verifyOutput");
    assert_eq!(
        (verify[0].0.as_str(), verify[0].1),
        ("verify[0] nb.expect", true)
    );
    assert_eq!(steps(&result, "cleanupOutput")[0].0, "cleanup[0] nb.append");
}

#[test]
fn the_extension_starts_once_per_eval_and_is_shut_down_at_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let out = check("eval.yaml", &["--test-threads", "2"], dir.path());
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    let events = read(dir.path().join("events.txt"));
    let lines: Vec<&str> = events.lines().collect();
    assert_eq!(lines.len(), 2, "{events}");
    assert!(lines[0].starts_with("initialize "), "{events}");
    assert_eq!(lines[1], "shutdown");
    let pid: i32 = lines[0]["initialize ".len()..].parse().unwrap();
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the extension {pid} is still there"
    );
}

#[test]
fn arguments_that_break_the_schema_fail_the_task_before_setup() {
    let dir = tempfile::tempdir().unwrap();
    let out = check("eval.yaml", &["ext::bad-arguments", "--exact"], dir.path());
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(101), "{shown}");
    assert!(
        shown.contains("tasks/ok/bad-arguments.yaml:13:7: spec.cleanup[0].nb.append: the arguments do not match the operation's schema"),
        "{shown}"
    );
    assert!(shown.contains("\"text\" is a required property"), "{shown}");
    assert!(shown.contains("txt"), "{shown}");
    // Nothing ran: not the setup step, not the cleanup.
    assert_eq!(read(dir.path().join("notes.txt")), "");
}

#[test]
fn a_failed_operation_fails_the_step_with_its_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = check(
        "eval.yaml",
        &["ext::operation-fails", "--exact"],
        dir.path(),
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(101), "{shown}");
    assert!(shown.contains("verify[0] book.expect"), "{shown}");
    assert!(
        shown.contains("the operation failed: the notebook does not contain 'never written'"),
        "{shown}"
    );
}

#[test]
fn env_values_of_an_extension_never_reach_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = check("eval.yaml", &["ext::passes", "--exact"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let result = read(dir.path().join("out/results/ext__passes.json"));
    assert!(result.contains("using token [redacted]"), "{result}");
    assert!(!result.contains("tok-secret-4711"), "{result}");
}

#[test]
fn a_step_longer_than_the_extension_timeout_fails_with_the_logs_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let out = check("broken.yaml", &["ext-broken::slow", "--exact"], dir.path());
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(101), "{shown}");
    let result = results(dir.path(), "ext-broken", "slow");
    let (label, passed, reason, output) = steps(&result, "setupOutput").remove(0);
    assert_eq!((label.as_str(), passed), ("setup[0] slow.append", false));
    assert_eq!(reason, "the operation `append` timed out after 2s");
    assert!(output.contains("[info] appending slowly"), "{output}");
}

#[test]
fn a_crashing_extension_fails_its_task_with_its_exit_code_and_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = check("broken.yaml", &["ext-broken::crash", "--exact"], dir.path());
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(101), "{shown}");
    let result = results(dir.path(), "ext-broken", "crash");
    let reason = &steps(&result, "setupOutput")[0].2;
    assert!(reason.contains("exited with exit code 3"), "{reason}");
    assert!(reason.contains("notebook: crashing as asked"), "{reason}");
}

#[test]
fn an_extension_that_writes_garbage_fails_its_task_saying_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let out = check(
        "broken.yaml",
        &["ext-broken::garbage", "--exact"],
        dir.path(),
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(101), "{shown}");
    assert!(shown.contains("broke the protocol"), "{shown}");
    assert!(shown.contains("\"this is not JSON-RPC\""), "{shown}");
}

#[test]
fn broken_extensions_fail_only_the_tasks_that_need_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = check("broken.yaml", &["--test-threads", "1"], dir.path());
    let shown = text(&out);
    assert!(
        shown.contains("test result: FAILED. 1 passed; 4 failed;"),
        "{shown}"
    );
    assert!(
        shown.contains("test ext-broken::unaffected ... ok"),
        "{shown}"
    );
    assert!(
        shown.contains("broken.yaml:24:7: config.extensions.gone.package: extension not found at"),
        "{shown}"
    );
    assert!(shown.contains("no-such-extension"), "{shown}");
}

#[test]
fn validate_starts_no_extension_and_lists_the_steps_it_could_not_check() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["validate", &format!("{FIXTURES}/eval.yaml")])
        .env("NOTEBOOK_DIR", dir.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ext::bad-arguments\next::operation-fails\next::passes\n"
    );
    assert!(stderr.contains("validate starts no extension"), "{stderr}");
    for step in [
        "tasks/ok/passes.yaml: spec.setup[0].nb.append",
        "tasks/ok/passes.yaml: spec.verify[0].nb.expect",
        "tasks/ok/operation-fails.yaml: spec.verify[0].book.expect",
        "tasks/ok/bad-arguments.yaml: spec.cleanup[0].nb.append",
    ] {
        assert!(stderr.contains(step), "{step} not in:\n{stderr}");
    }
    assert!(
        !dir.path().join("events.txt").exists(),
        "validate started it"
    );
}

#[test]
fn under_nextest_each_test_process_starts_and_shuts_down_its_own_extension() {
    if !crate::support::peers::nextest_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = crate::support::cargo::command()
        .args(["nextest", "run", "--test", "fixture", "--no-fail-fast"])
        .args(["--color", "never", "-E", "test(/^ext::/)"])
        .env("MCPEVAL_FIXTURE", FIXTURES)
        .env("NOTEBOOK_DIR", dir.path())
        .env("MCPEVAL_OUTPUT_DIR", dir.path().join("out"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let shown = text(&out);
    assert!(shown.contains("3 tests run: 1 passed, 2 failed"), "{shown}");
    let events = read(dir.path().join("events.txt"));
    let starts = events
        .lines()
        .filter(|l| l.starts_with("initialize"))
        .count();
    let stops = events.lines().filter(|l| *l == "shutdown").count();
    assert_eq!((starts, stops), (3, 3), "{events}");
}

#[test]
fn validate_says_when_a_local_package_is_missing() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["validate", &format!("{FIXTURES}/broken.yaml")])
        .env("NOTEBOOK_DIR", "/tmp")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("config.extensions.gone.package: ")
            && stderr.contains(
                "no-such-extension does not exist (yet); the tasks that need it will fail"
            ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("config.extensions.slow.package"),
        "{stderr}"
    );
}
