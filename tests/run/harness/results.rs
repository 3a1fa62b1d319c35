//! The results files: their schema for passing and failing tasks, repeated runs against
//! `minPassRate`, and files of tests that are gone removed.

use std::path::Path;
use std::process::Command;

use crate::support::results_schema::violations;

use super::{FAILING, failure_sections, results_of, stdout};

#[test]
fn results_files_of_passing_and_failing_tasks_match_the_schema() {
    let output = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["check", FAILING, "--", "--exact"])
        .arg("failing::passes")
        .env("MCPEVAL_OUTPUT_DIR", output.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    for task in ["tools-used", "verify-fails", "agent-crashes"] {
        let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
            .args(["check", FAILING, "--", "--exact"])
            .arg(format!("failing::{task}"))
            .env("MCPEVAL_OUTPUT_DIR", output.path())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    }
    for file in [
        "failing__passes.json",
        "failing__tools-used.json",
        "failing__verify-fails.json",
        "failing__agent-crashes.json",
    ] {
        let result = results_of(output.path(), file);
        let errors = violations(&result);
        assert!(errors.is_empty(), "{file}: {errors:#?}\n{result:#}");
    }
    let passed = results_of(output.path(), "failing__passes.json");
    assert_eq!(passed["taskPassed"], true);
    assert_eq!(passed["testName"], "failing::passes");
    assert_eq!(passed["callHistory"]["toolCalls"][0]["name"], "add");
    assert_eq!(
        passed["callHistory"]["toolCalls"][0]["arguments"],
        serde_json::json!({"a": 20, "b": 22})
    );
    assert_eq!(passed["taskOutput"], "42");
    let failed = results_of(output.path(), "failing__tools-used.json");
    assert_eq!(failed["taskPassed"], false);
    assert_eq!(failed["allAssertionsPassed"], false);
    assert_eq!(failed["assertionResults"]["toolsUsed"]["passed"], false);
    assert!(
        failed["taskError"]
            .as_str()
            .unwrap()
            .starts_with("toolsUsed (config.taskSets[0]): expected"),
        "{failed:#}"
    );
    let verify = results_of(output.path(), "failing__verify-fails.json");
    assert_eq!(verify["verifyOutput"]["success"], false);
    assert!(
        verify["verifyOutput"]["steps"][0]["output"]
            .as_str()
            .unwrap()
            .contains("the pod is not running")
    );
    let crash = results_of(output.path(), "failing__agent-crashes.json");
    assert_eq!(crash["agentExecutionError"], true);
    // Files are complete JSON, and nothing half-written is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(output.path().join("results"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn repeated_runs_pass_on_min_pass_rate_with_a_wilson_interval_and_are_marked_flaky() {
    let counters = tempfile::tempdir().unwrap();
    let output = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args([
            "check",
            "tests/fixtures/runs/eval.yaml",
            "--",
            "--test-threads",
            "1",
        ])
        .env("MCPEVAL_COUNTER_DIR", counters.path())
        .env("MCPEVAL_OUTPUT_DIR", output.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = stdout(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{text}");
    assert!(text.contains("test runs::lenient ... ok"), "{text}");
    assert!(
        stderr.contains(
            "note: runs::lenient: flaky: 2 of 3 runs passed (67%, 95% Wilson interval 21%–94%); minPassRate 0.6"
        ),
        "{stderr}"
    );
    let sections = failure_sections(&text);
    let strict = &sections["runs::strict"];
    assert!(
        strict.starts_with(
            "flaky: 2 of 3 runs passed (67%, 95% Wilson interval 21%–94%); minPassRate 0.8"
        ),
        "{strict}"
    );
    assert!(strict.contains("===== run 2 of 3 failed ====="), "{strict}");
    assert!(strict.contains("run 2 fails on purpose"), "{strict}");
    assert!(
        !strict.contains("run 1 of 3 failed") && !strict.contains("run 3 of 3 failed"),
        "{strict}"
    );
    // Every run keeps its own results.
    for run in 1..=3 {
        let result = results_of(output.path(), &format!("runs__strict.run{run}.json"));
        assert_eq!(result["runIndex"], run - 1);
        assert_eq!(result["totalRuns"], 3);
        assert_eq!(result["taskPassed"], run != 2);
    }
    // The summary at the end of the run and the merged report mark both tasks flaky.
    for task in ["lenient", "strict"] {
        let line = format!(
            "  flaky: runs::{task}: 2 of 3 runs passed (67%, 95% Wilson interval 21%–94%)\n"
        );
        assert!(stderr.contains(&line), "{stderr}");
    }
    let report = output.path().join("report.json");
    let merged = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["report", &output.path().display().to_string()])
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(0), "{merged:?}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let flaky: Vec<(&str, u64, u64)> = report["summary"]["flaky"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["testName"].as_str().unwrap(),
                f["passed"].as_u64().unwrap(),
                f["runs"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(flaky, [("runs::lenient", 2, 3), ("runs::strict", 2, 3)]);
}

#[test]
fn results_files_of_tests_that_are_gone_or_of_runs_no_longer_made_are_removed() {
    let output = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stale-results");
    let _ = std::fs::remove_dir_all(&output);
    let results = output.join("results");
    std::fs::create_dir_all(&results).unwrap();
    let plant = |file: &str, eval: &str, test: &str| {
        let json = format!(r#"{{"evalName": "{eval}", "testName": "{test}"}}"#);
        std::fs::write(results.join(file), json).unwrap();
    };
    plant("failing__gone.json", "failing", "failing::gone");
    plant("other__kept.json", "other", "other::kept");
    plant("failing__passes.run2.json", "failing", "failing::passes");
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args([
            "check",
            "tests/fixtures/failing/eval.yaml",
            "--",
            "failing::passes",
        ])
        .env("MCPEVAL_OUTPUT_DIR", &output)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("note: removed the results files of tests that are gone: failing::gone"),
        "{stderr}"
    );
    let mut left: Vec<String> = std::fs::read_dir(&results)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    // The task renamed away is gone, another eval's results stay, a run no longer made is
    // gone, and the test that ran has its one file.
    assert_eq!(left, ["failing__passes.json", "other__kept.json"]);
}
