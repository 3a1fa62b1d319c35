//! `arguments:` patterns of assertions load from YAML and match recorded calls.

use std::time::Duration;

use mcpeval::trace::CallKind;

use super::fixture;

#[test]
fn argument_patterns_load_from_yaml_and_match_recorded_calls() {
    use mcpeval::trace::{Outcome, RecordedCall};
    use serde_json::{Value, json};

    let lookup = |name: &str| (name == "MCPEVAL_BIN").then(|| "mcpeval".to_owned());
    let eval = mcpeval::config::load_eval_with(&fixture("arguments/eval.yaml"), &lookup).unwrap();
    let a = &eval.task_sets[0].assertions;
    let call = |name: &str, arguments: Value| RecordedCall {
        server: "demo".into(),
        kind: CallKind::Tool,
        name: name.into(),
        arguments: Some(arguments),
        outcome: Outcome::Ok { result: json!({}) },
        start_offset: Duration::ZERO,
        duration: Duration::ZERO,
        injected: None,
        rounds: Vec::new(),
        task: Vec::new(),
        turn: None,
    };
    // `{a: 20, b: {$type: integer}}`
    assert!(a.tools_used[0].matches_call(&call("add", json!({"a": 20, "b": 22, "c": 0}))));
    assert!(!a.tools_used[0].matches_call(&call("add", json!({"a": 20, "b": 2.5}))));
    // `{id: "3"}`: a YAML string, so the number 3 does not match.
    assert!(a.tools_not_used[0].matches_call(&call("lookup_user", json!({"id": "3"}))));
    assert!(!a.tools_not_used[0].matches_call(&call("lookup_user", json!({"id": 3}))));
    // `{a: 20.0}` equals the integer 20; shown as written.
    let add = &a.call_order[1];
    assert!(add.matches_call(&call("add", json!({"a": 20, "b": 1}))));
    assert_eq!(add.describe(), r#"tool demo/add with arguments {"a":20.0}"#);
    assert_eq!(a.max_tool_errors, Some(1));
}
