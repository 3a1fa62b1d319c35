//! `afterFault`: the agent's calls after the first fault injected into a tool call, and
//! `maxToolErrors`, which counts the server's errors only.

use serde_json::{Value, json};

use super::tests::{call, exact, failures, only, tool, trace};
use crate::config::{AfterFault, ArgumentPattern, Assertions, CallMatcher};
use crate::trace::{CallKind, FaultKind, Injected, Outcome, RecordedCall};

fn injected(mut call: RecordedCall, fault: FaultKind, outcome: Outcome) -> RecordedCall {
    call.outcome = outcome;
    call.injected = Some(Injected {
        fault,
        rule: "config.taskSets[0].faults[0]".into(),
    });
    call
}

fn tool_error() -> Outcome {
    Outcome::IsError {
        result: json!({"content": [{"type": "text", "text": "injected failure"}], "isError": true}),
    }
}

fn after_fault(retried: Option<bool>, tools_used: Vec<CallMatcher>) -> Assertions {
    Assertions {
        after_fault: Some(AfterFault {
            retried,
            tools_used,
        }),
        ..Default::default()
    }
}

fn with_arguments(server: &str, name: &str, written: Value) -> CallMatcher {
    CallMatcher {
        arguments: Some(ArgumentPattern::from_json(written).unwrap()),
        ..exact(server, name)
    }
}

#[test]
fn after_fault_retried_holds_when_the_faulted_tool_is_called_again() {
    let t = trace(vec![
        tool("demo", "echo"),
        injected(tool("demo", "add"), FaultKind::ToolError, tool_error()),
        tool("demo", "echo"),
        tool("demo", "add"),
    ]);
    assert!(failures(after_fault(Some(true), vec![]), &t).is_empty());
    let f = only(after_fault(Some(false), vec![]), &t);
    assert_eq!(f.assertion.key(), "afterFault");
    assert_eq!(
        f.expected,
        "after the fault in call #2 demo/add, injected toolError (config.taskSets[0].faults[0]): demo/add not called again"
    );
    assert_eq!(
        f.actual,
        "demo/add called again: #4; calls after it: #3 demo/echo ok, #4 demo/add ok"
    );
}

#[test]
fn after_fault_retried_fails_when_the_agent_gave_up_and_says_what_followed() {
    // A call of the same tool before the fault is no retry, nor is one of another server.
    let t = trace(vec![
        tool("demo", "add"),
        injected(
            tool("demo", "add"),
            FaultKind::Timeout,
            Outcome::Error {
                code: -32001,
                message: "request timed out".into(),
            },
        ),
        tool("other", "add"),
        call(CallKind::Resource, "demo", "demo://readme", None),
    ]);
    assert!(failures(after_fault(Some(false), vec![]), &t).is_empty());
    let f = only(after_fault(Some(true), vec![]), &t);
    assert_eq!(
        f.expected,
        "after the fault in call #2 demo/add, injected timeout (config.taskSets[0].faults[0]): demo/add called again"
    );
    assert_eq!(
        f.actual,
        "demo/add not called again; calls after it: #3 other/add ok, #4 resource demo/demo://readme ok"
    );
}

#[test]
fn after_fault_tools_used_matches_only_calls_after_the_fault() {
    let t = trace(vec![
        tool("demo", "lookup"),
        injected(tool("demo", "add"), FaultKind::Error, tool_error()),
        tool("demo", "echo"),
    ]);
    assert!(failures(after_fault(None, vec![exact("demo", "echo")]), &t).is_empty());
    // `lookup` was called, but before the fault.
    let f = only(
        after_fault(None, vec![exact("demo", "echo"), exact("demo", "lookup")]),
        &t,
    );
    assert_eq!(
        f.expected,
        "after the fault in call #2 demo/add, injected error (config.taskSets[0].faults[0]): a tool call matching each of: demo/echo, demo/lookup"
    );
    assert_eq!(
        f.actual,
        "no tool call after it matching demo/lookup; calls after it: #3 demo/echo ok"
    );
}

#[test]
fn after_fault_tools_used_matches_arguments_and_names_the_closest_call() {
    let t = trace(vec![
        injected(tool("demo", "add"), FaultKind::ToolError, tool_error()),
        call(CallKind::Tool, "demo", "add", Some(json!({"a": 1, "b": 3}))),
    ]);
    let entry = || with_arguments("demo", "add", json!({"a": 1, "b": 2}));
    let f = only(after_fault(Some(true), vec![entry()]), &t);
    assert!(
        f.actual.starts_with(
            r#"no tool call after it matching demo/add with arguments {"a":1,"b":2}; demo/add: closest call #2 demo/add {"a":1,"b":3} differs at arguments.b"#
        ),
        "{f}"
    );
    let t = trace(vec![
        injected(tool("demo", "add"), FaultKind::ToolError, tool_error()),
        call(CallKind::Tool, "demo", "add", Some(json!({"a": 1, "b": 2}))),
    ]);
    assert!(failures(after_fault(Some(true), vec![entry()]), &t).is_empty());
}

#[test]
fn after_fault_without_an_injected_answer_fails_saying_there_was_no_fault() {
    // A delay leaves the server's answer: nothing to recover from.
    let delayed = injected(
        tool("demo", "add"),
        FaultKind::Delay,
        Outcome::Ok { result: json!({}) },
    );
    let t = trace(vec![delayed, tool("demo", "add")]);
    let f = only(after_fault(Some(true), vec![]), &t);
    assert_eq!(
        f.expected,
        "after a fault injected into a tool call: the faulted tool called again"
    );
    assert_eq!(
        f.actual,
        "no fault was injected into a tool call, so there is nothing to recover from; check the task's faults rules (injected but answered by the server: #1 delay)"
    );
    let f = only(after_fault(Some(false), vec![]), &trace(vec![]));
    assert!(
        f.actual
            .starts_with("no fault was injected into a tool call"),
        "{f}"
    );
}

#[test]
fn after_fault_is_about_the_first_fault() {
    let t = trace(vec![
        injected(tool("demo", "add"), FaultKind::ToolError, tool_error()),
        injected(tool("demo", "echo"), FaultKind::ToolError, tool_error()),
    ]);
    let f = only(after_fault(Some(true), vec![]), &t);
    assert!(f.expected.contains("call #1 demo/add"), "{f}");
    assert_eq!(
        f.actual,
        "demo/add not called again; calls after it: #2 demo/echo is_error (injected toolError)"
    );
}

#[test]
fn max_tool_errors_leaves_out_injected_errors_and_names_them_apart() {
    let t = trace(vec![
        injected(tool("demo", "add"), FaultKind::ToolError, tool_error()),
        injected(
            tool("demo", "add"),
            FaultKind::Error,
            Outcome::Error {
                code: -32603,
                message: "injected".into(),
            },
        ),
        tool("demo", "add"),
    ]);
    assert_eq!(t.tool_errors(), 0);
    let max = |n| Assertions {
        max_tool_errors: Some(n),
        ..Default::default()
    };
    assert!(failures(max(0), &t).is_empty());
    let mut t = t;
    t.calls.push(RecordedCall {
        outcome: tool_error(),
        ..tool("demo", "echo")
    });
    let f = only(max(0), &t);
    assert_eq!(
        f.actual,
        r#"1 tool errors: #4 demo/echo (isError "injected failure"); not counted: #1 injected toolError (config.taskSets[0].faults[0]), #2 injected error (config.taskSets[0].faults[0])"#
    );
}
