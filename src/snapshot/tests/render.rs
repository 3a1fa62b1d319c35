//! Rendering a trace: the snapshot's YAML, paths under temporary directories, the call
//! lines of failure messages, and a call's input rounds and task statuses.

use std::path::Path;

use serde_json::json;

use super::{call, sample};
use crate::snapshot::{RunDirs, render_call_lines, render_snapshot};
use crate::trace::{CallKind, CallTrace, Outcome};

#[test]
fn snapshot_is_normalised_yaml_without_timings() {
    assert_eq!(
        render_snapshot(&sample(), &RunDirs::default()),
        "- tool: kubernetes/pods_list\n  arguments: {\"at\":\"http://127.0.0.1:[port]/x\",\"namespace\":\"default\"}\n  outcome: ok\n\
         - resource: docs/file:///readme.md\n  outcome: ok\n\
         - tool: kubernetes/pods_delete\n  outcome: is_error\n\
         - prompt: docs/review\n  arguments: {\"file\":\"[tmp]/a.rs\"}\n  outcome: \"error: unknown prompt: review\"\n"
    );
}

/// The case, with the real filesystem server's tools: reading a file and listing its
/// directory under a temporary directory rendered the same (`"path":"[tmp]"`).
#[test]
fn calls_on_different_paths_under_one_temporary_directory_render_apart() {
    let ok = || Outcome::Ok { result: json!({}) };
    let trace = CallTrace {
        calls: vec![
            call(
                CallKind::Tool,
                "filesystem",
                "read_text_file",
                Some(json!({"path": "/tmp/.tmpW3xY9z/data/a.txt"})),
                ok(),
            ),
            call(
                CallKind::Tool,
                "filesystem",
                "list_directory",
                Some(json!({"path": "/tmp/.tmpW3xY9z/data"})),
                ok(),
            ),
            call(
                CallKind::Tool,
                "filesystem",
                "write_file",
                Some(
                    json!({"path": "/tmp/mcpeval-e__t-77/out.txt", "content": "see /tmp/.tmpW3xY9z/data"}),
                ),
                ok(),
            ),
        ],
        discovery: vec![],
        advertised: Default::default(),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    };
    let dirs = RunDirs::new(
        Path::new("/work/out/runs/e__t"),
        Path::new("/tmp/mcpeval-e__t-77"),
    );
    assert_eq!(
        render_snapshot(&trace, &dirs),
        "- tool: filesystem/read_text_file\n  arguments: {\"path\":\"[tmp]/data/a.txt\"}\n  outcome: ok\n\
         - tool: filesystem/list_directory\n  arguments: {\"path\":\"[tmp]/data\"}\n  outcome: ok\n\
         - tool: filesystem/write_file\n  arguments: {\"content\":\"see [tmp]/data\",\"path\":\"[work]/out.txt\"}\n  outcome: ok\n"
    );
}

#[test]
fn empty_trace_has_an_explicit_snapshot() {
    assert_eq!(
        render_snapshot(&CallTrace::default(), &RunDirs::default()),
        "[] # no calls\n"
    );
}

#[test]
fn call_lines_show_arguments_outcome_duration_and_result_tokens() {
    let lines = render_call_lines(&sample(), &[Some(1), None, Some(1_234)]);
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(
        lines[0],
        "  #1 tool kubernetes/pods_list {\"namespace\":\"default\",\"at\":\"http://127.0.0.1:4242/x\"} → ok (12ms, 1 token)"
    );
    assert_eq!(
        lines[2],
        "  #3 tool kubernetes/pods_delete → is_error \"forbidden\" (12ms, 1,234 tokens)"
    );
    assert_eq!(
        lines[3],
        "  #4 prompt docs/review {\"file\":\"/tmp/.tmpQ1/a.rs\"} → error -32602: unknown prompt: review (12ms)"
    );
}

#[test]
fn a_calls_input_rounds_and_task_statuses_are_shown_with_it() {
    let mut trace = sample();
    let step = |status: &str| crate::trace::TaskStatusStep {
        task_id: "t1".into(),
        status: status.into(),
        message: None,
    };
    trace.calls[0].task = ["working", "working", "input_required", "completed"]
        .map(step)
        .to_vec();
    trace.calls[0].rounds = vec![crate::trace::InputRound {
        asked: [("confirm".to_owned(), "elicitation/create".to_owned())].into(),
        request_state: Some("s1".into()),
    }];
    let snapshot = render_snapshot(&trace, &RunDirs::default());
    assert!(
        snapshot.contains(
            "  outcome: ok\n  task: working → input_required → completed\n  rounds:\n  - confirm elicitation/create\n"
        ),
        "{snapshot}"
    );
    let lines = render_call_lines(&trace, &[]);
    assert!(
        lines.contains(", task working → input_required → completed, 1 input round: confirm elicitation/create)"),
        "{lines}"
    );
}
