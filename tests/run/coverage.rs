//! Surface coverage end to end: two partitions of one eval run into two output directories,
//! each using a different part of the demo server; `mcpeval report` merges their coverage
//! (from results directories and from reports alike) and `--min-coverage` gates on it.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};
use support::results_schema::violations;

const EVAL: &str = "tests/fixtures/coverage/eval.yaml";

fn mcpeval(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs one task of the coverage eval into `dir`.
fn partition(dir: &Path, task: &str) -> String {
    let out = mcpeval(&[
        "check",
        "--output",
        &dir.display().to_string(),
        EVAL,
        "--",
        "--exact",
        &format!("coverage::{task}"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    dir.display().to_string()
}

fn report(inputs: &[&str], output: &Path, extra: &[&str]) -> Output {
    let output = output.display().to_string();
    let mut args = vec!["report"];
    args.extend(inputs);
    args.extend(["--output", &output]);
    args.extend(extra);
    mcpeval(&args)
}

#[test]
fn coverage_merges_over_partitions_and_gates_on_a_minimum() {
    let dir = tempfile::tempdir().unwrap();
    let adds = partition(&dir.path().join("adds"), "adds");
    let echoes = partition(&dir.path().join("echoes"), "echoes");

    // The results file names what the server advertised.
    let result: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("adds/results/coverage__adds.json")).unwrap(),
    )
    .unwrap();
    let errors = violations(&result);
    assert!(errors.is_empty(), "{errors:?}");
    // The run's trace keeps the definitions whole, schemas included.
    let trace: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("adds/runs/coverage__adds/trace.json")).unwrap(),
    )
    .unwrap();
    let tools = &trace["advertised"]["demo"]["tools"];
    let add = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "add");
    assert!(
        add.is_some_and(|add| add["inputSchema"]["type"] == "object"),
        "{tools}"
    );
    assert_eq!(
        trace["advertised"]["demo"]["resources"][0]["uri"],
        "demo://readme"
    );
    let surface = &result["surface"]["demo"];
    assert_eq!(
        surface["resourceTemplates"][0], "demo://users/{id}",
        "{surface}"
    );
    assert_eq!(surface["prompts"][0], "summarize", "{surface}");

    // One partition alone: add and the users template.
    let alone = report(&[&adds], &dir.path().join("adds.json"), &[]);
    assert_eq!(alone.status.code(), Some(0), "{}", text(&alone.stderr));
    let shown = text(&alone.stdout);
    assert!(
        shown.contains("  coverage of demo: 2 of 8 advertised items used (25.0%)\n"),
        "{shown}"
    );

    // Both merged: half of the surface, the rest listed as untouched.
    let merged = dir.path().join("report.json");
    let out = report(&[&adds, &echoes], &merged, &["--min-coverage", "0.5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    let expected = "  coverage of demo: 4 of 8 advertised items used (50.0%)
    tools: add (1 test), delete_user (0 tests), echo (1 test), flaky (0 tests), lookup_user (0 tests)
    resources: demo://readme (0 tests)
    resource templates: demo://users/{id} (1 test)
    prompts: summarize (1 test)
    untouched: tool delete_user, tool flaky, tool lookup_user, resource demo://readme
";
    assert!(shown.contains(expected), "{shown}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged).unwrap()).unwrap();
    let demo = &json["summary"]["coverage"]["demo"];
    assert_eq!(demo["coverage"], 0.5, "{demo}");
    assert_eq!(demo["tools"]["add"], 1, "{demo}");
    assert_eq!(
        demo["untouched"]["tools"],
        serde_json::json!(["delete_user", "flaky", "lookup_user"]),
        "{demo}"
    );

    // Below the minimum: exit 1, naming the server.
    let out = report(&[&adds, &echoes], &merged, &["--min-coverage", "0.8"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("coverage of demo is 50.0%, below the minimum 80.0%"),
        "{stderr}"
    );

    // Reports from two machines merge their coverage too.
    let first = dir.path().join("first.json");
    let second = dir.path().join("second.json");
    assert!(report(&[&adds], &first, &[]).status.success());
    assert!(report(&[&echoes], &second, &[]).status.success());
    let (first, second) = (first.display().to_string(), second.display().to_string());
    let out = report(&[&first, &second], &dir.path().join("again.json"), &[]);
    assert!(
        text(&out.stdout).contains(expected),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn min_coverage_fails_when_nothing_was_advertised_and_rejects_a_bad_share() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/results/current-shard-1");
    let fixtures = fixtures.display().to_string();
    let output = dir.path().join("report.json");
    let out = report(&[&fixtures], &output, &["--min-coverage", "0.1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no server advertised anything"),
        "{}",
        text(&out.stderr)
    );
    let out = report(&[&fixtures], &output, &["--min-coverage", "80"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("from 0 to 1"),
        "{}",
        text(&out.stderr)
    );
}
