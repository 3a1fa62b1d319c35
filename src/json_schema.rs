//! JSON Schema checks with errors a user can act on: every violation with the JSON pointer of
//! the offending value. Used for the arguments of extension steps (against the schema of the
//! operation the extension declares); and for MCP tool schemas (`schema_checks`).
//!
//! Schemas are compiled without network or file resolvers: a `$ref` to another document is
//! an error when the schema compiles, never a download.

use std::fmt;

use serde_json::Value;

/// A compiled JSON Schema.
pub struct JsonSchema {
    validator: jsonschema::Validator,
}

impl fmt::Debug for JsonSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonSchema").finish_non_exhaustive()
    }
}

/// One way a value breaks a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaViolation {
    /// JSON pointer of the offending value (`/metadata/name`); empty for the value itself.
    pub path: String,
    /// JSON pointer of the schema keyword it breaks (`/properties/name/type`).
    pub schema_path: String,
    /// What is wrong, e.g. `"name" is a required property`.
    pub message: String,
}

impl fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "at {}: {}", self.path, self.message)
        }
    }
}

impl JsonSchema {
    /// Compiles `schema` (its draft from `$schema`, else 2020-12); the error says why it is
    /// not a usable schema, and where in it.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        jsonschema::validator_for(schema)
            .map(|validator| JsonSchema { validator })
            .map_err(|error| match error.instance_path().as_str() {
                "" => error.to_string(),
                path => format!("at {path}: {error}"),
            })
    }

    /// Every violation of the schema by `value`; empty when it conforms.
    pub fn violations(&self, value: &Value) -> Vec<SchemaViolation> {
        self.validator
            .iter_errors(value)
            .map(|error| SchemaViolation {
                path: error.instance_path().as_str().to_owned(),
                schema_path: error.schema_path().as_str().to_owned(),
                message: error.to_string(),
            })
            .collect()
    }
}

/// The violations as one line each, indented for a failure message.
pub fn describe_violations(violations: &[SchemaViolation]) -> String {
    violations
        .iter()
        .map(|v| format!("  {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> JsonSchema {
        JsonSchema::compile(&json!({
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "meta": {"type": "object", "properties": {"n": {"type": "integer"}}}
            },
            "required": ["text"],
            "additionalProperties": false
        }))
        .unwrap()
    }

    #[test]
    fn a_conforming_value_has_no_violation() {
        assert!(schema().violations(&json!({"text": "hi"})).is_empty());
    }

    #[test]
    fn every_violation_is_reported_with_its_path() {
        let found = schema().violations(&json!({"meta": {"n": "x"}, "txt": 1}));
        let shown: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert!(
            shown
                .iter()
                .any(|s| s.contains("\"text\" is a required property")),
            "{shown:?}"
        );
        assert!(
            shown
                .iter()
                .any(|s| s.starts_with("at /meta/n:") && s.contains("integer")),
            "{shown:?}"
        );
        assert!(shown.iter().any(|s| s.contains("txt")), "{shown:?}");
    }

    #[test]
    fn an_invalid_schema_or_a_remote_ref_does_not_compile() {
        assert!(JsonSchema::compile(&json!({"type": "no-such-type"})).is_err());
        assert!(JsonSchema::compile(&json!({"$ref": "https://example.com/s.json"})).is_err());
    }
}
