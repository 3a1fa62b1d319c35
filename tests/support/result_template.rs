//! Results files made for tests from one real one (`tests/fixtures/results/base/results/
//! k8s__list-pods.json`), with the names and the verdict of another run.
#![allow(dead_code)]

use std::path::Path;

use serde_json::{Value, json};

/// One run of `test` (`<eval>::<task>`, or `<eval>::<task>@<variant>`) that passed or not,
/// failing for `reason` when one is given.
pub fn run_result(test: &str, passed: bool, reason: Option<&str>) -> Value {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/results/base/results/k8s__list-pods.json");
    let mut result: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let (eval, task) = test.split_once("::").unwrap();
    let task = task.rsplit_once('@').map_or(task, |(task, _)| task);
    result["testName"] = test.into();
    result["evalName"] = eval.into();
    result["taskName"] = task.into();
    result["taskPassed"] = passed.into();
    if let Some(reason) = reason {
        result["reasons"] = json!([reason]);
        result["taskError"] = reason.into();
    }
    result
}
