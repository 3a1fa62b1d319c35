//! The JSON output: against `schema/diff.schema.json`, and each task's figures before and
//! after.

use std::path::Path;

use serde_json::{Value, json};

use super::{budget_pair, diff_with_budgets, mcpeval, pair, server_run, write_edited};

#[test]
fn the_json_output_matches_its_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/diff.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let (_dir, base, current) = budget_pair(1180, 125, true);
    let (_dir2, base2, current2) = pair();
    for out in [
        diff_with_budgets(&base, &current, "0.8", "json"),
        mcpeval(&["diff", &base2, &current2, "--format", "json"]),
    ] {
        let value: Value = serde_json::from_slice(&out.stdout).unwrap();
        let errors: Vec<String> = (validator.iter_errors(&value))
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}\n{value:#}");
    }
    let value: Value =
        serde_json::from_slice(&mcpeval(&["diff", &base2, &current2, "--format", "json"]).stdout)
            .unwrap();
    assert_eq!(value["counts"]["regressed"], 2);
    assert_eq!(value["schemaVersion"], 1);
    let collapsed = &value["tasks"][1];
    assert_eq!(collapsed["testName"], "e::collapsed");
    assert!((collapsed["pValue"].as_f64().unwrap() - 1.0 / 252.0).abs() < 1e-12);
}

#[test]
fn the_json_output_has_each_tasks_figures_before_and_after() {
    let dir = tempfile::tempdir().unwrap();
    server_run(&dir.path().join("base"), 1000, 100, false);
    server_run(&dir.path().join("current"), 1180, 125, true);
    write_edited(
        &dir.path().join("current"),
        "s::calls",
        &[true, true, true],
        &|run| {
            run["toolTokens"] = json!({"tokenizer": "o200k_base", "servers": {"demo": {
            "tools": 2, "definitionTokens": 1180, "toolCalls": 1,
            "resultTokens": 125, "biggestResultTokens": 125}}});
            run["schemaViolations"] = json!({"results": [{"call": 1, "server": "demo", "tool": "echo", "violations": []}]});
            run["toolErrors"] = 2.into();
            run["tokenEstimate"] = json!({"promptTokens": 300, "outputTokens": 60});
            run["agentTokenUsage"] =
                json!({"promptTokens": 900, "completionTokens": 100, "totalTokens": 1000});
        },
    );
    let shown = |name: &str| dir.path().join(name).display().to_string();
    let out = mcpeval(&[
        "diff",
        &shown("base"),
        &shown("current"),
        "--format",
        "json",
    ]);
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    let task = &value["tasks"][0];
    assert_eq!(task["testName"], "s::calls");
    let figures = |side: &str| -> Vec<Value> {
        [
            "toolErrors",
            "schemaFindings",
            "estimatedTokens",
            "agentTokens",
            "definitionTokens",
            "resultTokens",
        ]
        .iter()
        .map(|key| task[side][key].clone())
        .collect()
    };
    let base_estimate = task["base"]["estimatedTokens"].clone();
    assert_eq!(
        figures("base"),
        [
            json!(0.0),
            json!(0.0),
            base_estimate,
            Value::Null,
            json!(1000.0),
            json!(100.0)
        ]
    );
    assert_eq!(
        figures("current"),
        [
            json!(2.0),
            json!(1.0),
            json!(360.0),
            json!(1000.0),
            json!(1180.0),
            json!(125.0)
        ]
    );
}
