use std::collections::BTreeMap;

use super::*;
use crate::report::results::CallHistory;

fn result(test: &str, surface: Surface, tools: &[&str], reads: &[&str]) -> TaskResult {
    let record = |name: &&str| CallRecord::succeeded("demo", name);
    TaskResult {
        test_name: test.into(),
        surface: BTreeMap::from([("demo".to_owned(), surface)]),
        call_history: CallHistory {
            tool_calls: tools.iter().map(record).collect(),
            resource_reads: reads.iter().map(record).collect(),
            prompt_gets: vec![],
            elicitations: vec![],
            sampling: Vec::new(),
        },
        ..TaskResult::default()
    }
}

fn demo() -> Surface {
    Surface {
        tools: vec!["add".into(), "echo".into()],
        resources: vec!["demo://readme".into()],
        resource_templates: vec!["demo://users/{id}".into()],
        prompts: vec!["summarize".into()],
    }
}

#[test]
fn coverage_counts_tests_not_runs_and_lists_the_untouched_items() {
    let results = [
        result("e::a", demo(), &["add", "add"], &[]),
        result("e::a", demo(), &["add"], &[]),
        result("e::b", demo(), &["add"], &["demo://users/7"]),
    ];
    let coverage = coverage(&results);
    let demo = &coverage["demo"];
    assert_eq!(demo.tools["add"], 2);
    assert_eq!(demo.tools["echo"], 0);
    assert_eq!(demo.resource_templates["demo://users/{id}"], 1);
    assert_eq!(demo.resources["demo://readme"], 0);
    assert_eq!((demo.used, demo.advertised), (2, 5));
    assert_eq!(demo.coverage, 0.4);
    assert_eq!(demo.untouched.tools, ["echo"]);
    assert_eq!(demo.untouched.resources, ["demo://readme"]);
    assert_eq!(demo.untouched.prompts, ["summarize"]);
}

#[test]
fn coverage_merges_what_different_runs_advertised_and_ignores_unadvertised_calls() {
    let only_add = Surface {
        tools: vec!["add".into()],
        ..Surface::default()
    };
    let only_echo = Surface {
        tools: vec!["echo".into()],
        ..Surface::default()
    };
    let results = [
        result("e::a", only_add, &["add", "secret"], &[]),
        result("e::b", only_echo, &[], &[]),
        result("e::c", Surface::default(), &["echo"], &[]),
    ];
    let demo = &coverage(&results)["demo"];
    assert_eq!(
        demo.tools,
        BTreeMap::from([("add".into(), 1), ("echo".into(), 1)])
    );
    assert_eq!(demo.coverage, 1.0);
    assert!(demo.untouched.tools.is_empty());
}

#[test]
fn a_call_whose_answer_was_injected_does_not_use_the_servers_item() {
    use crate::trace::{FaultKind, Injected};
    let mut results = [result(
        "e::a",
        demo(),
        &["add", "echo"],
        &["demo://users/7"],
    )];
    let history = &mut results[0].call_history;
    let inject = |fault| {
        Some(Injected {
            fault,
            rule: "spec.faults[0]".into(),
        })
    };
    history.tool_calls[0].injected = inject(FaultKind::ToolError);
    history.resource_reads[0].injected = inject(FaultKind::Timeout);
    // A delayed answer is still the server's.
    history.tool_calls[1].injected = inject(FaultKind::Delay);
    let demo = &coverage(&results)["demo"];
    assert_eq!(
        demo.tools,
        BTreeMap::from([("add".into(), 0), ("echo".into(), 1)])
    );
    assert_eq!(demo.resource_templates["demo://users/{id}"], 0);
    assert_eq!(demo.untouched.tools, ["add"]);
    assert_eq!((demo.used, demo.advertised), (1, 5));
}

#[test]
fn a_server_that_advertised_nothing_has_no_coverage() {
    let results = [result("e::a", Surface::default(), &["add"], &[])];
    assert!(coverage(&results).is_empty());
}

#[test]
fn uri_templates_match_by_expression() {
    let cases = [
        ("demo://users/{id}", "demo://users/7", true),
        ("demo://users/{id}", "demo://users/", false),
        ("demo://users/{id}", "demo://users/7/posts", false),
        ("demo://users/{id}/posts", "demo://users/7/posts", true),
        ("file:///{+path}", "file:///a/b.txt", true),
        ("file:///{+path}", "file:///", true),
        ("search://{q}{?limit}", "search://x?limit=3", true),
        ("demo://readme", "demo://readme", true),
        ("demo://{a}-{b}", "demo://x-y", true),
        ("demo://{a", "demo://{a", true),
        ("demo://users/{id}", "other://users/7", false),
    ];
    for (template, uri, expected) in cases {
        assert_eq!(
            template_matches(template, uri),
            expected,
            "{template} {uri}"
        );
    }
}

#[test]
fn a_call_that_erred_covers_nothing() {
    let mut erred = result("e::b", demo(), &["echo"], &["demo://readme"]);
    erred.call_history.tool_calls[0].outcome = "is_error".into();
    erred.call_history.resource_reads[0].outcome = "error".into();
    let results = [result("e::a", demo(), &["add"], &[]), erred];
    let demo = &coverage(&results)["demo"];
    assert_eq!((demo.tools["add"], demo.tools["echo"]), (1, 0));
    assert_eq!(demo.resources["demo://readme"], 0);
    assert_eq!((demo.used, demo.advertised), (1, 5));
}
