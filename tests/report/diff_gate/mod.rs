//! `mcpeval diff` as a pull-request gate: regressions decided by the one-sided Fisher test
//! when tasks run several times, budgets (tool-definition and result growth, new schema
//! findings, coverage), the markdown comment under GitHub's limit however large the suite,
//! and the JSON output against `schema/diff.schema.json`.

use crate::support::result_template;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use result_template::run_result;
use serde_json::{Value, json};

mod budgets;
mod json_output;
mod markdown;
mod regressions;

pub(super) fn mcpeval(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One run of `test` (`eval::task`), changed by `edit`.
pub(super) fn result(test: &str, passed: bool, edit: &dyn Fn(&mut Value)) -> Value {
    let reason = (!passed).then_some("agent: exited with 1");
    let mut result = run_result(test, passed, reason);
    edit(&mut result);
    result
}

/// Writes the runs of `test` into `dir/results`, run k passing when `passed[k]`.
pub(super) fn write_runs(dir: &Path, test: &str, passed: &[bool]) {
    write_edited(dir, test, passed, &|_| {});
}

pub(super) fn write_edited(dir: &Path, test: &str, passed: &[bool], edit: &dyn Fn(&mut Value)) {
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

pub(super) const ALL: [bool; 5] = [true; 5];

/// Base and candidate: `e::broke` regressed (one run), `e::mended` fixed, `e::shaky` flaky,
/// `e::collapsed` 5 of 5 -> 0 of 5 (p = 1/252), `e::dipped` 5 of 5 -> 3 of 5 (p = 0.2222),
/// `e::faded` 2 of 5 -> 0 of 5 (p = 0.2222), `e::steady` unchanged.
pub(super) fn pair() -> (tempfile::TempDir, String, String) {
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

/// Base and candidate whose one server `demo` has `definitions` tool-definition tokens,
/// `echo` results of `results` tokens each, `bad` results breaking its outputSchema, and
/// advertises `echo` and `add` (one used: coverage 50%).
pub(super) fn server_run(dir: &Path, definitions: usize, results: usize, bad: bool) {
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

pub(super) fn budget_pair(
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

pub(super) fn diff_with_budgets(base: &str, current: &str, coverage: &str, format: &str) -> Output {
    let mut args = vec!["diff", base, current, "--format", format];
    args.extend(BUDGETS);
    args.push(coverage);
    mcpeval(&args)
}
