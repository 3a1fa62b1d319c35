//! Elicitations shown under the call they came during, or apart when during none.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::sample;
use crate::snapshot::{RunDirs, render_call_lines, render_snapshot};
use crate::trace::{CallKind, CallTrace};

fn elicitation(
    position: Option<usize>,
    action: crate::trace::ElicitationAction,
    rule: Option<&str>,
    failure: Option<&str>,
) -> crate::trace::RecordedElicitation {
    crate::trace::RecordedElicitation {
        server: "kubernetes".into(),
        mode: crate::trace::ElicitationMode::Form,
        message: "Delete pod web-1?".into(),
        requested_schema: Some(json!({"type": "object"})),
        url: None,
        turn: None,
        during: position.map(|position| crate::trace::During {
            kind: CallKind::Tool,
            name: "pods_delete".into(),
            position: Some(position),
        }),
        answered_by: crate::trace::AnsweredBy::Script,
        rule: rule.map(str::to_owned),
        action: Some(action),
        content: None,
        injected: None,
        failure: failure.map(str::to_owned),
        start_offset: Duration::from_millis(7),
    }
}

#[test]
fn elicitations_are_shown_under_the_call_they_came_during() {
    use crate::trace::ElicitationAction::{Accept, Cancel};
    let mut trace = sample();
    trace.elicitations = vec![
        elicitation(Some(3), Accept, Some("spec.elicitation.rules[0]"), None),
        elicitation(None, Cancel, None, Some("no `elicitation` rule answers …")),
    ];
    let snapshot = render_snapshot(&trace, &RunDirs::new(Path::new("/r"), Path::new("/w")));
    assert!(
        snapshot.contains(
            "- tool: kubernetes/pods_delete\n  outcome: is_error\n  elicitations:\n  - form \"Delete pod web-1?\" → accept (spec.elicitation.rules[0])\n"
        ),
        "{snapshot}"
    );
    assert!(
        snapshot.ends_with(
            "- elicitation: kubernetes form \"Delete pod web-1?\" → cancel, failed (unmatched)\n"
        ),
        "{snapshot}"
    );
    let lines = render_call_lines(&trace, &[]);
    assert!(
        lines.contains(
            "\n       asked: form \"Delete pod web-1?\" → accept (spec.elicitation.rules[0])\n  #4 "
        ),
        "{lines}"
    );
    assert!(
        lines.ends_with(
            "  - kubernetes asked: form \"Delete pod web-1?\" → cancel, failed (unmatched)"
        ),
        "{lines}"
    );
    let asked_only = CallTrace {
        elicitations: trace.elicitations.split_off(1),
        ..CallTrace::default()
    };
    let dirs = RunDirs::new(Path::new("/r"), Path::new("/w"));
    assert!(render_snapshot(&asked_only, &dirs).starts_with("- elicitation: "));
}
