//! `mcpeval diff` as a pull-request gate: regressions decided by the one-sided Fisher test
//! when tasks run several times, budgets (tool-definition and result growth, new schema
//! findings, coverage), the markdown comment under GitHub's limit however large the suite,
//! and the JSON output against `schema/diff.schema.json`.

use crate::support::result_template;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use result_template::run_result;
use serde_json::{Value, json};

fn mcpeval(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One run of `test` (`eval::task`), changed by `edit`.
fn result(test: &str, passed: bool, edit: &dyn Fn(&mut Value)) -> Value {
    let reason = (!passed).then_some("agent: exited with 1");
    let mut result = run_result(test, passed, reason);
    edit(&mut result);
    result
}

/// Writes the runs of `test` into `dir/results`, run k passing when `passed[k]`.
fn write_runs(dir: &Path, test: &str, passed: &[bool]) {
    write_edited(dir, test, passed, &|_| {});
}

fn write_edited(dir: &Path, test: &str, passed: &[bool], edit: &dyn Fn(&mut Value)) {
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    let stem = test.replace("::", "__");
    for (index, &ok) in passed.iter().enumerate() {
        let mut run = result(test, ok, edit);
        let file = if passed.len() == 1 {
            format!("{stem}.json")
        } else {
            run["runIndex"] = index.into();
            run["totalRuns"] = passed.len().into();
            format!("{stem}.run{}.json", index + 1)
        };
        std::fs::write(results.join(file), run.to_string()).unwrap();
    }
}

const ALL: [bool; 5] = [true; 5];

/// Base and candidate: `e::broke` regressed (one run), `e::mended` fixed, `e::shaky` flaky,
/// `e::collapsed` 5 of 5 -> 0 of 5 (p = 1/252), `e::dipped` 5 of 5 -> 3 of 5 (p = 0.2222),
/// `e::faded` 2 of 5 -> 0 of 5 (p = 0.2222), `e::steady` unchanged.
fn pair() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let (base, current) = (dir.path().join("base"), dir.path().join("current"));
    write_runs(&base, "e::broke", &[true]);
    write_runs(&current, "e::broke", &[false]);
    write_runs(&base, "e::mended", &[false]);
    write_runs(&current, "e::mended", &[true]);
    write_runs(&base, "e::shaky", &[true, true, true]);
    write_runs(&current, "e::shaky", &[true, false, true]);
    write_runs(&base, "e::collapsed", &ALL);
    write_runs(&current, "e::collapsed", &[false; 5]);
    write_runs(&base, "e::dipped", &ALL);
    write_runs(&current, "e::dipped", &[true, false, true, false, true]);
    write_runs(&base, "e::faded", &[true, false, false, true, false]);
    write_runs(&current, "e::faded", &[false; 5]);
    write_runs(&base, "e::steady", &[true]);
    write_runs(&current, "e::steady", &[true]);
    let shown = |p: PathBuf| p.display().to_string();
    (dir, shown(base), shown(current))
}

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

/// Base and candidate whose one server `demo` has `definitions` tool-definition tokens,
/// `echo` results of `results` tokens each, `bad` results breaking its outputSchema, and
/// advertises `echo` and `add` (one used: coverage 50%).
fn server_run(dir: &Path, definitions: usize, results: usize, bad: bool) {
    write_edited(dir, "s::calls", &[true, true, true], &|run| {
        run["toolTokens"] = json!({"tokenizer": "o200k_base", "servers": {"demo": {
            "tools": 2, "definitionTokens": definitions, "toolCalls": 1,
            "resultTokens": results, "biggestResultTokens": results}}});
        run["callHistory"]["toolCalls"] = json!([{
            "serverName": "demo", "name": "echo", "position": 1, "arguments": {},
            "outcome": "ok", "result": {}, "startOffsetMs": 1.0, "durationMs": 1.0,
            "resultTokens": results}]);
        run["surface"] = json!({"demo": {"tools": ["add", "echo"]}});
        if bad {
            run["schemaViolations"] = json!({"results": [{"call": 1, "server": "demo", "tool": "echo", "violations": []}]});
        }
    });
}

fn budget_pair(
    definitions: usize,
    results: usize,
    bad: bool,
) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    server_run(&dir.path().join("base"), 1000, 100, false);
    server_run(&dir.path().join("current"), definitions, results, bad);
    let shown = |name: &str| dir.path().join(name).display().to_string();
    let (base, current) = (shown("base"), shown("current"));
    (dir, base, current)
}

const BUDGETS: [&str; 6] = [
    "--max-definition-growth",
    "15",
    "--max-result-growth",
    "20%",
    "--fail-on-new-schema-findings",
    "--min-coverage",
];

fn diff_with_budgets(base: &str, current: &str, coverage: &str, format: &str) -> Output {
    let mut args = vec!["diff", base, current, "--format", format];
    args.extend(BUDGETS);
    args.push(coverage);
    mcpeval(&args)
}

#[test]
fn budgets_under_their_limits_hold_with_a_line_each() {
    let (_dir, base, current) = budget_pair(1150, 120, false);
    let out = diff_with_budgets(&base, &current, "0.5", "text");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.ends_with(
            "budget --max-definition-growth 15%: held (1 server compared)\n\
             budget --max-result-growth 20%: held (1 tool compared)\n\
             budget --fail-on-new-schema-findings: held (no new finding)\n\
             budget --min-coverage 0.5: held (1 server compared)\n"
        ),
        "{shown}"
    );
}

#[test]
fn each_budget_over_its_limit_fails_the_gate_and_says_which() {
    let (_dir, base, current) = budget_pair(1180, 125, true);
    let out = diff_with_budgets(&base, &current, "0.8", "text");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let shown = text(&out.stdout);
    for line in [
        "budget --max-definition-growth 15%: exceeded: demo 1000 -> 1180 tokens (+18.0%)\n",
        "budget --max-result-growth 20%: exceeded: demo/echo median 100 -> 125 tokens per result (+25.0%)\n",
        "budget --fail-on-new-schema-findings: exceeded: demo/echo: 3 of 3 results broke its outputSchema\n",
        "budget --min-coverage 0.8: exceeded: coverage of demo is 50.0%, below the minimum 80.0%\n",
    ] {
        assert!(shown.contains(line), "lacks {line:?}:\n{shown}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(&format!("mcpeval: {line}")), "{stderr}");
    }
    let out = diff_with_budgets(&base, &current, "0.8", "markdown");
    assert_eq!(out.status.code(), Some(1));
    let markdown = text(&out.stdout);
    assert!(
        markdown.contains("**Budgets**\n\n- ❌ budget --max-definition-growth 15%: exceeded: demo 1000 → 1180 tokens (+18.0%)\n"),
        "{markdown}"
    );
    // One budget alone fails too.
    let out = mcpeval(&["diff", &base, &current, "--max-definition-growth", "20"]);
    assert_eq!(out.status.code(), Some(0));
    let out = mcpeval(&["diff", &base, &current, "--max-definition-growth", "17.9"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_bad_budget_value_is_a_clear_argument_error() {
    let out = mcpeval(&["diff", "a", "b", "--max-result-growth=-5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("expected a percent of 0 or more (10 or 10% for 10%), not -5"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_json_output_matches_its_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/diff.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let (_dir, base, current) = budget_pair(1180, 125, true);
    let (_dir2, base2, current2) = pair();
    for out in [
        diff_with_budgets(&base, &current, "0.8", "json"),
        mcpeval(&["diff", &base2, &current2, "--format", "json"]),
    ] {
        let value: Value = serde_json::from_slice(&out.stdout).unwrap();
        let errors: Vec<String> = (validator.iter_errors(&value))
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}\n{value:#}");
    }
    let value: Value =
        serde_json::from_slice(&mcpeval(&["diff", &base2, &current2, "--format", "json"]).stdout)
            .unwrap();
    assert_eq!(value["counts"]["regressed"], 2);
    assert_eq!(value["schemaVersion"], 1);
    let collapsed = &value["tasks"][1];
    assert_eq!(collapsed["testName"], "e::collapsed");
    assert!((collapsed["pValue"].as_f64().unwrap() - 1.0 / 252.0).abs() < 1e-12);
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

#[test]
fn the_json_output_has_each_tasks_figures_before_and_after() {
    let dir = tempfile::tempdir().unwrap();
    server_run(&dir.path().join("base"), 1000, 100, false);
    server_run(&dir.path().join("current"), 1180, 125, true);
    write_edited(
        &dir.path().join("current"),
        "s::calls",
        &[true, true, true],
        &|run| {
            run["toolTokens"] = json!({"tokenizer": "o200k_base", "servers": {"demo": {
            "tools": 2, "definitionTokens": 1180, "toolCalls": 1,
            "resultTokens": 125, "biggestResultTokens": 125}}});
            run["schemaViolations"] = json!({"results": [{"call": 1, "server": "demo", "tool": "echo", "violations": []}]});
            run["toolErrors"] = 2.into();
            run["tokenEstimate"] = json!({"promptTokens": 300, "outputTokens": 60});
            run["agentTokenUsage"] =
                json!({"promptTokens": 900, "completionTokens": 100, "totalTokens": 1000});
        },
    );
    let shown = |name: &str| dir.path().join(name).display().to_string();
    let out = mcpeval(&[
        "diff",
        &shown("base"),
        &shown("current"),
        "--format",
        "json",
    ]);
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    let task = &value["tasks"][0];
    assert_eq!(task["testName"], "s::calls");
    let figures = |side: &str| -> Vec<Value> {
        [
            "toolErrors",
            "schemaFindings",
            "estimatedTokens",
            "agentTokens",
            "definitionTokens",
            "resultTokens",
        ]
        .iter()
        .map(|key| task[side][key].clone())
        .collect()
    };
    let base_estimate = task["base"]["estimatedTokens"].clone();
    assert_eq!(
        figures("base"),
        [
            json!(0.0),
            json!(0.0),
            base_estimate,
            Value::Null,
            json!(1000.0),
            json!(100.0)
        ]
    );
    assert_eq!(
        figures("current"),
        [
            json!(2.0),
            json!(1.0),
            json!(360.0),
            json!(1000.0),
            json!(1180.0),
            json!(125.0)
        ]
    );
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
