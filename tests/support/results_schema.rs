//! Results files checked against `schema/results.schema.json`.
#![allow(dead_code)]

use std::path::Path;

use serde_json::Value;

/// Every way `result` breaks the results schema, each with where (empty when it matches).
pub fn violations(result: &Value) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/results.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    validator
        .iter_errors(result)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}
