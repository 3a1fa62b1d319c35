use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::*;
use crate::trace::{Advertised, ListKind};

fn trace(tools: Vec<Value>, calls: Vec<RecordedCall>) -> CallTrace {
    let mut advertised = Advertised::default();
    advertised.add(ListKind::Tools, tools);
    CallTrace {
        calls,
        discovery: Vec::new(),
        advertised: [("demo".to_owned(), advertised)].into(),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    }
}

fn call(name: &str, arguments: Value, outcome: Outcome) -> RecordedCall {
    RecordedCall {
        server: "demo".into(),
        kind: CallKind::Tool,
        name: name.into(),
        arguments: Some(arguments),
        outcome,
        start_offset: Duration::ZERO,
        duration: Duration::ZERO,
        injected: None,
        rounds: Vec::new(),
        task: Vec::new(),
        turn: None,
    }
}

fn ok(result: Value) -> Outcome {
    Outcome::Ok { result }
}

fn report_tool() -> Value {
    json!({
        "name": "report",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "outputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}
    })
}

fn problems_of(tools: Vec<Value>) -> Vec<String> {
    let checks = check(&trace(tools, Vec::new()), &SchemaCache::default());
    checks
        .definitions
        .iter()
        .map(DefinitionProblem::describe)
        .collect()
}

#[test]
fn definitions_the_spec_allows_have_no_problem() {
    let tools = vec![
        report_tool(),
        json!({"name": "a.b-c_D9", "title": "T", "description": "d", "inputSchema": {"type": "object"}}),
        json!({"name": "draft7", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}}),
    ];
    assert_eq!(problems_of(tools), Vec::<String>::new());
}

#[test]
fn each_broken_definition_is_named_with_what_is_wrong() {
    let long = "x".repeat(129);
    let cases = [
        (
            json!({"name": "get user", "inputSchema": {"type": "object"}}),
            r#"demo/get user: the name has ' ' (allowed: A-Z a-z 0-9 _ - .)"#,
        ),
        (
            json!({"name": "", "inputSchema": {"type": "object"}}),
            "demo/: the name is empty; it must have 1 to 128 characters",
        ),
        (
            json!({"name": long, "inputSchema": {"type": "object"}}),
            "the name has 129 characters; at most 128 are allowed",
        ),
        (
            json!({"inputSchema": {"type": "object"}}),
            "demo/#1: `name` must be a string, found null",
        ),
        (
            json!({"name": "t", "description": 3, "inputSchema": {"type": "object"}}),
            "demo/t: `description` must be a string, found 3",
        ),
        (json!({"name": "t"}), "demo/t: `inputSchema` is missing"),
        (
            json!({"name": "t", "inputSchema": {"type": "array"}}),
            r#"demo/t: `inputSchema` must have "type": "object" at its root, found "array""#,
        ),
        (
            json!({"name": "t", "inputSchema": {"type": "object", "properties": {"x": {"type": "strnig"}}}}),
            "demo/t: `inputSchema` is not a valid JSON Schema: ",
        ),
        (
            json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": "none"}),
            r#"demo/t: `outputSchema` must be a JSON Schema object, found "none""#,
        ),
    ];
    for (tool, expected) in cases {
        let problems = problems_of(vec![tool.clone()]);
        assert!(
            problems.len() == 1 && problems[0].contains(expected),
            "{tool}: expected {expected:?}, found {problems:?}"
        );
    }
}

#[test]
fn two_tools_of_one_name_are_a_problem() {
    let tool = json!({"name": "t", "inputSchema": {"type": "object"}});
    // A re-listed tool replaces its first definition; two in one page stay two.
    let problems = problems_of(vec![
        tool.clone(),
        json!({"name": "u", "inputSchema": {"type": "object"}}),
    ]);
    assert!(problems.is_empty(), "{problems:?}");
    let advertised = Advertised {
        tools: vec![tool.clone(), tool],
        ..Advertised::default()
    };
    let trace = CallTrace {
        advertised: [("demo".to_owned(), advertised)].into(),
        ..CallTrace::default()
    };
    let checks = check(&trace, &SchemaCache::default());
    assert_eq!(
        checks.definitions[0].describe(),
        "demo/t: another tool of this server has the same name"
    );
}

#[test]
fn arguments_that_break_the_input_schema_are_found_with_path_and_value() {
    let trace = trace(
        vec![report_tool()],
        vec![
            call(
                "report",
                json!({"id": "a"}),
                ok(json!({"structuredContent": {"count": 1}})),
            ),
            call(
                "report",
                json!({"id": 7}),
                ok(json!({"structuredContent": {"count": 1}})),
            ),
        ],
    );
    let checks = check(&trace, &SchemaCache::default());
    assert!(
        checks.results.is_empty() && checks.definitions.is_empty(),
        "{checks:?}"
    );
    assert_eq!(checks.arguments.len(), 1, "{checks:?}");
    let finding = &checks.arguments[0];
    assert_eq!((finding.call, finding.tool.as_str()), (2, "report"));
    let violation = &finding.violations[0];
    assert_eq!(violation.path, "/id");
    assert_eq!(violation.schema_path, "/properties/id/type");
    assert_eq!(violation.value.as_deref(), Some("7"));
    assert_eq!(
        finding.describe(),
        r#"#2 demo/report: at /id (schema /properties/id/type) 7 is not of type "string""#
    );
    assert!(!checks.server_erred());
}

#[test]
fn no_arguments_are_checked_as_an_empty_object() {
    let mut no_arguments = call(
        "report",
        Value::Null,
        ok(json!({"structuredContent": {"count": 1}})),
    );
    no_arguments.arguments = None;
    let checks = check(
        &trace(vec![report_tool()], vec![no_arguments]),
        &SchemaCache::default(),
    );
    assert_eq!(
        checks.arguments[0].describe(),
        r#"#1 demo/report: (schema /required) "id" is a required property"#
    );
}

#[test]
fn results_that_break_the_output_schema_or_lack_structured_content_are_server_errors() {
    let trace = trace(
        vec![report_tool()],
        vec![
            call(
                "report",
                json!({"id": "a"}),
                ok(json!({"structuredContent": {"count": "three"}})),
            ),
            call("report", json!({"id": "a"}), ok(json!({"content": []}))),
            call(
                "report",
                json!({"id": "a"}),
                Outcome::IsError {
                    result: json!({"content": []}),
                },
            ),
            call(
                "report",
                json!({"id": "a"}),
                Outcome::Error {
                    code: -32602,
                    message: "no".into(),
                },
            ),
        ],
    );
    let checks = check(&trace, &SchemaCache::default());
    let shown: Vec<String> = checks.results.iter().map(CallFinding::describe).collect();
    assert_eq!(
        shown,
        [
            r#"#1 demo/report: at /count (schema /properties/count/type) "three" is not of type "integer""#,
            "#2 demo/report: the tool has an outputSchema but the result has no structuredContent",
        ]
    );
    assert_eq!(
        checks.results[0].violations[0].value.as_deref(),
        Some("\"three\"")
    );
    assert!(checks.server_erred());
}

#[test]
fn calls_of_tools_the_agent_never_listed_are_not_checked() {
    let trace = trace(
        vec![report_tool()],
        vec![call(
            "other",
            json!({"id": 7}),
            ok(json!({"structuredContent": 1})),
        )],
    );
    assert!(check(&trace, &SchemaCache::default()).is_empty());
}

#[test]
fn the_cache_compiles_a_schema_once() {
    let cache = SchemaCache::default();
    let first = cache.compiled(&json!({"type": "object"}));
    let second = cache.compiled(&json!({"type": "object"}));
    assert!(Arc::ptr_eq(&first, &second));
}

#[test]
fn an_injected_answer_is_not_checked_but_the_agents_arguments_are() {
    let injected = |fault| {
        let mut call = call(
            "report",
            json!({"id": 7}),
            ok(json!({"content": [{"type": "text", "text": "injected"}]})),
        );
        call.injected = Some(crate::trace::Injected {
            fault,
            rule: "spec.faults[0]".into(),
        });
        call
    };
    let replaced = injected(crate::trace::FaultKind::Replace);
    let checks = check(
        &trace(vec![report_tool()], vec![replaced]),
        &SchemaCache::default(),
    );
    assert!(checks.results.is_empty(), "{checks:?}");
    assert!(!checks.server_erred());
    assert_eq!(
        checks.arguments[0].describe(),
        r#"#1 demo/report: at /id (schema /properties/id/type) 7 is not of type "string""#
    );
    // A delayed answer is still the server's, and checked.
    let delayed = injected(crate::trace::FaultKind::Delay);
    let checks = check(
        &trace(vec![report_tool()], vec![delayed]),
        &SchemaCache::default(),
    );
    assert_eq!(checks.results.len(), 1, "{checks:?}");
}
