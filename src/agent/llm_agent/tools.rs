//! MCP tools as the model's functions and back: function names, parameter schemas, tool
//! arguments, and tool results as text (the same for every provider).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value, json};

/// One MCP tool offered to the model as a function.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedTool {
    /// The function name the model sees.
    pub function: String,
    /// The proxied server's name.
    pub server: String,
    /// The index of that server in the agent's server list.
    pub server_index: usize,
    /// The tool's name on that server.
    pub tool: String,
    /// The tool's description.
    pub description: Option<String>,
    /// The tool's input schema, as an object schema.
    pub parameters: Value,
}

/// The function names for `(server, tool)` pairs, in the same order: the tool name, or
/// `<server>__<tool>` when more than one server has that tool; then made to match
/// `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$` (every provider's rule) and kept unique (`_2`, `_3`, …
/// on a clash after sanitising).
pub fn function_names(tools: &[(String, String)]) -> Vec<String> {
    let mut servers_of: HashMap<&str, HashSet<&str>> = HashMap::new();
    for (server, tool) in tools {
        servers_of.entry(tool).or_default().insert(server);
    }
    let mut taken = HashSet::new();
    let mut names = Vec::with_capacity(tools.len());
    for (server, tool) in tools {
        let wanted = if servers_of.get(tool.as_str()).map_or(0, HashSet::len) > 1 {
            format!("{server}__{tool}")
        } else {
            tool.clone()
        };
        // Gemini wants a letter or `_` first; the other APIs take that too.
        let wanted = if wanted.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            format!("_{wanted}")
        } else {
            wanted
        };
        let base = sanitize(&wanted, 64);
        let mut name = base.clone();
        let mut counter = 2;
        while taken.contains(&name) {
            let suffix = format!("_{counter}");
            name = format!("{}{suffix}", sanitize(&base, 64 - suffix.len()));
            counter += 1;
        }
        taken.insert(name.clone());
        names.push(name);
    }
    names
}

/// `text` with every character outside `[a-zA-Z0-9_-]` replaced by `_`, cut to `max`
/// characters; `tool` when nothing is left.
fn sanitize(text: &str, max: usize) -> String {
    let clean: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(max)
        .collect();
    if clean.is_empty() {
        "tool".to_owned()
    } else {
        clean
    }
}

/// A tool's input schema as an object schema with `"type": "object"` and `properties`.
pub fn object_schema(schema: Option<&Value>) -> Value {
    let mut object = match schema {
        Some(Value::Object(object)) => object.clone(),
        _ => Map::new(),
    };
    object.insert("type".into(), json!("object"));
    if !object.get("properties").is_some_and(Value::is_object) {
        object.insert("properties".into(), json!({}));
    }
    Value::Object(object)
}

/// The text fed back to the model for a `tools/call` result ([`crate::trace::result_text`]),
/// prefixed with `Error: ` for an `isError` result.
pub fn result_text(result: &Value) -> String {
    let text = crate::trace::result_text(result);
    if result["isError"].as_bool() == Some(true) {
        format!("Error: {text}")
    } else {
        text
    }
}

/// A tool call's `arguments`: a JSON string or an object; empty, absent or `null` is `{}`.
pub fn parse_arguments(arguments: &Value) -> Result<Map<String, Value>, String> {
    let parsed = match arguments {
        Value::String(text) if text.trim().is_empty() => return Ok(Map::new()),
        Value::String(text) => serde_json::from_str::<Value>(text)
            .map_err(|e| format!("the arguments are not valid JSON ({e}): {text}"))?,
        other => other.clone(),
    };
    match parsed {
        Value::Object(object) => Ok(object),
        Value::Null => Ok(Map::new()),
        other => Err(format!("the arguments must be a JSON object, not {other}")),
    }
}

/// Offered tools by function name.
pub fn by_function(tools: &[OfferedTool]) -> BTreeMap<&str, &OfferedTool> {
    tools.iter().map(|t| (t.function.as_str(), t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(s, t)| (s.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn names_are_prefixed_only_when_servers_share_a_tool() {
        let names = function_names(&pairs(&[
            ("alpha", "echo"),
            ("alpha", "add"),
            ("beta", "echo"),
            ("beta", "sub"),
        ]));
        assert_eq!(names, ["alpha__echo", "add", "beta__echo", "sub"]);
    }

    #[test]
    fn names_are_sanitised_cut_to_64_and_kept_unique() {
        let long = "x".repeat(80);
        let names = function_names(&pairs(&[
            ("s", "get.file"),
            ("s", "get file"),
            ("s", &long),
            ("s", ""),
            ("s", "ünï"),
            ("s", "3d-print"),
        ]));
        assert_eq!(names[0], "get_file");
        assert_eq!(names[1], "get_file_2");
        assert_eq!(names[2], "x".repeat(64));
        assert_eq!(names[3], "tool");
        assert_eq!(names[4], "_n_");
        assert_eq!(names[5], "_3d-print");
        let pattern = regex::Regex::new("^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$").unwrap();
        assert!(names.iter().all(|n| pattern.is_match(n)), "{names:?}");
    }

    #[test]
    fn schemas_become_object_schemas() {
        assert_eq!(
            object_schema(None),
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(
            object_schema(Some(&json!({"properties": {"a": {"type": "string"}}}))),
            json!({"properties": {"a": {"type": "string"}}, "type": "object"})
        );
        assert_eq!(
            object_schema(Some(&json!({"type": "object", "required": []}))),
            json!({"type": "object", "required": [], "properties": {}})
        );
    }

    #[test]
    fn results_become_text() {
        let ok = json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]});
        assert_eq!(result_text(&ok), "a\nb");
        let failed = json!({"content": [{"type": "text", "text": "boom"}], "isError": true});
        assert_eq!(result_text(&failed), "Error: boom");
        let structured = json!({"content": [], "structuredContent": {"n": 1}});
        assert_eq!(result_text(&structured), r#"{"n":1}"#);
    }

    #[test]
    fn arguments_may_be_a_string_or_an_object() {
        let from_string = parse_arguments(&json!(r#"{"text": "hi"}"#)).unwrap();
        let from_object = parse_arguments(&json!({"text": "hi"})).unwrap();
        assert_eq!(from_string, from_object);
        assert!(parse_arguments(&json!("")).unwrap().is_empty());
        assert!(parse_arguments(&Value::Null).unwrap().is_empty());
        assert!(
            parse_arguments(&json!("{not json"))
                .unwrap_err()
                .contains("not valid JSON")
        );
        assert!(
            parse_arguments(&json!("[1]"))
                .unwrap_err()
                .contains("object")
        );
    }
}
