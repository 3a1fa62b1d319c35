//! Under `cargo nextest`: one process per task, with names, filters and exit code, and one
//! HTML report per run.

use std::path::Path;

use crate::support::peers::nextest_available;

use super::{nextest, nextest_into};

/// The test names of the task table of an HTML report, in its order.
fn page_tasks(page: &Path) -> Vec<String> {
    let html = std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    let table = &html[html.find(r#"id="task-table""#).unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    table
        .split(r#"<tr data-id=""#)
        .skip(1)
        .map(|row| row[..row.find('"').unwrap()].to_owned())
        .collect()
}

#[test]
fn under_nextest_the_tests_of_one_run_make_one_html_report() {
    if !nextest_available() {
        return;
    }
    let output = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nextest-page");
    let _ = std::fs::remove_dir_all(&output);
    let page = output.join("report.html");
    // Four at a time, so that tests end while another renders the page.
    let out = nextest_into(
        "nextest-page",
        "failing",
        &[
            "-j",
            "4",
            "-E",
            "test(/::(passes|tools-used|verify-fails|call-order|require-any|tools-not-used|max-tool-calls|min-tool-calls)$/)",
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(100),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Each test is a process of its own; the page holds the eight of the run.
    assert_eq!(
        page_tasks(&page),
        [
            "failing::call-order",
            "failing::max-tool-calls",
            "failing::min-tool-calls",
            "failing::passes",
            "failing::require-any",
            "failing::tools-not-used",
            "failing::tools-used",
            "failing::verify-fails",
        ]
    );
    // The next run's page holds its own test, not the results files left by the one before.
    let out = nextest_into("nextest-page", "failing", &["-E", "test(/::passes$/)"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(page_tasks(&page), ["failing::passes"]);
    let files = std::fs::read_dir(output.join("results")).unwrap().flatten();
    assert_eq!(files.count(), 8, "the first run's results files stay");
}

#[test]
fn nextest_runs_each_task_in_its_own_process_with_names_filters_and_exit_code() {
    if !nextest_available() {
        return;
    }
    let out = nextest(
        "failing",
        &["-E", "test(/::(passes|tools-used|broken|agent-crashes)$/)"],
        &[],
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(100), "{text}");
    assert!(
        text.contains("PASS") && text.contains("failing::passes"),
        "{text}"
    );
    for name in [
        "failing::tools-used",
        "failing::broken",
        "failing::agent-crashes",
    ] {
        assert!(
            text.lines().any(|l| l.contains("FAIL") && l.contains(name)),
            "{name} did not fail:\n{text}"
        );
    }
    assert!(text.contains("4 tests run: 1 passed, 3 failed"), "{text}");
    assert!(text.contains("toolsUsed (config.taskSets[0])"), "{text}");
    assert!(
        text.contains("spec.prompt.inlin: unknown field; did you mean inline?"),
        "{text}"
    );

    let listed = crate::support::cargo::command()
        .args([
            "nextest",
            "list",
            "--test",
            "fixture",
            "--message-format",
            "oneline",
            "--color",
            "never",
        ])
        .env("MCPEVAL_FIXTURE", "tests/fixtures/failing")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert_eq!(
        listed.lines().filter(|l| l.contains("failing::")).count(),
        16,
        "{listed}"
    );
}
