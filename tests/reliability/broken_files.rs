//! A task file that does not load is a failing test, and nothing of it is lost: it has a
//! results file, and the report counts it. Observed before: the test failed, but no results
//! file was written, so `mcpeval report` and `diff` did not know the task existed.

use crate::common::{files, fixture, mcpeval, results, text};
use crate::support::results_schema::violations;

/// Expected: beside a task that passes, a task file with a misspelled key fails with the
/// file and key path, writes a results file that says so (valid against the schema), and
/// the report counts two tasks, one failed.
#[test]
fn a_task_that_does_not_load_has_a_results_file_and_is_in_the_report() {
    let eval = format!(
        "kind: Eval\nmetadata: {{name: broken}}\nconfig:\n  agent: {{type: file, path: {:?}}}\n  \
         mcpConfigFile: {:?}\n  snapshot: off\n  taskSets:\n    - glob: \"*.task.yaml\"\n",
        fixture("agent.yaml"),
        fixture("mcp-config.yaml"),
    );
    let good = "kind: Task\nmetadata: {name: good}\nsteps:\n  prompt: {inline: 'call demo echo {\"text\": \"x\"}'}\n";
    let bad = "kind: Task\nmetadata: {name: bad}\nsteps:\n  promt: {inline: hi}\n";
    let dir = files(&[
        ("eval.yaml", &eval),
        ("good.task.yaml", good),
        ("bad.task.yaml", bad),
    ]);
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(dir.path(), output.path(), &["check", "eval.yaml"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(
        stdout.contains("bad.task.yaml") && stdout.contains("promt"),
        "{stdout}"
    );

    let results = results(output.path());
    assert_eq!(results.len(), 2, "observed results: {results:?}");
    let bad = results
        .iter()
        .find(|result| result["testName"] == "broken::bad")
        .expect("a results file for the task that does not load");
    assert_eq!(bad["taskPassed"], false);
    assert!(
        bad["reasons"][0]
            .as_str()
            .is_some_and(|reason| reason.starts_with("the task file does not load")),
        "{bad}"
    );
    let errors = violations(bad);
    assert!(errors.is_empty(), "{errors:?}");

    let report = mcpeval(
        dir.path(),
        output.path(),
        &["report", &output.path().display().to_string()],
    );
    let summary = text(&report.stdout);
    assert!(summary.contains("1 of 2"), "observed report:\n{summary}");
}
