//! Token cost as a user meets it: `mcpeval check` runs the script agent against the demo
//! server (tests/fixtures/tokens), then the failure message, the results files and
//! `mcpeval report` show the o200k_base tokens of the tool definitions and results.

use crate::support;

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};
use support::cli::{self, result_file, text};
use support::results_schema::violations;

const EVAL: &str = "tests/fixtures/tokens/eval.yaml";

fn mcpeval(args: &[&str], output: &Path) -> Output {
    cli::mcpeval(args, Some(output))
}

fn result(output: &Path, task: &str) -> Value {
    result_file(output, &format!("tokens__{task}"))
}

#[test]
fn token_limits_fail_with_the_counts_and_pass_at_them() {
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(&["check", EVAL], output.path());
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(
        stdout.contains("test result: FAILED. 1 passed; 1 failed;"),
        "{stdout}"
    );
    assert!(
        stdout.contains("test tokens::within-limits ... ok"),
        "{stdout}"
    );

    // Both assertions fail, naming the call, the server and their counts; the trace lines
    // show each tool result's tokens (not the resource read's).
    for line in [
        "maxToolResultTokens (config.taskSets[0]):",
        "expected: every tool result at most 101 tokens (o200k_base)",
        "actual:   1 tool result above it: #1 demo/echo 102 tokens",
        "maxToolDefinitionTokens (config.taskSets[0]):",
        "expected: each server's tool definitions at most 169 tokens together (o200k_base)",
        "actual:   demo: 170 tokens for 5 tools (biggest: add 41 tokens, lookup_user 36 tokens, echo 33 tokens)",
        ", 102 tokens)\n",
        ", 1 token)\n",
    ] {
        assert!(stdout.contains(line), "lacks {line:?}:\n{stdout}");
    }
    let read = (stdout.lines())
        .find(|line| line.contains("#2 resource demo/demo://readme"))
        .unwrap_or_else(|| panic!("no line of the read:\n{stdout}"));
    assert!(!read.contains("token"), "{read}");

    // The results files: per server, per call, and valid against the schema.
    let failed = result(output.path(), "over-limits");
    assert_eq!(
        failed["toolTokens"],
        json!({"tokenizer": "o200k_base", "servers": {"demo": {
            "tools": 5, "definitionTokens": 170,
            "toolCalls": 2, "resultTokens": 103, "biggestResultTokens": 102
        }}})
    );
    let calls = &failed["callHistory"];
    assert_eq!(calls["toolCalls"][0]["resultTokens"], 102);
    assert_eq!(calls["toolCalls"][1]["resultTokens"], 1);
    assert_eq!(calls["resourceReads"][0].get("resultTokens"), None);
    for key in ["maxToolResultTokens", "maxToolDefinitionTokens"] {
        assert_eq!(failed["assertionResults"][key]["passed"], false, "{key}");
    }
    let passed = result(output.path(), "within-limits");
    assert_eq!(passed["taskPassed"], true, "{passed:#}");
    assert_eq!(passed["toolTokens"], failed["toolTokens"]);
    for result in [failed, passed] {
        let violations = violations(&result);
        assert!(violations.is_empty(), "{violations:#?}\n{result:#}");
    }

    // The report: per server, then the biggest results first (equal ones by test name).
    let dir = output.path().display().to_string();
    let report = output.path().join("report.json");
    let out = mcpeval(
        &["report", &dir, "--output", &report.display().to_string()],
        output.path(),
    );
    let summary = text(&out.stdout);
    let lines = [
        "  tool tokens (o200k_base) of demo: definitions 170 (5 tools); results 206 in 4 calls, biggest 102",
        "  biggest tool results (o200k_base tokens):",
        "    102  tokens::over-limits demo/echo call #1",
        "    102  tokens::within-limits demo/echo call #1",
        "      1  tokens::over-limits demo/add call #3",
        "      1  tokens::within-limits demo/add call #3",
    ];
    assert!(summary.contains(&lines.join("\n")), "{summary}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let biggest = &report["summary"]["toolTokens"]["biggestResults"][0];
    assert_eq!(
        *biggest,
        json!({"testName": "tokens::over-limits", "server": "demo", "tool": "echo", "call": 1, "tokens": 102})
    );
}
