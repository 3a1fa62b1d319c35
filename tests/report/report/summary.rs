//! The merged report and its summary: shards merged, `--format json`, errors, and the
//! summary at the end of a run.

use super::{fixture, mcpeval, merged, text};

#[test]
fn report_merges_shards_into_one_report_with_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _, out) = merged(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.starts_with("mcpeval summary: 3 of 5 task runs passed (60.0%); 2 failed\n"),
        "{shown}"
    );
    assert!(
        shown.contains("  eval docs: 1/2 (50.0%)\n  eval k8s: 2/3 (66.7%)\n"),
        "{shown}"
    );
    assert!(
        shown.contains("  difficulty hard: 1/1 (100.0%)\n  difficulty medium: 0/1 (0.0%)\n"),
        "{shown}"
    );
    assert!(shown.contains("  difficulty unset: 1/2 (50.0%)"), "{shown}");
    assert!(shown.contains("  assertions: 8/10 held (80.0%)"), "{shown}");
    assert!(
        shown.contains("  tokens (estimated): 500 prompt, 100 output"),
        "{shown}"
    );
    assert!(shown.contains("  slowest: k8s::delete-pod 3.5s, k8s::create-pod 3.0s, k8s::list-pods 0.9s, docs::search#2 0.7s"), "{shown}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    // The fixtures were written before results files carried a version: they read as 1.
    assert_eq!(report["schemaVersion"], 1);
    assert_eq!(report["results"][0]["schemaVersion"], 1);
    assert_eq!(report["summary"]["runs"], 5);
    assert_eq!(report["summary"]["passRate"], 0.6);
    let names: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["testName"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "docs::search",
            "docs::search",
            "k8s::create-pod",
            "k8s::delete-pod",
            "k8s::list-pods"
        ]
    );
}

#[test]
fn report_format_json_prints_the_merged_report_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let out = mcpeval(&[
        "report",
        &fixture("current-shard-1").display().to_string(),
        &fixture("current-shard-2").display().to_string(),
        "--output",
        &report.display().to_string(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(printed, written);
    assert_eq!(printed["schemaVersion"], 1);
    assert_eq!(printed["summary"]["runs"], 5);
    assert!(
        text(&out.stderr).contains("  report: "),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn report_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpeval(&["report", &dir.path().display().to_string()]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("no results files in"),
        "{}",
        text(&out.stderr)
    );
    std::fs::write(dir.path().join("broken.json"), "{\"taskName\": 3}").unwrap();
    let out = mcpeval(&["report", &dir.path().display().to_string()]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("broken.json is not a mcpeval results file or report"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_harness_prints_the_summary_at_the_end_of_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpeval(&[
        "check",
        "--output",
        &dir.path().display().to_string(),
        "tests/fixtures/failing/eval.yaml",
    ]);
    assert_eq!(out.status.code(), Some(101));
    let stderr = text(&out.stderr);
    // The task file that does not load counts as a failed task, with a results file.
    assert!(
        stderr.contains("mcpeval summary: 1 of 16 task runs passed (6.2%); 15 failed"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "  results: {}",
            dir.path().join("results").display()
        )),
        "{stderr}"
    );
    assert!(dir.path().join("results/failing__passes.json").is_file());
}
