//! A server's tools as `mcpeval init` reads them: name, description, required arguments and
//! what an `arguments` pattern can say about each (`$type` from its schema's `type`, `$match`
//! alternatives from its `enum` or `const`), and what is missing from a definition.

use serde_json::{Map, Value};

/// One tool, as the task and its assertions are written from it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The tool's name, exactly.
    pub name: String,
    /// Its description (or title), on one line; `None` when it has neither.
    pub description: Option<String>,
    /// The required arguments, in the schema's order.
    pub required: Vec<Argument>,
    /// The names of the other properties of its input schema.
    pub optional: Vec<String>,
    /// What is wrong with or missing from its definition, for the task's comments and the
    /// command's warnings (`no description`).
    pub problems: Vec<String>,
}

/// A required argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    /// The property's name.
    pub name: String,
    /// What the prompt says it is: `number`, `one of: fast, slow`, `a value`.
    pub kind: String,
    /// The pattern its `toolsUsed` entry checks.
    pub pattern: ArgumentHint,
}

/// What an argument's pattern says.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgumentHint {
    /// `{$type: NAME}`.
    Type(String),
    /// `{$match: REGEX}`: one of the schema's values.
    Match(String),
    /// No pattern; the reason, for a comment.
    Unchecked(String),
}

/// The JSON Schema types an `arguments` pattern's `$type` knows.
const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "array", "object", "null",
];

/// The tools of a `tools/list`, sorted by name; items without a name, and a name listed
/// again, are left out with a warning each.
pub fn read_tools(items: &[Value]) -> (Vec<ToolSpec>, Vec<String>) {
    let mut tools: Vec<ToolSpec> = Vec::new();
    let mut warnings = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let Some(name) = item.get("name").and_then(Value::as_str) else {
            warnings.push(format!(
                "tools/list item #{} has no `name` string: left out",
                index + 1
            ));
            continue;
        };
        if tools.iter().any(|tool| tool.name == name) {
            warnings.push(format!(
                "tool `{name}` is listed twice: its first definition is used"
            ));
            continue;
        }
        tools.push(read_tool(name, item));
    }
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    (tools, warnings)
}

fn read_tool(name: &str, item: &Value) -> ToolSpec {
    let mut problems = Vec::new();
    let description = ["description", "title"]
        .iter()
        .filter_map(|key| item.get(*key).and_then(Value::as_str))
        .map(one_line)
        .find(|text| !text.is_empty());
    if description.is_none() {
        problems.push("the server gives no description: say in the prompt what it is for".into());
    }
    let (required, optional) = match item.get("inputSchema") {
        None | Some(Value::Null) => {
            problems.push(
                "no inputSchema: the MCP spec requires one ({\"type\": \"object\"} for no \
                 arguments), and agents cannot list this server's tools through mcpeval's \
                 proxy until it has one"
                    .into(),
            );
            (Vec::new(), Vec::new())
        }
        Some(Value::Object(schema)) => {
            if schema.get("type").and_then(Value::as_str) != Some("object") {
                problems.push(
                    "its inputSchema is not `\"type\": \"object\"`, as the MCP spec asks".into(),
                );
            }
            arguments(schema)
        }
        Some(_) => {
            problems.push("its inputSchema is not a JSON object".into());
            (Vec::new(), Vec::new())
        }
    };
    ToolSpec {
        name: name.to_owned(),
        description,
        required,
        optional,
        problems,
    }
}

/// The required arguments and the names of the optional ones.
fn arguments(schema: &Map<String, Value>) -> (Vec<Argument>, Vec<String>) {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut required_names: Vec<&str> = Vec::new();
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !required_names.contains(&name) {
            required_names.push(name);
        }
    }
    let required = required_names
        .iter()
        .map(|name| argument(name, properties.get(*name)))
        .collect();
    let optional = properties
        .keys()
        .filter(|name| !required_names.contains(&name.as_str()))
        .cloned()
        .collect();
    (required, optional)
}

fn argument(name: &str, schema: Option<&Value>) -> Argument {
    let (kind, pattern) = describe(schema);
    let pattern = if name.starts_with('$') {
        ArgumentHint::Unchecked(
            "its name starts with `$`, which an arguments pattern reads as an operator".into(),
        )
    } else {
        pattern
    };
    Argument {
        name: name.to_owned(),
        kind,
        pattern,
    }
}

/// What the prompt says about a property, and its pattern.
fn describe(schema: Option<&Value>) -> (String, ArgumentHint) {
    let Some(schema) = schema else {
        return (
            "a value".into(),
            ArgumentHint::Unchecked("required, but not among the schema's properties".into()),
        );
    };
    let values = match (schema.get("enum"), schema.get("const")) {
        (Some(Value::Array(values)), _) if !values.is_empty() => Some(values.clone()),
        (_, Some(value)) => Some(vec![value.clone()]),
        _ => None,
    };
    if let Some(values) = values {
        let texts: Vec<String> = values.iter().map(value_text).collect();
        let alternatives: Vec<String> = texts.iter().map(|t| regex::escape(t)).collect();
        let kind = format!("one of: {}", texts.join(", "));
        return (
            one_line(&kind),
            ArgumentHint::Match(format!("^(?:{})$", alternatives.join("|"))),
        );
    }
    match schema.get("type") {
        Some(Value::String(kind)) if TYPES.contains(&kind.as_str()) => {
            (kind.clone(), ArgumentHint::Type(kind.clone()))
        }
        Some(Value::String(kind)) => (
            "a value".into(),
            ArgumentHint::Unchecked(format!("type {:?} is no JSON Schema type", one_line(kind))),
        ),
        Some(Value::Array(kinds)) => {
            let kinds: Vec<String> = kinds.iter().map(value_text).collect();
            let text = kinds.join(" or ");
            (
                one_line(&text),
                ArgumentHint::Unchecked(format!("type [{}]: no single $type", kinds.join(", "))),
            )
        }
        _ => (
            "a value".into(),
            ArgumentHint::Unchecked("its schema names no `type`".into()),
        ),
    }
}

/// A value as an `arguments` `$match` sees it: a string's text, else compact JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// `text` on one line: control characters and line breaks (YAML's too) as spaces, runs of
/// whitespace as one space, trimmed.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control()
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                )
            {
                ' '
            } else {
                c
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn required_arguments_get_types_and_enum_alternatives() {
        let (tools, warnings) = read_tools(&[json!({
            "name": "pick", "description": "Picks\n  a thing",
            "inputSchema": {"type": "object", "properties": {
                "mode": {"type": "string", "enum": ["fast", "a.b"]},
                "n": {"type": "integer"},
                "opt": {"type": "string"},
                "either": {"type": ["string", "null"]},
                "level": {"enum": [1, 2]}
            }, "required": ["mode", "n", "either", "level", "ghost"]}
        })]);
        assert!(warnings.is_empty());
        let tool = &tools[0];
        assert_eq!(tool.description.as_deref(), Some("Picks a thing"));
        assert!(tool.problems.is_empty(), "{:?}", tool.problems);
        let patterns: Vec<&ArgumentHint> = tool.required.iter().map(|a| &a.pattern).collect();
        assert_eq!(patterns[0], &ArgumentHint::Match(r"^(?:fast|a\.b)$".into()));
        assert_eq!(patterns[1], &ArgumentHint::Type("integer".into()));
        assert!(matches!(patterns[2], ArgumentHint::Unchecked(_)));
        assert_eq!(patterns[3], &ArgumentHint::Match("^(?:1|2)$".into()));
        assert!(matches!(patterns[4], ArgumentHint::Unchecked(_)));
        assert_eq!(tool.optional, ["opt"]);
    }

    #[test]
    fn missing_descriptions_and_schemas_are_problems_not_errors() {
        let (tools, warnings) = read_tools(&[
            json!({"name": "bare"}),
            json!({"description": "no name"}),
            json!({"name": "bare", "description": "again"}),
        ]);
        assert_eq!(tools.len(), 1);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(tools[0].problems.len(), 2, "{:?}", tools[0].problems);
        assert!(tools[0].required.is_empty());
    }

    #[test]
    fn tools_are_sorted_by_name() {
        let (tools, _) = read_tools(&[
            json!({"name": "b", "inputSchema": {"type": "object"}}),
            json!({"name": "a", "inputSchema": {"type": "object"}}),
        ]);
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
    }
}
