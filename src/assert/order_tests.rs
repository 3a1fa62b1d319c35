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
