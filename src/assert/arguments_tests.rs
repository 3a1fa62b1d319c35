//! Assertions with `arguments:` patterns, and `maxToolErrors` (README, "Assertions").

use serde_json::{Value, json};

use super::tests::{call, exact, failures, only, ordered, pattern, tool, trace};
use crate::config::{ArgumentPattern, Assertions, CallMatcher, OrderedCall};
use crate::trace::{CallKind, Outcome, RecordedCall};

fn with_arguments(mut matcher: CallMatcher, written: Value) -> CallMatcher {
    matcher.arguments = Some(ArgumentPattern::from_json(written).unwrap());
    matcher
}

fn ordered_with(kind: CallKind, server: &str, name: &str, written: Value) -> OrderedCall {
    OrderedCall {
        arguments: Some(ArgumentPattern::from_json(written).unwrap()),
        ..ordered(kind, server, name)
    }
}

fn tool_with(server: &str, name: &str, arguments: Value) -> RecordedCall {
    call(CallKind::Tool, server, name, Some(arguments))
}

fn ended(mut call: RecordedCall, outcome: Outcome) -> RecordedCall {
    call.outcome = outcome;
    call
}

#[test]
fn tools_used_needs_a_call_whose_arguments_match() {
    let t = trace(vec![
        tool_with("fs", "read_file", json!({"path": "/etc/passwd"})),
        tool_with(
            "fs",
            "read_file",
            json!({"path": "/tmp/a", "encoding": "utf8"}),
        ),
    ]);
    let entry = with_arguments(
        exact("fs", "read_file"),
        json!({"path": {"$match": "^/tmp/"}}),
    );
    let a = Assertions {
        tools_used: vec![entry],
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
}

#[test]
fn tools_used_names_the_closest_call_and_where_it_differs() {
    let t = trace(vec![
        tool_with("fs", "list", json!({"path": "/tmp"})),
        tool_with(
            "fs",
            "read_file",
            json!({"path": "/etc/passwd", "lines": 5}),
        ),
        tool_with(
            "fs",
            "read_file",
            json!({"path": "/etc/passwd", "lines": 10}),
        ),
    ]);
    let entry = with_arguments(
        exact("fs", "read_file"),
        json!({"lines": 10, "path": {"$match": "^/tmp/"}}),
    );
    let f = only(
        Assertions {
            tools_used: vec![entry],
            ..Default::default()
        },
        &t,
    );
    assert_eq!(
        f.expected,
        r#"a tool call matching each of: fs/read_file with arguments {"lines":10,"path":{"$match":"^/tmp/"}}"#
    );
    // Call #3 matched `lines`, call #2 nothing: #3 is the closest.
    assert_eq!(
        f.actual,
        r#"none of them; tool calls made: fs/list, fs/read_file, fs/read_file; fs/read_file: closest call #3 fs/read_file {"path":"/etc/passwd","lines":10} differs at arguments.path: expected /^\/tmp\// to match, found "/etc/passwd""#
    );
}

#[test]
fn the_earliest_call_is_closest_on_a_tie() {
    let t = trace(vec![
        tool_with("fs", "read_file", json!({"path": "/a"})),
        tool_with("fs", "read_file", json!({"path": "/b"})),
    ]);
    let entry = with_arguments(exact("fs", "read_file"), json!({"path": "/c"}));
    let f = only(
        Assertions {
            tools_used: vec![entry],
            ..Default::default()
        },
        &t,
    );
    assert!(f.actual.contains("closest call #1 fs/read_file"), "{f}");
}

#[test]
fn tools_used_says_when_no_call_of_that_tool_was_made() {
    let t = trace(vec![tool("fs", "list")]);
    let entry = with_arguments(pattern("fs", "^read"), json!({"path": "/tmp/a"}));
    let f = only(
        Assertions {
            tools_used: vec![entry],
            ..Default::default()
        },
        &t,
    );
    assert!(
        f.actual.ends_with("; no tool call of fs/~^read was made"),
        "{f}"
    );
}

#[test]
fn tools_not_used_forbids_only_calls_whose_arguments_match() {
    let t = trace(vec![
        tool_with("fs", "delete", json!({"path": "/tmp/scratch"})),
        tool_with("fs", "delete", json!({"path": "/etc/hosts"})),
    ]);
    let entry = with_arguments(exact("fs", "delete"), json!({"path": {"$match": "^/etc"}}));
    let f = only(
        Assertions {
            tools_not_used: vec![entry],
            ..Default::default()
        },
        &t,
    );
    assert_eq!(f.assertion.key(), "toolsNotUsed");
    assert_eq!(
        f.actual,
        r#"tool fs/delete {"path":"/etc/hosts"} (call #2, matches fs/delete with arguments {"path":{"$match":"^/etc"}})"#
    );
}

#[test]
fn require_any_checks_arguments_and_explains_each_entry() {
    let t = trace(vec![tool_with("k8s", "scale", json!({"replicas": 3}))]);
    let entries = || {
        vec![
            with_arguments(
                exact("k8s", "scale"),
                json!({"replicas": {"$type": "string"}}),
            ),
            with_arguments(exact("k8s", "create"), json!({})),
        ]
    };
    let f = only(
        Assertions {
            require_any: entries(),
            ..Default::default()
        },
        &t,
    );
    assert!(
        f.actual.contains(
            "; k8s/scale: closest call #1 k8s/scale {\"replicas\":3} differs at arguments.replicas: expected type string, found 3; no tool call of k8s/create was made"
        ),
        "{f}"
    );
    let t = trace(vec![tool_with("k8s", "scale", json!({"replicas": "3"}))]);
    let a = Assertions {
        require_any: entries(),
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
}

#[test]
fn prompts_match_their_arguments_too() {
    let t = trace(vec![call(
        CallKind::Prompt,
        "docs",
        "review",
        Some(json!({"lang": "rust"})),
    )]);
    let rust = with_arguments(exact("docs", "review"), json!({"lang": "rust"}));
    let go = with_arguments(exact("docs", "review"), json!({"lang": "go"}));
    let a = Assertions {
        prompts_used: vec![rust.clone()],
        prompts_not_used: vec![go.clone()],
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
    let a = Assertions {
        prompts_used: vec![go],
        prompts_not_used: vec![rust],
        ..Default::default()
    };
    let keys: Vec<&str> = failures(a, &t).iter().map(|f| f.assertion.key()).collect();
    assert_eq!(keys, ["promptsUsed", "promptsNotUsed"]);
}

#[test]
fn call_order_pairs_each_entry_with_a_call_whose_arguments_match() {
    let t = trace(vec![
        tool_with("k8s", "get", json!({"name": "db"})),
        tool_with("k8s", "delete", json!({"name": "web"})),
        tool_with("k8s", "get", json!({"name": "web"})),
        tool_with("k8s", "delete", json!({"name": "db"})),
    ]);
    // get web (#3) before delete web: #2 comes before it, #4 deletes db.
    let order = vec![
        ordered_with(CallKind::Tool, "k8s", "get", json!({"name": "web"})),
        ordered_with(CallKind::Tool, "k8s", "delete", json!({"name": "web"})),
    ];
    let f = only(
        Assertions {
            call_order: order,
            ..Default::default()
        },
        &t,
    );
    assert!(
        f.actual.starts_with(
            r#"matched 1 of 2: tool k8s/get with arguments {"name":"web"} (call #3); tool k8s/delete with arguments {"name":"web"} never came after call #3; closest: call #4 k8s/delete {"name":"db"} differs at arguments.name: expected "web", found "db"; all calls:"#
        ),
        "{f}"
    );
    // Calls whose arguments do not match are skipped, not paired.
    let order = vec![
        ordered_with(CallKind::Tool, "k8s", "get", json!({"name": "db"})),
        ordered_with(CallKind::Tool, "k8s", "delete", json!({"name": "db"})),
    ];
    let a = Assertions {
        call_order: order,
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
}

#[test]
fn max_tool_errors_counts_is_error_results_and_protocol_errors_of_tool_calls() {
    let is_error = Outcome::IsError {
        result: json!({"content": [{"type": "text", "text": "unavailable"}], "isError": true}),
    };
    let protocol = Outcome::Error {
        code: -32602,
        message: "unknown tool `nope`".into(),
    };
    let t = trace(vec![
        ended(tool("demo", "flaky"), is_error),
        tool("demo", "echo"),
        ended(tool("demo", "nope"), protocol.clone()),
        ended(call(CallKind::Resource, "demo", "demo://x", None), protocol),
    ]);
    assert_eq!(t.tool_errors(), 2);
    let a = Assertions {
        max_tool_errors: Some(2),
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
    let f = only(
        Assertions {
            max_tool_errors: Some(1),
            ..Default::default()
        },
        &t,
    );
    assert_eq!(f.assertion.key(), "maxToolErrors");
    assert_eq!(
        f.expected,
        "at most 1 tool errors (isError results and protocol errors)"
    );
    assert_eq!(
        f.actual,
        r#"2 tool errors: #1 demo/flaky (isError "unavailable"), #3 demo/nope (error -32602 "unknown tool `nope`")"#
    );
}
