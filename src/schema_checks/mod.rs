//! The server checked against its own schemas, on every run: the tool definitions it
//! advertised (what the MCP spec requires of them), every recorded `tools/call`'s arguments
//! against the tool's `inputSchema`, and every result against its `outputSchema`.
//!
//! Reads only the trace: the definitions are the ones the agent was shown
//! ([`CallTrace::advertised`]), so a call to a tool the agent never listed is not checked.
//! A call whose answer the proxy injected (a task's `faults`) has its arguments checked (they
//! are the agent's) but not its result (it is the proxy's).
//! What the findings mean for a verdict is the harness's decision: a result that breaks its
//! output schema and a broken definition are server bugs; arguments that break an input
//! schema are the agent's error, counted (and failing only where the task set says so).

mod cache;
mod definitions;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use cache::SchemaCache;

use crate::plumbing::json_schema::SchemaViolation;
use crate::plumbing::text::shorten;
use crate::trace::{CallKind, CallTrace, Outcome, RecordedCall};

/// Longest offending value kept in a finding (bytes of compact JSON).
const VALUE_BYTES: usize = 200;

/// What the schema checks of one run found (all empty when the server kept to its schemas).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchemaChecks {
    /// Advertised tool definitions that break what the MCP spec requires.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub definitions: Vec<DefinitionProblem>,
    /// Tool calls whose arguments break the tool's `inputSchema` (the agent erred).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<CallFinding>,
    /// Tool results that break the tool's `outputSchema`, or lack the `structuredContent`
    /// it promises (the server erred).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<CallFinding>,
}

impl SchemaChecks {
    /// Nothing found.
    pub fn is_empty(&self) -> bool {
        self.definitions.is_empty() && self.arguments.is_empty() && self.results.is_empty()
    }

    /// What fails a run whatever the task set says: broken definitions and results.
    pub fn server_erred(&self) -> bool {
        !self.definitions.is_empty() || !self.results.is_empty()
    }
}

/// One advertised tool definition that breaks the spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionProblem {
    /// The server's name in the MCP config.
    pub server: String,
    /// The tool's name as advertised (`#N` for the Nth tool when it has no string name).
    pub tool: String,
    /// What is wrong, e.g. ``name `get user` has a character other than A-Z a-z 0-9 _ - .``.
    pub problem: String,
}

impl DefinitionProblem {
    /// `demo/get user: name … has a space`, for messages.
    pub fn describe(&self) -> String {
        format!("{}/{}: {}", self.server, self.tool, self.problem)
    }
}

/// One tool call whose arguments or result break the tool's schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFinding {
    /// The call's number in the trace, from 1 (as failure messages count calls: `#3`).
    pub call: usize,
    /// The server's name in the MCP config.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// Each way the value breaks the schema.
    pub violations: Vec<Violation>,
}

impl CallFinding {
    /// `#3 demo/report: at /count (schema /properties/count/type): "three" is not of type
    /// "integer"; …`, for messages.
    pub fn describe(&self) -> String {
        let violations: Vec<String> = self.violations.iter().map(Violation::describe).collect();
        format!(
            "#{} {}/{}: {}",
            self.call,
            self.server,
            self.tool,
            violations.join("; ")
        )
    }
}

/// One way a value breaks a schema: where in the value, which schema keyword, and the value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// JSON pointer into the checked value (empty: the value itself).
    pub path: String,
    /// JSON pointer of the schema keyword that failed (`/properties/count/type`); empty when
    /// the value is missing altogether.
    pub schema_path: String,
    /// What is wrong, as the validator says it.
    pub message: String,
    /// The offending value as compact JSON, shortened; `None` when there is no value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

impl Violation {
    fn describe(&self) -> String {
        let at = match (self.path.is_empty(), self.schema_path.is_empty()) {
            (_, true) => String::new(),
            (true, false) => format!("(schema {}) ", self.schema_path),
            (false, false) => format!("at {} (schema {}) ", self.path, self.schema_path),
        };
        format!("{at}{}", self.message)
    }

    fn of(violation: SchemaViolation, checked: &Value) -> Self {
        let value = checked
            .pointer(&violation.path)
            .map(|value| shorten(&value.to_string(), VALUE_BYTES));
        Violation {
            path: violation.path,
            schema_path: violation.schema_path,
            message: shorten(&violation.message, VALUE_BYTES * 2),
            value,
        }
    }
}

/// Checks the definitions `trace` advertised and every tool call in it (schemas compiled
/// and definitions judged once, through `cache`).
pub fn check(trace: &CallTrace, cache: &SchemaCache) -> SchemaChecks {
    let mut checks = SchemaChecks::default();
    for (server, advertised) in &trace.advertised {
        checks
            .definitions
            .extend(cache.definition_problems(server, &advertised.tools));
    }
    for (index, call) in trace.calls.iter().enumerate() {
        if call.kind != CallKind::Tool {
            continue;
        }
        let Some(tool) = advertised_tool(trace, call) else {
            continue;
        };
        let finding = |violations: Vec<Violation>| CallFinding {
            call: index + 1,
            server: call.server.clone(),
            tool: call.name.clone(),
            violations,
        };
        let arguments = check_arguments(tool, call, cache);
        if !arguments.is_empty() {
            checks.arguments.push(finding(arguments));
        }
        if call.answer_injected() {
            // The answer is the proxy's (a task's `faults`), not the server's.
            continue;
        }
        let result = check_result(tool, &call.outcome, cache);
        if !result.is_empty() {
            checks.results.push(finding(result));
        }
    }
    checks
}

/// The definition of the tool `call` called, as its server last advertised it.
fn advertised_tool<'a>(trace: &'a CallTrace, call: &RecordedCall) -> Option<&'a Value> {
    let advertised = trace.advertised.get(&call.server)?;
    advertised
        .tools
        .iter()
        .find(|tool| tool["name"].as_str() == Some(call.name.as_str()))
}

/// The call's arguments (an empty object when it sent none, as servers read it) against
/// the tool's `inputSchema`. A schema that does not compile is a definition problem,
/// reported once there.
fn check_arguments(tool: &Value, call: &RecordedCall, cache: &SchemaCache) -> Vec<Violation> {
    let Some(schema) = tool.get("inputSchema") else {
        return Vec::new();
    };
    let empty = Value::Object(Default::default());
    let arguments = call.arguments.as_ref().unwrap_or(&empty);
    match cache.compiled(schema).as_ref() {
        Ok(schema) => schema
            .violations(arguments)
            .into_iter()
            .map(|v| Violation::of(v, arguments))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// A successful result against the tool's `outputSchema`: its `structuredContent` must be
/// there and conform. `isError` results and JSON-RPC errors are not checked (the spec asks
/// structured results of successful calls only).
fn check_result(tool: &Value, outcome: &Outcome, cache: &SchemaCache) -> Vec<Violation> {
    let (Some(schema), Outcome::Ok { result }) = (tool.get("outputSchema"), outcome) else {
        return Vec::new();
    };
    let compiled = cache.compiled(schema);
    let Ok(compiled) = compiled.as_ref() else {
        return Vec::new();
    };
    match result.get("structuredContent") {
        None | Some(Value::Null) => vec![Violation {
            path: String::new(),
            schema_path: String::new(),
            message: "the tool has an outputSchema but the result has no structuredContent".into(),
            value: None,
        }],
        Some(structured) => compiled
            .violations(structured)
            .into_iter()
            .map(|v| Violation::of(v, structured))
            .collect(),
    }
}

#[cfg(test)]
mod tests;
