//! Regressions decided by the one-sided Fisher test at several runs, and flaky tasks with
//! their counts and direction.

use serde_json::{Value, json};

use super::{ALL, mcpeval, pair, text, write_runs};

#[test]
fn a_drop_at_five_runs_regresses_only_when_unlikely_to_be_chance() {
    let (_dir, base, current) = pair();
    let out = mcpeval(&["diff", &base, &current]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    for line in [
        "regressed: e::broke (100% -> 0%)\n",
        "regressed: e::collapsed (100% -> 0%)\n  5 of 5 -> 0 of 5 runs passed (one-sided Fisher p = 0.0040)\n",
        "fixed: e::mended (0% -> 100%)\n",
        "flaky: e::dipped 5 of 5 -> 3 of 5 runs passed (60%, 95% Wilson interval 23%–88%); lower, not clearly (one-sided Fisher p = 0.2222)\n",
        "flaky: e::shaky 3 of 3 -> 2 of 3 runs passed",
        "lower, not clearly: e::faded (40% -> 0%)\n  2 of 5 -> 0 of 5 runs passed (one-sided Fisher p = 0.2222)\n",
        "unchanged: 1 test\n",
    ] {
        assert!(shown.contains(line), "lacks {line:?}:\n{shown}");
    }
    assert!(!shown.contains("regressed: e::dipped"), "{shown}");

    let out = mcpeval(&["diff", &base, &current, "--fail-on-regression"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("a task regressed (--fail-on-regression)"));
}

#[test]
fn without_a_significant_drop_fail_on_regression_passes() {
    let dir = tempfile::tempdir().unwrap();
    let (base, current) = (dir.path().join("base"), dir.path().join("current"));
    write_runs(&base, "e::dipped", &ALL);
    write_runs(&current, "e::dipped", &[true, false, true, false, true]);
    write_runs(&base, "e::faded", &[true, false, false, true, false]);
    write_runs(&current, "e::faded", &[false; 5]);
    let (base, current) = (base.display().to_string(), current.display().to_string());
    let out = mcpeval(&["diff", &base, &current, "--fail-on-regression"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // And the significant one fails it.
    write_runs(
        &dir.path().join("current"),
        "e::dipped",
        &[false, false, false, false, true],
    );
    let out = mcpeval(&["diff", &base, &current, "--fail-on-regression"]);
    assert_eq!(out.status.code(), Some(1), "5 of 5 -> 1 of 5: p = 0.0238");
}

#[test]
fn a_flaky_task_says_its_counts_and_its_direction_in_every_format() {
    let (_dir, base, current) = pair();
    let json = mcpeval(&["diff", &base, &current, "--format", "json"]);
    let value: Value = serde_json::from_slice(&json.stdout).unwrap();
    let dipped = &value["tasks"][2];
    assert_eq!(dipped["testName"], "e::dipped");
    assert_eq!(
        (&dipped["change"], &dipped["direction"]),
        (&json!("flaky"), &json!("lower"))
    );
    assert_eq!(
        (&dipped["base"]["passed"], &dipped["base"]["runs"]),
        (&json!(5), &json!(5))
    );
    assert_eq!(
        (&dipped["current"]["passed"], &dipped["current"]["runs"]),
        (&json!(3), &json!(5))
    );
    let collapsed = &value["tasks"][1];
    assert_eq!(collapsed["direction"], "lower");
    let steady = &value["tasks"][6];
    assert_eq!(
        (&steady["testName"], &steady["direction"]),
        (&json!("e::steady"), &json!("same"))
    );
    let text = text(&mcpeval(&["diff", &base, &current]).stdout);
    assert!(
        text.contains("flaky: e::dipped 5 of 5 -> 3 of 5 runs passed (60%, 95% Wilson interval 23%–88%); lower, not clearly (one-sided Fisher p = 0.2222)\n"),
        "{text}"
    );
    let markdown = mcpeval(&["diff", &base, &current, "--format", "markdown"]).stdout;
    let markdown = String::from_utf8_lossy(&markdown);
    assert!(
        markdown.contains("| `e::dipped` | 5 of 5 → 3 of 5 | 60% (23%–88%) | lower, not clearly (one-sided Fisher p = 0.2222) |"),
        "{markdown}"
    );
}
