//! The markdown comment: its marker, the tasks grouped, and GitHub's size limit however
//! large the suite.

use std::path::Path;

use serde_json::{Value, json};

use super::{mcpeval, pair, result, text};

#[test]
fn the_markdown_comment_starts_with_its_marker_and_groups_the_tasks() {
    let (_dir, base, current) = pair();
    let out = mcpeval(&["diff", &base, &current, "--format", "markdown"]);
    let markdown = text(&out.stdout);
    assert!(
        markdown.starts_with("<!-- mcpeval -->\n### mcpeval: "),
        "{markdown}"
    );
    for part in [
        "2 regressed · 1 fixed · 2 flaky · 0 new · 0 removed",
        "| ❌ regressed | `e::collapsed` | 100% | 0% | 5 of 5 → 0 of 5 runs passed (one-sided Fisher p = 0.0040) |",
        "| ✅ fixed | `e::mended` | 0% | 100% |",
        "| `e::dipped` | 5 of 5 → 3 of 5 | 60% (23%–88%) | lower, not clearly (one-sided Fisher p = 0.2222) |",
        "<details><summary>Lower or higher, not clearly (1)",
        "| `e::faded` | 40% | 0% | 2 of 5 → 0 of 5 runs passed (one-sided Fisher p = 0.2222) |",
        "<details><summary>Unchanged (1)</summary>\n\n- `e::steady`\n",
    ] {
        assert!(markdown.contains(part), "lacks {part:?}:\n{markdown}");
    }
}

/// A report of `tests` tests of one run each with long names and reasons.
fn big_report(path: &Path, tests: usize, passed: bool) {
    let results: Vec<Value> = (0..tests)
        .map(|i| {
            let name = format!("suite::a-rather-long-task-name-to-fill-the-comment-{i:05}");
            result(&name, passed, &|run| {
                if !passed {
                    let reason = format!("toolsUsed (config.taskSets[0]): {}", "x".repeat(400));
                    run["reasons"] = json!([reason]);
                    run["taskError"] = reason.into();
                }
            })
        })
        .collect();
    let report = json!({"summary": {"runs": 0, "passed": 0, "failed": 0, "passRate": 0.0,
        "byEval": {}, "byDifficulty": {}, "assertionsPassed": 0, "assertionsTotal": 0,
        "assertionPassRate": 1.0, "promptTokens": 0, "outputTokens": 0, "slowest": []},
        "results": results});
    std::fs::write(path, report.to_string()).unwrap();
}

#[test]
fn a_five_thousand_task_suite_fits_in_one_comment() {
    let dir = tempfile::tempdir().unwrap();
    let (base, current) = (
        dir.path().join("base.json"),
        dir.path().join("current.json"),
    );
    big_report(&base, 5000, true);
    big_report(&current, 5000, false);
    let (base, current) = (base.display().to_string(), current.display().to_string());
    let out = mcpeval(&["diff", &base, &current, "--format", "markdown"]);
    let markdown = text(&out.stdout);
    assert!(markdown.len() <= 65_536, "{} bytes", markdown.len());
    assert!(
        markdown.len() > 60_000,
        "uses the room it has: {}",
        markdown.len()
    );
    assert!(markdown.starts_with("<!-- mcpeval -->\n"));
    assert!(
        markdown.contains("5000 regressed · 0 fixed"),
        "{}",
        &markdown[..400]
    );
    assert!(
        markdown.contains(
            "more tasks not shown: the comment's limit; `--format json` lists them all._"
        ),
        "{}",
        &markdown[markdown.len() - 400..]
    );

    let report = dir.path().join("report.json");
    let out = mcpeval(&[
        "report",
        &current,
        "--output",
        &report.display().to_string(),
        "--format",
        "markdown",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let markdown = text(&out.stdout);
    assert!(markdown.len() <= 65_536, "{} bytes", markdown.len());
    assert!(markdown.starts_with("<!-- mcpeval -->\n### mcpeval: 0 of 5000 task runs passed"));
    assert!(
        markdown.contains("more failed tests not shown"),
        "{}",
        &markdown[markdown.len() - 400..]
    );
    assert!(
        text(&out.stderr).contains("  report: "),
        "the paths go to stderr"
    );
}
