//! Argument patterns and `maxToolErrors` as a user meets them: `mcpeval check` runs the
//! script agent against the demo server (tests/fixtures/arguments), then the failure
//! messages, the results files and `mcpeval report` show what happened.

use crate::support;

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use support::cli::{self, failure_of, result_file, text};
use support::results_schema::violations;

const EVAL: &str = "tests/fixtures/arguments/eval.yaml";

fn mcpeval(args: &[&str], output: &Path) -> Output {
    cli::mcpeval(args, Some(output))
}

fn result(output: &Path, task: &str) -> Value {
    result_file(output, &format!("arguments__{task}"))
}

#[test]
fn argument_patterns_and_tool_errors_through_mcpeval_check() {
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(&["check", EVAL], output.path());
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(
        stdout.contains("test result: FAILED. 1 passed; 2 failed;"),
        "{stdout}"
    );

    // A pattern no call matched: the closest call and the first difference.
    let wrong = failure_of(&stdout, "arguments::wrong-argument");
    for line in [
        r#"expected: a tool call matching each of: demo/lookup_user with arguments {"id":{"$match":"^[12]$"}}"#,
        r#"actual:   none of them; tool calls made: demo/echo, demo/lookup_user; demo/lookup_user: closest call #2 demo/lookup_user {"id":"7"} differs at arguments.id: expected /^[12]$/ to match, found "7""#,
    ] {
        assert!(wrong.contains(line), "lacks {line:?}:\n{wrong}");
    }

    // isError results and protocol errors both count.
    let errors = failure_of(&stdout, "arguments::too-many-tool-errors");
    assert!(
        errors.contains(
            r#"2 tool errors: #1 demo/flaky (isError "the service is unavailable"), #3 demo/no_such_tool (error -32602 "unknown tool `no_such_tool`")"#
        ),
        "{errors}"
    );

    let passed = result(output.path(), "matching-arguments");
    assert_eq!(passed["taskPassed"], true, "{passed:#}");
    assert_eq!(passed["toolErrors"], 1);
    let failed = result(output.path(), "too-many-tool-errors");
    assert_eq!(failed["toolErrors"], 2);
    assert_eq!(failed["assertionResults"]["maxToolErrors"]["passed"], false);
    let wrong = result(output.path(), "wrong-argument");
    assert_eq!(wrong["assertionResults"]["toolsUsed"]["passed"], false);
    for result in [passed, failed, wrong] {
        let violations = violations(&result);
        assert!(violations.is_empty(), "{violations:#?}\n{result:#}");
    }

    // The summary (the harness's and `mcpeval report`'s) counts them over all runs.
    let stderr = text(&out.stderr);
    let line = "  tool errors: 4 in 3 of 3 runs (isError results and protocol errors)";
    assert!(stderr.contains(line), "{stderr}");
    let dir = output.path().display().to_string();
    let report = output.path().join("report.json").display().to_string();
    let out = mcpeval(&["report", &dir, "--output", &report], output.path());
    assert!(text(&out.stdout).contains(line), "{}", text(&out.stdout));
}
