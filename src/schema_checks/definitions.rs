//! What the MCP spec (2025-11-25, "Tools") asks of a tool definition, checked per tool:
//! a name of 1 to 128 characters from `A-Z a-z 0-9 _ - .`, unique on its server; a
//! `title` and `description` that are strings when present; an `inputSchema` that is
//! there, is an object schema (`"type": "object"`) and compiles; an `outputSchema`, when
//! present, the same.

use std::collections::HashSet;

use serde_json::Value;

use super::DefinitionProblem;

/// The longest tool name the spec allows.
const MAX_NAME: usize = 128;

/// Why a schema does not compile, or `None` when it does.
pub(super) type CompileError<'a> = &'a dyn Fn(&Value) -> Option<String>;

/// Every problem of the tools one server advertised, tool by tool in advertised order;
/// `compile_error` compiles a schema.
pub(super) fn judge_definitions(
    server: &str,
    tools: &[Value],
    compile_error: CompileError<'_>,
) -> Vec<DefinitionProblem> {
    let mut problems = Vec::new();
    let mut names = HashSet::new();
    for (index, tool) in tools.iter().enumerate() {
        let name = tool["name"].as_str();
        let label = name.map_or_else(|| format!("#{}", index + 1), str::to_owned);
        let mut problem = |problem: String| {
            problems.push(DefinitionProblem {
                server: server.to_owned(),
                tool: label.clone(),
                problem,
            })
        };
        match name {
            Some(name) => {
                if let Some(wrong) = name_problem(name) {
                    problem(wrong);
                }
                if !names.insert(name) {
                    problem("another tool of this server has the same name".into());
                }
            }
            None => problem(format!(
                "`name` must be a string, found {}",
                shown(&tool["name"])
            )),
        }
        for key in ["title", "description"] {
            match tool.get(key) {
                None | Some(Value::String(_)) => {}
                Some(other) => problem(format!("`{key}` must be a string, found {}", shown(other))),
            }
        }
        let input = match tool.get("inputSchema") {
            None => Some(
                "`inputSchema` is missing; the spec requires one ({\"type\": \"object\"} for a tool without parameters)"
                    .into(),
            ),
            Some(schema) => problem_of_schema("inputSchema", schema, compile_error),
        };
        let output = tool
            .get("outputSchema")
            .and_then(|schema| problem_of_schema("outputSchema", schema, compile_error));
        input.into_iter().chain(output).for_each(&mut problem);
    }
    problems
}

/// Why `name` is not a valid tool name.
fn name_problem(name: &str) -> Option<String> {
    let length = name.chars().count();
    if length == 0 {
        return Some("the name is empty; it must have 1 to 128 characters".into());
    }
    if length > MAX_NAME {
        return Some(format!(
            "the name has {length} characters; at most {MAX_NAME} are allowed"
        ));
    }
    let wrong: Vec<String> = name
        .chars()
        .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map(|c| format!("{c:?}"))
        .collect();
    (!wrong.is_empty()).then(|| {
        format!(
            "the name has {} (allowed: A-Z a-z 0-9 _ - .)",
            wrong.join(", ")
        )
    })
}

/// Why `schema` (the tool's `key`) is not an object schema that compiles.
fn problem_of_schema(key: &str, schema: &Value, compile_error: CompileError<'_>) -> Option<String> {
    if !schema.is_object() {
        return Some(format!(
            "`{key}` must be a JSON Schema object, found {}",
            shown(schema)
        ));
    }
    if schema.get("type") != Some(&Value::from("object")) {
        return Some(format!(
            "`{key}` must have \"type\": \"object\" at its root, found {}",
            schema.get("type").map_or_else(|| "none".into(), shown)
        ));
    }
    compile_error(schema).map(|error| format!("`{key}` is not a valid JSON Schema: {error}"))
}

/// A value in a message: compact JSON, shortened.
fn shown(value: &Value) -> String {
    crate::plumbing::text::shorten(&value.to_string(), 80)
}
