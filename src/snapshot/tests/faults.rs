//! Injected faults in the snapshot and the call lines, failed listings included.

use std::time::Duration;

use serde_json::json;

use super::{call, sample};
use crate::snapshot::{RunDirs, render_call_lines, render_snapshot};
use crate::trace::{CallKind, CallTrace, Outcome};

fn injected(fault: crate::trace::FaultKind, rule: &str) -> Option<crate::trace::Injected> {
    Some(crate::trace::Injected {
        fault,
        rule: rule.into(),
    })
}

fn list_event(
    at_ms: u64,
    error: Option<&str>,
    fault: Option<crate::trace::Injected>,
) -> crate::trace::DiscoveryEvent {
    crate::trace::DiscoveryEvent {
        server: "demo".into(),
        list: crate::trace::ListKind::Tools,
        cursor: None,
        items: error.is_none().then_some(3),
        error: error.map(Into::into),
        start_offset: Duration::from_millis(at_ms),
        duration: Duration::from_millis(2),
        injected: fault,
    }
}

/// A run with faults: a failed `tools/list` (injected), a listing that went through, an
/// injected tool error, a delayed answer and a call after them all.
fn faulted() -> CallTrace {
    use crate::trace::FaultKind;
    let mut failed = call(
        CallKind::Tool,
        "demo",
        "add",
        Some(json!({"a": 1})),
        Outcome::IsError {
            result: json!({"content": [{"type": "text", "text": "try again"}], "isError": true}),
        },
    );
    failed.injected = injected(FaultKind::ToolError, "config.taskSets[0].faults[1]");
    let mut delayed = call(
        CallKind::Tool,
        "demo",
        "add",
        Some(json!({"a": 1})),
        Outcome::Ok { result: json!({}) },
    );
    delayed.injected = injected(FaultKind::Delay, "spec.faults[0]");
    let mut after = call(
        CallKind::Tool,
        "demo",
        "echo",
        None,
        Outcome::Ok { result: json!({}) },
    );
    after.start_offset = Duration::from_millis(50);
    CallTrace {
        calls: vec![failed, delayed, after],
        discovery: vec![
            list_event(
                1,
                Some("injected failure"),
                injected(FaultKind::Error, "spec.faults[1]"),
            ),
            list_event(2, None, None),
            list_event(
                20,
                Some("injected failure"),
                injected(FaultKind::Error, "spec.faults[1]"),
            ),
        ],
        advertised: Default::default(),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    }
}

#[test]
fn injected_faults_are_shown_as_what_they_were_in_the_snapshot() {
    assert_eq!(
        render_snapshot(&faulted(), &RunDirs::default()),
        "- tools/list: demo\n  outcome: \"error: injected failure\"\n  injected: error (spec.faults[1])\n\
         - tool: demo/add\n  arguments: {\"a\":1}\n  outcome: is_error\n  injected: toolError (config.taskSets[0].faults[1])\n\
         - tool: demo/add\n  arguments: {\"a\":1}\n  outcome: ok\n  injected: delay (spec.faults[0])\n\
         - tools/list: demo\n  outcome: \"error: injected failure\"\n  injected: error (spec.faults[1])\n\
         - tool: demo/echo\n  outcome: ok\n"
    );
    // List calls without a fault stay out of snapshots, as before faults.
    let mut quiet = sample();
    quiet.discovery = vec![list_event(1, None, None)];
    assert_eq!(
        render_snapshot(&quiet, &RunDirs::default()),
        render_snapshot(&sample(), &RunDirs::default())
    );
    let only_a_list = CallTrace {
        calls: vec![],
        ..faulted()
    };
    assert_eq!(
        render_snapshot(&only_a_list, &RunDirs::default()),
        "- tools/list: demo\n  outcome: \"error: injected failure\"\n  injected: error (spec.faults[1])\n\
         - tools/list: demo\n  outcome: \"error: injected failure\"\n  injected: error (spec.faults[1])\n"
    );
}

#[test]
fn call_lines_say_an_injected_answer_is_not_the_servers() {
    let lines = render_call_lines(&faulted(), &[None, Some(1), Some(1)]);
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(
        lines,
        [
            "  - tools/list demo → injected error (spec.faults[1]): error: injected failure (2ms)",
            "  #1 tool demo/add {\"a\":1} → injected toolError (config.taskSets[0].faults[1]): is_error \"try again\" (12ms)",
            "  #2 tool demo/add {\"a\":1} → ok (12ms, 1 token; injected delay (spec.faults[0]))",
            "  - tools/list demo → injected error (spec.faults[1]): error: injected failure (2ms)",
            "  #3 tool demo/echo → ok (12ms, 1 token)",
        ]
    );
}
