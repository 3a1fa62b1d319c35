//! The exact semantics of every assertion (formats.md, "Assertions: exact semantics").

use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};

use super::*;
use crate::config::{Assertions, CallMatcher, OrderedCall};
use crate::plan::AssertionSet;
use crate::trace::{CallKind, CallTrace, Outcome, RecordedCall};

pub(super) fn call(
    kind: CallKind,
    server: &str,
    name: &str,
    arguments: Option<Value>,
) -> RecordedCall {
    RecordedCall {
        server: server.into(),
        kind,
        name: name.into(),
        arguments,
        outcome: Outcome::Ok { result: json!({}) },
        start_offset: Duration::ZERO,
        duration: Duration::ZERO,
        injected: None,
        rounds: Vec::new(),
        task: Vec::new(),
        turn: None,
    }
}

pub(super) fn tool(server: &str, name: &str) -> RecordedCall {
    call(CallKind::Tool, server, name, Some(json!({})))
}

pub(super) fn trace(calls: Vec<RecordedCall>) -> CallTrace {
    CallTrace {
        calls,
        discovery: vec![],
        advertised: Default::default(),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    }
}

pub(super) fn exact(server: &str, name: &str) -> CallMatcher {
    CallMatcher {
        server: server.into(),
        name: Some(name.into()),
        pattern: None,
        arguments: None,
        turn: None,
    }
}

pub(super) fn pattern(server: &str, regex: &str) -> CallMatcher {
    CallMatcher {
        server: server.into(),
        name: None,
        pattern: Some(Regex::new(regex).unwrap()),
        arguments: None,
        turn: None,
    }
}

pub(super) fn any_of(server: &str) -> CallMatcher {
    CallMatcher {
        server: server.into(),
        name: None,
        pattern: None,
        arguments: None,
        turn: None,
    }
}

pub(super) fn ordered(kind: CallKind, server: &str, name: &str) -> OrderedCall {
    OrderedCall {
        kind,
        server: server.into(),
        name: name.into(),
        arguments: None,
        asked: false,
        turn: None,
    }
}

pub(super) fn failures(assertions: Assertions, trace: &CallTrace) -> Vec<AssertionFailure> {
    check("config.taskSets[0]", &assertions, trace)
}

pub(super) fn only(assertions: Assertions, trace: &CallTrace) -> AssertionFailure {
    let mut all = failures(assertions, trace);
    assert_eq!(all.len(), 1, "{all:#?}");
    all.remove(0)
}

#[test]
fn tools_used_requires_every_entry_and_reports_every_missing_one() {
    let t = trace(vec![tool("k8s", "pods_list")]);
    let a = Assertions {
        tools_used: vec![exact("k8s", "pods_list")],
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
    let a = Assertions {
        tools_used: vec![
            exact("k8s", "pods_list"),
            exact("k8s", "pods_create"),
            exact("other", "pods_list"),
        ],
        ..Default::default()
    };
    let f = only(a, &t);
    assert_eq!(f.assertion.key(), "toolsUsed");
    assert!(
        f.expected.contains("k8s/pods_create") && f.expected.contains("other/pods_list"),
        "{f}"
    );
    assert!(!f.expected.contains("k8s/pods_list,"), "{f}");
    assert!(f.actual.contains("tool calls made: k8s/pods_list"), "{f}");
}

#[test]
fn patterns_are_unanchored() {
    let t = trace(vec![tool("k8s", "list_pods_all")]);
    let a = Assertions {
        tools_used: vec![pattern("k8s", "pods_")],
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
    let a = Assertions {
        tools_used: vec![pattern("k8s", "^pods_")],
        ..Default::default()
    };
    assert_eq!(only(a, &t).assertion.key(), "toolsUsed");
}

#[test]
fn neither_tool_nor_pattern_matches_any_tool_of_that_server_only() {
    let t = trace(vec![tool("k8s", "anything")]);
    let a = Assertions {
        require_any: vec![any_of("k8s")],
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
    let a = Assertions {
        require_any: vec![any_of("docs")],
        ..Default::default()
    };
    let f = only(a, &t);
    assert_eq!(f.assertion.key(), "requireAny");
    assert!(f.expected.contains("docs/*"), "{f}");
}

#[test]
fn require_any_passes_with_one_matching_entry() {
    let t = trace(vec![tool("k8s", "pods_get")]);
    let a = Assertions {
        require_any: vec![exact("k8s", "pods_list"), pattern("k8s", "_get$")],
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
}

#[test]
fn tools_not_used_reports_every_offending_call() {
    let t = trace(vec![
        tool("k8s", "pods_delete"),
        tool("k8s", "pods_list"),
        tool("k8s", "ns_delete"),
    ]);
    let a = Assertions {
        tools_not_used: vec![pattern("k8s", "_delete")],
        ..Default::default()
    };
    let f = only(a, &t);
    assert_eq!(f.assertion.key(), "toolsNotUsed");
    assert!(f.actual.contains("tool k8s/pods_delete (call #1"), "{f}");
    assert!(f.actual.contains("tool k8s/ns_delete (call #3"), "{f}");
    assert!(!f.actual.contains("pods_list"), "{f}");
}

#[test]
fn tool_assertions_ignore_resources_and_prompts_of_the_same_name() {
    let t = trace(vec![
        call(CallKind::Resource, "k8s", "pods_list", None),
        call(CallKind::Prompt, "k8s", "pods_list", None),
    ]);
    let a = Assertions {
        tools_used: vec![exact("k8s", "pods_list")],
        max_tool_calls: Some(0),
        ..Default::default()
    };
    let f = only(a, &t);
    assert_eq!(f.assertion.key(), "toolsUsed");
    assert!(f.actual.contains("no tool calls at all"), "{f}");
}

#[test]
fn resource_and_prompt_assertions() {
    let t = trace(vec![
        call(CallKind::Resource, "docs", "file:///readme.md", None),
        call(
            CallKind::Prompt,
            "docs",
            "review",
            Some(json!({"lang": "rust"})),
        ),
    ]);
    let a = Assertions {
        resources_read: vec![exact("docs", "file:///readme.md")],
        prompts_used: vec![pattern("docs", "^rev")],
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
    let a = Assertions {
        resources_not_read: vec![pattern("docs", "readme")],
        prompts_not_used: vec![any_of("docs")],
        resources_read: vec![exact("docs", "file:///secret")],
        ..Default::default()
    };
    let names: Vec<&str> = failures(a, &t).iter().map(|f| f.assertion.key()).collect();
    assert_eq!(
        names,
        ["resourcesRead", "resourcesNotRead", "promptsNotUsed"]
    );
}

#[test]
fn counts_include_failed_and_is_error_calls() {
    let mut failed = tool("k8s", "a");
    failed.outcome = Outcome::Error {
        code: -32603,
        message: "boom".into(),
    };
    let mut is_error = tool("k8s", "b");
    is_error.outcome = Outcome::IsError {
        result: json!({"isError": true}),
    };
    let t = trace(vec![failed, is_error, tool("k8s", "c")]);
    assert!(
        failures(
            Assertions {
                min_tool_calls: Some(3),
                max_tool_calls: Some(3),
                ..Default::default()
            },
            &t
        )
        .is_empty()
    );
    let f = only(
        Assertions {
            max_tool_calls: Some(2),
            ..Default::default()
        },
        &t,
    );
    assert_eq!(
        (f.assertion.key(), f.actual.as_str()),
        ("maxToolCalls", "3 tool calls")
    );
    let f = only(
        Assertions {
            min_tool_calls: Some(4),
            ..Default::default()
        },
        &t,
    );
    assert_eq!(
        (f.assertion.key(), f.expected.as_str()),
        ("minToolCalls", "at least 4 tool calls")
    );
}

#[test]
fn no_duplicate_calls_compares_arguments_as_json_values() {
    let t = trace(vec![
        call(
            CallKind::Tool,
            "k8s",
            "get",
            Some(json!({"ns": "a", "name": "x"})),
        ),
        call(
            CallKind::Tool,
            "k8s",
            "get",
            Some(json!({"name": "x", "ns": "a"})),
        ),
        call(
            CallKind::Tool,
            "k8s",
            "get",
            Some(json!({"name": "y", "ns": "a"})),
        ),
        call(CallKind::Tool, "k8s", "scale", Some(json!({"n": 1}))),
        call(CallKind::Tool, "k8s", "scale", Some(json!({"n": 1.0}))),
        call(
            CallKind::Tool,
            "other",
            "get",
            Some(json!({"ns": "a", "name": "x"})),
        ),
        call(CallKind::Tool, "k8s", "ping", None),
        call(CallKind::Tool, "k8s", "ping", Some(json!({}))),
    ]);
    let f = only(
        Assertions {
            no_duplicate_calls: true,
            ..Default::default()
        },
        &t,
    );
    assert_eq!(f.assertion.key(), "noDuplicateCalls");
    assert!(
        f.actual
            .contains("k8s/get {\"name\":\"x\",\"ns\":\"a\"} called 2 times (calls #1, #2)"),
        "{f}"
    );
    assert!(
        f.actual
            .contains("k8s/scale {\"n\":1} called 2 times (calls #4, #5)"),
        "{f}"
    );
    assert!(
        f.actual
            .contains("k8s/ping {} called 2 times (calls #7, #8)"),
        "{f}"
    );
    assert!(!f.actual.contains("other/get"), "{f}");
    assert!(
        failures(Assertions::default(), &t).is_empty(),
        "off unless asked for"
    );
}

#[test]
fn several_task_sets_each_apply_and_are_named_in_failures() {
    let t = trace(vec![tool("k8s", "a"), tool("k8s", "b")]);
    let sets = vec![
        AssertionSet {
            task_set: "config.taskSets[0]".into(),
            assertions: Assertions {
                max_tool_calls: Some(1),
                ..Default::default()
            }
            .into(),
            faults: Vec::new().into(),
            elicitation: None,
            sampling: None,
        },
        AssertionSet {
            task_set: "config.taskSets[2]".into(),
            assertions: Assertions {
                tools_used: vec![exact("k8s", "c")],
                ..Default::default()
            }
            .into(),
            faults: Vec::new().into(),
            elicitation: None,
            sampling: None,
        },
        AssertionSet {
            task_set: "config.taskSets[3]".into(),
            assertions: Assertions {
                min_tool_calls: Some(2),
                ..Default::default()
            }
            .into(),
            faults: Vec::new().into(),
            elicitation: None,
            sampling: None,
        },
    ];
    let all = check_all(&sets, &t);
    let got: Vec<(&str, &str)> = all
        .iter()
        .map(|f| (f.task_set.as_str(), f.assertion.key()))
        .collect();
    assert_eq!(
        got,
        [
            ("config.taskSets[0]", "maxToolCalls"),
            ("config.taskSets[2]", "toolsUsed")
        ]
    );
}

#[test]
fn failure_renders_expected_and_actual_side_by_side() {
    let f = AssertionFailure {
        task_set: "config.taskSets[0]".into(),
        assertion: crate::config::AssertionKind::MaxToolCalls,
        expected: "at most 2 tool calls".into(),
        actual: "3 tool calls".into(),
    };
    assert_eq!(
        f.to_string(),
        "maxToolCalls (config.taskSets[0]):\n    expected: at most 2 tool calls\n    actual:   3 tool calls"
    );
}

#[test]
fn canonical_sorts_keys_deeply_and_normalises_integral_floats() {
    assert_eq!(
        canonical(json!({"b": [{"z": 2.0, "a": 1}], "a": 1.5})).to_string(),
        r#"{"a":1.5,"b":[{"a":1,"z":2}]}"#
    );
}
