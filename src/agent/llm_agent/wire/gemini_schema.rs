//! MCP tool input schemas (JSON Schema) cut to the OpenAPI subset the Gemini API accepts
//! in `functionDeclarations[].parameters`: it refuses the whole request on a key it does
//! not know (`$schema`, `additionalProperties`, `$ref`, …) and on some values it does not
//! support (numeric `enum`s, most `format`s, a list as `type`).
//!
//! What is kept, recursively through `properties`, `items` and `anyOf`: `type`, `format`
//! (`date-time`, `enum`, `int32`, `int64`, `float`, `double` only), `title`, `description`,
//! `nullable`, `enum` (when every value is a string), `required` (only names of listed
//! properties), `properties`, `items`, `anyOf` (`oneOf` becomes `anyOf`), `minItems`,
//! `maxItems`, `minProperties`, `maxProperties`, `minLength`, `maxLength`, `pattern`,
//! `minimum`, `maximum`, `propertyOrdering`. A `type` list becomes its first non-`null`
//! type, with `nullable: true` when `null` was in it; `const` (a string) becomes a
//! one-value `enum`. Everything else is dropped, `$ref`s unresolved (their property is
//! left without a type).

use serde_json::{Map, Value, json};

/// Keys copied as they are.
const KEPT: [&str; 13] = [
    "title",
    "description",
    "nullable",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "propertyOrdering",
];

/// `format`s the API accepts.
const FORMATS: [&str; 6] = ["date-time", "enum", "int32", "int64", "float", "double"];

/// `schema` as the Gemini API accepts it (see the module's documentation); a schema that
/// is not an object becomes `{}`.
pub fn gemini_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(clean(map)),
        _ => json!({}),
    }
}

fn clean(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in schema {
        match key.as_str() {
            "type" => clean_type(value, &mut out),
            "format" if value.as_str().is_some_and(|f| FORMATS.contains(&f)) => {
                out.insert(key.clone(), value.clone());
            }
            "format" => {}
            "properties" => {
                if let Some(properties) = value.as_object() {
                    let cleaned = properties
                        .iter()
                        .map(|(name, property)| (name.clone(), gemini_schema(property)))
                        .collect();
                    out.insert(key.clone(), Value::Object(cleaned));
                }
            }
            "items" if value.is_object() => {
                out.insert(key.clone(), gemini_schema(value));
            }
            "anyOf" | "oneOf" => {
                if let Some(options) = value.as_array() {
                    let cleaned = options.iter().map(gemini_schema).collect();
                    out.insert("anyOf".into(), Value::Array(cleaned));
                }
            }
            "enum" => {
                if let Some(values) = value.as_array().filter(|v| v.iter().all(Value::is_string)) {
                    out.insert(key.clone(), Value::Array(values.clone()));
                }
            }
            "const" if value.is_string() => {
                out.insert("enum".into(), json!([value]));
            }
            "required" => {
                if let Some(names) = value.as_array() {
                    out.insert(key.clone(), Value::Array(names.clone()));
                }
            }
            key if KEPT.contains(&key) => {
                out.insert(key.to_owned(), value.clone());
            }
            _ => {}
        }
    }
    // `required` may only name listed properties.
    let listed: Vec<String> = out
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    if let Some(Value::Array(names)) = out.get_mut("required") {
        names.retain(|name| name.as_str().is_some_and(|n| listed.iter().any(|l| l == n)));
        if names.is_empty() {
            out.remove("required");
        }
    }
    out
}

/// `type`: a string as it is; a list as its first non-`null` type (`nullable` when `null`
/// was there).
fn clean_type(value: &Value, out: &mut Map<String, Value>) {
    match value {
        Value::String(_) => {
            out.insert("type".into(), value.clone());
        }
        Value::Array(types) => {
            let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            if let Some(first) = names.iter().find(|t| **t != "null") {
                out.insert("type".into(), json!(first));
            }
            if names.contains(&"null") {
                out.insert("nullable".into(), json!(true));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_dropped_recursively() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "name": {"type": "string", "format": "uri", "minLength": 1, "default": "x"},
                "when": {"type": "string", "format": "date-time"},
                "tags": {"type": "array", "items": {"type": "string", "examples": ["a"]}},
                "nested": {"type": "object", "properties": {"n": {"type": "integer",
                    "exclusiveMinimum": 0}}, "additionalProperties": {"type": "string"}},
                "ref": {"$ref": "#/$defs/thing"}
            },
            "required": ["name", "gone"],
            "$defs": {"thing": {"type": "string"}}
        });
        assert_eq!(
            gemini_schema(&schema),
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "when": {"type": "string", "format": "date-time"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "nested": {"type": "object", "properties": {"n": {"type": "integer"}}},
                    "ref": {}
                },
                "required": ["name"]
            })
        );
    }

    #[test]
    fn type_lists_consts_enums_and_one_of_are_rewritten() {
        let schema = json!({"type": "object", "properties": {
            "maybe": {"type": ["null", "string"]},
            "fixed": {"const": "on"},
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "either": {"oneOf": [{"type": "string"}, {"type": "number", "$comment": "x"}]}
        }});
        assert_eq!(
            gemini_schema(&schema)["properties"],
            json!({
                "maybe": {"type": "string", "nullable": true},
                "fixed": {"enum": ["on"]},
                "level": {"type": "integer"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "either": {"anyOf": [{"type": "string"}, {"type": "number"}]}
            })
        );
        assert_eq!(gemini_schema(&json!(true)), json!({}));
    }
}
