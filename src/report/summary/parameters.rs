//! Parameter coverage: per server and tool, each property of the tool's input schema (top
//! level and one level of nesting: `spec.replicas`, `items[].id`), how many tests
//! *exercised* it (a call that succeeded passed it) and how many *asserted* it (an
//! `arguments` pattern of their assertions names it, or a succeeded call passed it in a
//! run whose schema checks fail the task: `schemaViolations: fail`), and for an enum (or a
//! boolean) which of its values the succeeded calls passed.
//!
//! A call answered with `isError` or a JSON-RPC error, or whose answer a task's `faults`
//! injected, exercises nothing: the tool's `calls` and `errors` say how many calls erred
//! (the error share), apart. The schemas are the ones the runs' results name
//! (`mcpServers`, as the agent saw them); a property counts a test once however many of
//! its runs passed it.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::report::results::{CallRecord, TaskResult};

/// One server's parameter coverage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerParameters {
    /// Properties over its tools' input schemas.
    pub properties: usize,
    /// Of those, the ones some test exercised.
    pub exercised: usize,
    /// Of those, the ones some test asserted.
    pub asserted: usize,
    /// `exercised / properties`.
    pub coverage: f64,
    /// Each tool, by name.
    pub tools: BTreeMap<String, ToolParameters>,
}

/// One tool's calls and properties.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolParameters {
    /// Calls the server answered (injected answers left out).
    pub calls: usize,
    /// Of those, the ones answered with `isError` or a JSON-RPC error.
    pub errors: usize,
    /// `errors / calls` (0 without calls).
    pub error_share: f64,
    /// Each property of its input schema, by path (`name`, `spec.replicas`, `items[].id`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, PropertyCoverage>,
}

/// One property: the tests that exercised and asserted it, the values it could take and
/// the ones it took.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertyCoverage {
    /// Tests with a succeeded call that passed it.
    pub exercised: usize,
    /// Tests whose assertions name it in an `arguments` pattern.
    pub asserted: usize,
    /// Its enum's values (`true` and `false` for a boolean), as text; empty for others.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// Of `values`, the ones a succeeded call passed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen: Vec<String>,
}

impl PropertyCoverage {
    /// `exercised`, `asserted` (exercised and asserted) or `never`.
    pub fn state(&self) -> &'static str {
        match (self.exercised > 0, self.asserted > 0) {
            (true, true) => "asserted",
            (true, false) => "exercised",
            (false, true) => "asserted only",
            (false, false) => "never",
        }
    }
}

impl ServerParameters {
    /// Text lines for a terminal: the figures, then each tool's properties with what
    /// touched them and the enum values never passed.
    pub fn render(&self, server: &str) -> Vec<String> {
        let mut lines = vec![format!(
            "parameter coverage of {server}: {} of {} properties exercised ({:.1}%), {} asserted",
            self.exercised,
            self.properties,
            self.coverage * 100.0,
            self.asserted
        )];
        for (tool, parameters) in &self.tools {
            let mut items: Vec<String> = (parameters.properties.iter())
                .map(|(path, property)| {
                    let missed: Vec<&str> = (property.values.iter())
                        .filter(|value| !property.seen.contains(value))
                        .map(String::as_str)
                        .collect();
                    match missed.as_slice() {
                        [] => format!("{path} {}", property.state()),
                        missed => {
                            format!("{path} {} (never {})", property.state(), missed.join(", "))
                        }
                    }
                })
                .collect();
            if parameters.errors > 0 {
                items.push(format!(
                    "{} of {} calls erred",
                    parameters.errors, parameters.calls
                ));
            }
            if !items.is_empty() {
                lines.push(format!("  {tool}: {}", items.join(", ")));
            }
        }
        lines
    }
}

/// A property of an input schema: its path and the values it can take (for an enum or a
/// boolean).
type Declared = BTreeMap<String, Vec<String>>;

/// The parameter coverage of every server whose tools have input-schema properties in
/// `results`, by server name.
pub fn parameter_coverage(results: &[TaskResult]) -> BTreeMap<String, ServerParameters> {
    // server → tool → its declared properties (the first schema seen).
    let mut schemas: BTreeMap<&str, BTreeMap<&str, Declared>> = BTreeMap::new();
    for result in results {
        for server in &result.mcp_servers {
            let tools = schemas.entry(server.name.as_str()).or_default();
            for tool in &server.tools {
                (tools.entry(tool.name.as_str()))
                    .or_insert_with(|| declared(tool.input_schema.as_ref()));
            }
        }
    }
    // server → tool → path → (tests exercising, tests asserting, values seen)
    type Uses<'a> = (BTreeSet<&'a str>, BTreeSet<&'a str>, BTreeSet<String>);
    let mut uses: BTreeMap<(&str, &str), BTreeMap<String, Uses>> = BTreeMap::new();
    let mut calls: BTreeMap<(&str, &str), (usize, usize)> = BTreeMap::new();
    for result in results {
        let test = result.test_name.as_str();
        let served = (result.call_history.tool_calls.iter()).filter(|call| !call.answer_injected());
        for call in served {
            let key = (call.server_name.as_str(), call.name.as_str());
            let Some(declared) = schemas.get(key.0).and_then(|tools| tools.get(key.1)) else {
                continue;
            };
            let counted = calls.entry(key).or_default();
            counted.0 += 1;
            if call.outcome != "ok" {
                counted.1 += 1;
                continue;
            }
            let paths = uses.entry(key).or_default();
            for (path, values) in passed(call, declared) {
                let used = paths.entry(path).or_default();
                used.0.insert(test);
                // Checked against the schema, and a break fails the run.
                if result.schema_checks_fail {
                    used.1.insert(test);
                }
                used.2.extend(values);
            }
        }
        for (server, tools) in &result.asserted_arguments {
            for (tool, asserted) in tools {
                let key = (server.as_str(), tool.as_str());
                let Some(declared) = schemas.get(key.0).and_then(|tools| tools.get(key.1)) else {
                    continue;
                };
                let paths = uses.entry(key).or_default();
                for path in asserted.iter().filter(|path| declared.contains_key(*path)) {
                    paths.entry(path.clone()).or_default().1.insert(test);
                }
            }
        }
    }
    let mut coverage = BTreeMap::new();
    for (server, tools) in schemas {
        let mut figures = ServerParameters::default();
        for (tool, declared) in tools {
            let key = (server, tool);
            let (called, errors) = calls.get(&key).copied().unwrap_or_default();
            let mut parameters = ToolParameters {
                calls: called,
                errors,
                error_share: share(errors, called),
                properties: BTreeMap::new(),
            };
            let used = uses.get(&key);
            for (path, values) in declared {
                let (exercised, asserted, seen) = match used.and_then(|u| u.get(&path)) {
                    Some((exercised, asserted, seen)) => (exercised.len(), asserted.len(), seen),
                    None => (0, 0, &BTreeSet::new()),
                };
                figures.properties += 1;
                figures.exercised += usize::from(exercised > 0);
                figures.asserted += usize::from(asserted > 0);
                let seen = (values.iter())
                    .filter(|v| seen.contains(*v))
                    .cloned()
                    .collect();
                let property = PropertyCoverage {
                    exercised,
                    asserted,
                    values,
                    seen,
                };
                parameters.properties.insert(path, property);
            }
            figures.tools.insert(tool.to_owned(), parameters);
        }
        if figures.properties == 0 {
            continue;
        }
        figures.coverage = share(figures.exercised, figures.properties);
        coverage.insert(server.to_owned(), figures);
    }
    coverage
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// The properties of `schema` to one level of nesting, with their enum (or boolean) values.
fn declared(schema: Option<&Value>) -> Declared {
    let mut declared = Declared::new();
    let Some(properties) = schema.and_then(|s| s["properties"].as_object()) else {
        return declared;
    };
    for (name, property) in properties {
        declared.insert(name.clone(), values_of(property));
        let nested = [
            (format!("{name}."), &property["properties"]),
            (format!("{name}[]."), &property["items"]["properties"]),
        ];
        for (prefix, inner) in nested {
            for (inner_name, inner) in inner.as_object().into_iter().flatten() {
                declared.insert(format!("{prefix}{inner_name}"), values_of(inner));
            }
        }
    }
    declared
}

/// The values a property can take, as text: its enum's, or a boolean's two.
fn values_of(property: &Value) -> Vec<String> {
    if let Some(values) = property["enum"].as_array() {
        return values.iter().map(text).collect();
    }
    if property["type"] == "boolean" {
        return vec!["false".to_owned(), "true".to_owned()];
    }
    Vec::new()
}

/// A value as coverage names it: a string as it is, anything else as JSON.
fn text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The declared properties `call` passed, each with the values it passed there (as text).
fn passed(call: &CallRecord, declared: &Declared) -> Vec<(String, Vec<String>)> {
    let Some(arguments) = call.arguments.as_ref().and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for path in declared.keys() {
        // A top-level property whose own name has a dot is found as it is.
        let nested = path
            .split_once('.')
            .filter(|_| !arguments.contains_key(path));
        let values: Vec<&Value> = match nested {
            None => arguments.get(path).into_iter().collect(),
            Some((outer, inner)) => match outer.strip_suffix("[]") {
                Some(array) => (arguments.get(array).and_then(Value::as_array).into_iter())
                    .flatten()
                    .filter_map(|element| element.get(inner))
                    .collect(),
                None => (arguments.get(outer))
                    .and_then(|object| object.get(inner))
                    .into_iter()
                    .collect(),
            },
        };
        if !values.is_empty() {
            found.push((path.clone(), values.into_iter().map(text).collect()));
        }
    }
    found
}

#[cfg(test)]
#[path = "parameters_tests.rs"]
mod tests;
