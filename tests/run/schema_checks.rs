//! The schema checks as a server author meets them: `mcpeval check` runs the script agent
//! against a server of ours that breaks its own schemas (tests/fixtures/schemas/server.py).
//! A result that breaks its outputSchema fails the task; arguments that break an
//! inputSchema are counted, and fail only with `schemaViolations: fail`; definitions the
//! MCP spec does not allow fail every task that was shown them.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::cli::{failure_of, mcpeval, result_file, text};
use support::results_schema::violations;

fn result(output: &Path, task: &str) -> Value {
    let result = result_file(output, &format!("schemas__{task}"));
    let problems = violations(&result);
    assert!(problems.is_empty(), "{problems:#?}\n{result:#}");
    result
}

fn lacks(section: &str, line: &str) -> String {
    format!("lacks {line:?}:\n{section}")
}

#[test]
fn results_that_break_the_servers_own_schema_fail_and_bad_arguments_are_counted() {
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(
        &["check", "tests/fixtures/schemas/eval.yaml"],
        Some(output.path()),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(
        stdout.contains("test result: FAILED. 2 passed; 3 failed;"),
        "{stdout}"
    );

    let wrong = failure_of(&stdout, "schemas::wrong-output");
    let line = r#"  #1 demo/count: at /count (schema /properties/count/type) "three" is not of type "integer""#;
    assert!(wrong.contains("server schema: 1 result breaks its tool's outputSchema:\n"));
    assert!(wrong.contains(line), "{}", lacks(wrong, line));
    let missing = failure_of(&stdout, "schemas::missing-structured");
    let line =
        "  #1 demo/summary: the tool has an outputSchema but the result has no structuredContent";
    assert!(missing.contains(line), "{}", lacks(missing, line));
    let strict = failure_of(&stdout, "schemas::wrong-arguments-failing");
    let line = "schema (schemaViolations: fail): 1 call sent arguments that break the tool's inputSchema:\n  #1 demo/lookup: at /id (schema /properties/id/type) 7 is not of type \"string\"";
    assert!(strict.contains(line), "{}", lacks(strict, line));

    // Results files: the findings, with the value and both paths.
    let failed = result(output.path(), "wrong-output");
    assert_eq!(failed["taskPassed"], false);
    let finding = &failed["schemaViolations"]["results"][0];
    assert_eq!(finding["violations"][0]["value"], "\"three\"", "{failed:#}");
    assert_eq!(
        finding["violations"][0]["schemaPath"],
        "/properties/count/type"
    );
    assert!(
        failed["reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("server schema: result breaks its outputSchema: #1 demo/count"),
        "{failed:#}"
    );
    // Counted, not failing: the default `warn`.
    let counted = result(output.path(), "wrong-arguments");
    assert_eq!(counted["taskPassed"], true, "{counted:#}");
    let arguments = counted["schemaViolations"]["arguments"].as_array().unwrap();
    assert_eq!(arguments.len(), 2, "{counted:#}");
    assert_eq!(arguments[1]["violations"][0]["schemaPath"], "/required");
    let clean = result(output.path(), "conforming");
    assert_eq!(clean["taskPassed"], true, "{clean:#}");
    assert!(clean.get("schemaViolations").is_none(), "{clean:#}");

    // The summary counts per tool, so an unclear input schema shows.
    let stderr = text(&out.stderr);
    for line in [
        "  schema: demo/count: 1 of 2 results broke its outputSchema",
        "  schema: demo/lookup: 3 of 4 calls sent arguments that break its inputSchema",
        "  schema: demo/summary: 1 of 1 results broke its outputSchema",
    ] {
        assert!(stderr.contains(line), "{}", lacks(&stderr, line));
    }
    let dir = output.path().display().to_string();
    let report = output.path().join("report.json");
    let out = mcpeval(
        &["report", &dir, "--output", report.to_str().unwrap()],
        None,
    );
    let printed = text(&out.stdout);
    assert!(printed.contains("demo/lookup: 3 of 4 calls"), "{printed}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let lookup = &report["summary"]["schema"]["tools"]["demo/lookup"];
    assert_eq!(lookup["badArguments"], 3, "{report:#}");
    assert_eq!(lookup["calls"], 4, "{report:#}");
}

#[test]
fn tool_definitions_the_spec_does_not_allow_fail_the_task_naming_each() {
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(
        &["check", "tests/fixtures/schemas/eval-definitions.yaml"],
        Some(output.path()),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    let message = failure_of(&stdout, "schema-definitions::conforming");
    for line in [
        "server schema: tool definitions break the MCP spec:",
        "  demo/get user: the name has ' ' (allowed: A-Z a-z 0-9 _ - .)",
        "  demo/search: `inputSchema` is not a valid JSON Schema: at /properties/q/type: ",
    ] {
        assert!(message.contains(line), "{}", lacks(message, line));
    }
    let result = result_file(output.path(), "schema-definitions__conforming");
    let definitions = result["schemaViolations"]["definitions"]
        .as_array()
        .unwrap();
    assert_eq!(definitions.len(), 2, "{result:#}");
    assert_eq!(definitions[0]["tool"], "get user");
}
