//! The complete examples of eval-config.md load and plan to their test names.

use std::time::Duration;

use mcpeval::config::{Agent, BuiltinAgent, KindId, Transport, load_eval};
use mcpeval::plan::plan_eval;
use mcpeval::trace::CallKind;

use super::{fixture, names};

#[test]
fn example_simple_eval_with_builtin_agent() {
    assert_eq!(
        names("examples/simple-builtin/eval.yaml"),
        ["kubernetes-basic::create-pod"]
    );
    let eval = load_eval(&fixture("examples/simple-builtin/eval.yaml")).unwrap();
    assert!(matches!(
        eval.agent,
        Agent::Builtin(BuiltinAgent {
            kind: KindId::ClaudeCode,
            model: None,
            ..
        })
    ));
    let assertions = &eval.task_sets[0].assertions;
    assert_eq!(
        (assertions.min_tool_calls, assertions.max_tool_calls),
        (Some(1), Some(5))
    );
    assert!(assertions.tools_used[0].matches("kubernetes", "pods_create"));
    assert!(!assertions.tools_used[0].matches("kubernetes", "namespaces_list"));
}

#[test]
fn example_simple_eval_with_custom_agent_file() {
    assert_eq!(
        names("examples/simple-file-agent/eval.yaml"),
        ["kubernetes-basic::create-pod"]
    );
    let eval = load_eval(&fixture("examples/simple-file-agent/eval.yaml")).unwrap();
    let Agent::Command(command) = &eval.agent else {
        panic!("{:?}", eval.agent)
    };
    assert_eq!(
        command.file,
        fixture("examples/simple-file-agent/agent.yaml")
    );
    assert_eq!(command.allowed_tools_separator, ",");
    assert_eq!(command.timeout, Duration::from_secs(300));
}

#[test]
fn example_multi_task_with_different_assertions() {
    assert_eq!(
        names("examples/multi-task/eval.yaml"),
        [
            "comprehensive-eval::list-pods",
            "comprehensive-eval::list-namespaces",
            "comprehensive-eval::scale-deployment",
            "comprehensive-eval::replace-pod",
        ]
    );
    let plan = plan_eval(load_eval(&fixture("examples/multi-task/eval.yaml")).unwrap()).unwrap();
    let hard = &plan.cases[3];
    assert_eq!(hard.assertion_sets.len(), 1);
    assert_eq!(hard.assertion_sets[0].task_set, "config.taskSets[2]");
    let order = &hard.assertion_sets[0].assertions.call_order;
    assert_eq!(
        order.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["pods_list", "pods_create"]
    );
    assert!(
        order
            .iter()
            .all(|c| c.kind == CallKind::Tool && c.server == "kubernetes")
    );
    let Transport::Http { url, headers } = &plan.eval.mcp.servers["kubernetes"].transport else {
        panic!()
    };
    assert!(url.ends_with("/mcp"), "{url}");
    assert!(headers["Authorization"].starts_with("Bearer "));
}

#[test]
fn example_strict_eval_with_forbidden_actions() {
    // The glob skips the multi-document Kubernetes manifest beside the tasks.
    assert_eq!(
        names("examples/safe-operations/eval.yaml"),
        [
            "safe-operations::create-pod",
            "safe-operations::create-debug-pod"
        ]
    );
    let eval = load_eval(&fixture("examples/safe-operations/eval.yaml")).unwrap();
    let a = &eval.task_sets[0].assertions;
    assert!(a.tools_not_used[0].matches("kubernetes", "pods_delete"));
    assert!(a.resources_not_read[0].matches("kubernetes", "k8s://default/secrets/db"));
    assert!(a.no_duplicate_calls);
    assert_eq!(a.max_tool_calls, Some(15));
}

#[test]
fn example_flexible_eval() {
    assert_eq!(
        names("examples/flexible/eval.yaml"),
        ["flexible-eval::creative-task"]
    );
    let eval = load_eval(&fixture("examples/flexible/eval.yaml")).unwrap();
    assert!(matches!(
        &eval.agent,
        Agent::Builtin(BuiltinAgent { kind: KindId::LlmAgent, model: Some(model), .. }) if model == "gpt-4"
    ));
    let any = &eval.task_sets[0].assertions.require_any[0];
    assert!(any.name.is_none() && any.pattern.is_none());
    assert!(any.matches("kubernetes", "whatever_tool"));
}
