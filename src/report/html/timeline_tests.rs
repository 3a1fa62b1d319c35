//! The timeline's events: bars, elicitations after their call, a call's task and rounds.

use std::time::Duration;

use serde_json::json;

use super::*;
use crate::trace::{CallKind, During, ElicitationAction, ElicitationMode};

#[test]
fn a_servers_elicitation_follows_the_call_it_came_during() {
    let call = CallRecord {
        arguments: Some(json!({"path": "notes.txt"})),
        result: json!({"content": [{"type": "text", "text": "kept notes.txt"}]}),
        start_offset_ms: 10.0,
        duration_ms: 5.0,
        ..CallRecord::succeeded("files", "delete_file")
    };
    let asked = |position: Option<usize>, failure: Option<&str>| RecordedElicitation {
        server: "files".into(),
        mode: ElicitationMode::Form,
        message: "Delete notes.txt?".into(),
        requested_schema: Some(json!({"type": "object"})),
        url: None,
        turn: None,
        during: position.map(|position| During {
            kind: CallKind::Tool,
            name: "delete_file".into(),
            position: Some(position),
        }),
        answered_by: AnsweredBy::Script,
        rule: None,
        action: Some(ElicitationAction::Cancel),
        content: None,
        injected: None,
        failure: failure.map(str::to_owned),
        start_offset: Duration::from_millis(12),
    };
    let mut result = TaskResult::default();
    let mut call = call;
    call.task = vec![crate::trace::TaskStatusStep {
        task_id: "t1".into(),
        status: "completed".into(),
        message: None,
    }];
    call.rounds = vec![crate::trace::InputRound {
        asked: [("confirm".to_owned(), "elicitation/create".to_owned())].into(),
        request_state: None,
    }];
    result.call_history.tool_calls.push(call);
    result.call_history.elicitations = vec![
        asked(Some(1), Some("no `elicitation` rule answers it")),
        asked(None, None),
    ];
    let events = timeline(&result, Path::new("."));
    let kinds: Vec<&str> = events.iter().map(|event| event.kind).collect();
    assert_eq!(kinds, ["mcp", "ask", "ask"]);
    assert_eq!(
        events[1].title,
        "files asks (form): Delete notes.txt? → cancel (unmatched)"
    );
    assert_eq!(events[1].status, "fail");
    assert_eq!(events[1].reason, "no `elicitation` rule answers it");
    assert_eq!(events[1].at, "+12 ms");
    assert_eq!(events[2].status, "ok");
    let labels: Vec<&str> = events[0].blocks.iter().map(|(label, _)| *label).collect();
    assert_eq!(labels, ["arguments", "result", "task", "input rounds"]);
    assert_eq!(events[0].title, "#1 files delete_file");

    // A conversation's call says its turn.
    result.call_history.tool_calls[0].turn = Some(2);
    let events = timeline(&result, Path::new("."));
    assert_eq!(events[0].title, "turn 2 · #1 files delete_file");
}

#[test]
fn bars_stay_inside_the_span_even_at_its_very_end() {
    let span = TimelineSpan(10.0);
    assert_eq!(span.bar(0.0, 5.0), (0.0, 50.0));
    // Observed: an event starting at the end panicked (clamp with min > max).
    assert_eq!(span.bar(10.0, 0.0), (99.6, 0.4));
    assert_eq!(span.bar(12.0, 3.0), (99.6, 0.4));
    assert_eq!(span.bar(f64::NAN, f64::NAN), (0.0, 0.4));
}
