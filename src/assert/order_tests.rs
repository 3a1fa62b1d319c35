//! `callOrder`: the exact semantics (formats.md, "Assertions: exact semantics").

use super::tests::{call, failures, only, ordered, tool, trace};
use crate::config::Assertions;
use crate::trace::CallKind;

#[test]
fn call_order_allows_calls_in_between() {
    let t = trace(vec![
        tool("k8s", "pods_list"),
        tool("k8s", "deployments_list"),
        tool("k8s", "pods_create"),
    ]);
    let a = Assertions {
        call_order: vec![
            ordered(CallKind::Tool, "k8s", "pods_list"),
            ordered(CallKind::Tool, "k8s", "pods_create"),
        ],
        ..Default::default()
    };
    assert!(failures(a, &t).is_empty());
}

#[test]
fn call_order_out_of_order_fails_and_says_how_far_it_got() {
    let t = trace(vec![tool("k8s", "pods_create"), tool("k8s", "pods_list")]);
    let a = Assertions {
        call_order: vec![
            ordered(CallKind::Tool, "k8s", "pods_list"),
            ordered(CallKind::Tool, "k8s", "pods_create"),
        ],
        ..Default::default()
    };
    let f = only(a, &t);
    assert_eq!(f.assertion.key(), "callOrder");
    assert!(
        f.actual
            .starts_with("matched 1 of 2: tool k8s/pods_list (call #2)"),
        "{f}"
    );
    assert!(
        f.actual
            .contains("tool k8s/pods_create never came after call #2"),
        "{f}"
    );
}

#[test]
fn call_order_spans_resources_and_prompts_and_checks_kinds() {
    let t = trace(vec![
        call(CallKind::Prompt, "docs", "plan", None),
        tool("k8s", "pods_list"),
        call(CallKind::Resource, "docs", "file:///a", None),
    ]);
    let order = vec![
        ordered(CallKind::Prompt, "docs", "plan"),
        ordered(CallKind::Tool, "k8s", "pods_list"),
        ordered(CallKind::Resource, "docs", "file:///a"),
    ];
    assert!(
        failures(
            Assertions {
                call_order: order,
                ..Default::default()
            },
            &t
        )
        .is_empty()
    );
    // Same name, wrong kind: a tool named like the resource does not count.
    let wrong_kind = vec![ordered(CallKind::Tool, "docs", "file:///a")];
    let f = only(
        Assertions {
            call_order: wrong_kind,
            ..Default::default()
        },
        &t,
    );
    assert!(
        f.actual
            .starts_with("matched 0 of 1: none; tool docs/file:///a never came;"),
        "{f}"
    );
}

#[test]
fn call_order_uses_each_call_once() {
    let t = trace(vec![tool("k8s", "a")]);
    let order = vec![
        ordered(CallKind::Tool, "k8s", "a"),
        ordered(CallKind::Tool, "k8s", "a"),
    ];
    assert_eq!(
        only(
            Assertions {
                call_order: order,
                ..Default::default()
            },
            &t
        )
        .assertion
        .key(),
        "callOrder"
    );
}

/// An elicitation sent during call `position` (1-based) of tool `tool`.
fn asked(tool: &str, position: usize) -> crate::trace::RecordedElicitation {
    crate::trace::RecordedElicitation {
        server: "files".into(),
        mode: crate::trace::ElicitationMode::Form,
        message: format!("Really {tool}?"),
        requested_schema: None,
        url: None,
        turn: None,
        during: Some(crate::trace::During {
            kind: CallKind::Tool,
            name: tool.into(),
            position: Some(position),
        }),
        answered_by: crate::trace::AnsweredBy::Script,
        rule: None,
        action: Some(crate::trace::ElicitationAction::Accept),
        content: None,
        injected: None,
        failure: None,
        start_offset: std::time::Duration::ZERO,
    }
}

#[test]
fn call_order_pairs_an_elicitation_entry_with_the_call_it_came_during() {
    let mut t = trace(vec![
        tool("files", "read_file"),
        tool("files", "delete_file"),
        tool("files", "list_files"),
    ]);
    t.elicitations = vec![asked("delete_file", 2)];
    let elicitation = |name: &str| crate::config::OrderedCall {
        asked: true,
        turn: None,
        ..ordered(CallKind::Tool, "files", name)
    };
    let holds = Assertions {
        call_order: vec![
            ordered(CallKind::Tool, "files", "delete_file"),
            elicitation("delete_file"),
            ordered(CallKind::Tool, "files", "list_files"),
        ],
        ..Default::default()
    };
    assert!(failures(holds, &t).is_empty());
    // It came after the read, during the delete: not before the read, nor without a call.
    let before_read = Assertions {
        call_order: vec![
            elicitation("delete_file"),
            ordered(CallKind::Tool, "files", "read_file"),
        ],
        ..Default::default()
    };
    let f = only(before_read, &t);
    assert!(
        f.actual.starts_with(
            "matched 1 of 2: elicitation files/delete_file (elicitation during call #2); tool files/read_file never came after call #2"
        ),
        "{f}"
    );
    let never = Assertions {
        call_order: vec![elicitation("read_file")],
        ..Default::default()
    };
    assert!(
        only(never, &t)
            .actual
            .contains("elicitation files/read_file never came")
    );
}

#[test]
fn call_order_entries_with_a_turn_match_only_that_turns_calls_and_elicitations() {
    let in_turn = |turn: u32, mut call: crate::trace::RecordedCall| {
        call.turn = Some(turn);
        call
    };
    let mut t = trace(vec![
        in_turn(1, tool("files", "delete_file")),
        in_turn(2, tool("files", "list_files")),
        in_turn(2, tool("files", "delete_file")),
    ]);
    let mut second = asked("delete_file", 3);
    second.turn = Some(2);
    t.elicitations = vec![second];
    let at = |turn: u32, entry: crate::config::OrderedCall| crate::config::OrderedCall {
        turn: Some(turn),
        ..entry
    };
    let delete = || ordered(CallKind::Tool, "files", "delete_file");
    let asked_during = || crate::config::OrderedCall {
        asked: true,
        ..delete()
    };
    // Turn 2's delete came after its list (turn 1's did not), and asked in turn 2.
    let holds = Assertions {
        call_order: vec![
            ordered(CallKind::Tool, "files", "list_files"),
            at(2, delete()),
            at(2, asked_during()),
        ],
        ..Default::default()
    };
    assert!(failures(holds, &t).is_empty());
    let turn_one_after_list = Assertions {
        call_order: vec![
            ordered(CallKind::Tool, "files", "list_files"),
            at(1, delete()),
        ],
        ..Default::default()
    };
    let f = only(turn_one_after_list, &t);
    assert!(
        f.expected.contains("tool files/delete_file in turn 1")
            && f.actual
                .contains("tool files/delete_file in turn 1 never came after call #2"),
        "{f}"
    );
    let asked_in_one = Assertions {
        call_order: vec![at(1, asked_during())],
        ..Default::default()
    };
    assert!(!failures(asked_in_one, &t).is_empty());
}
