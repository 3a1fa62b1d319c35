//! JSON Schema checks with errors a user can act on: every violation with the JSON pointer of
//! the offending value. Used for the arguments of extension steps (against the schema of the
//! operation the extension declares); and for MCP tool schemas (`schema_checks`).
//!
//! Schemas are compiled without network or file resolvers: a `$ref` to another document is
//! an error when the schema compiles, never a download.

use std::fmt;

use boon::{
    CompileError, Compiler, Draft, ErrorKind, SchemaIndex, Schemas, UrlLoader, ValidationError,
};
use serde_json::Value;

/// Where a compiled schema lives in boon's registry. Never fetched: it is added as a resource.
const SCHEMA_URL: &str = "urn:mcpeval:schema";

/// A compiled JSON Schema.
pub struct JsonSchema {
    schemas: Schemas,
    index: SchemaIndex,
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

/// Refuses every document a schema refers to: a `$ref` to another file or URL is an error
/// when the schema compiles (the drafts' meta-schemas are built into boon, never loaded).
struct NoLoader;

impl UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("{url} is another document; mcpeval loads none").into())
    }
}

impl JsonSchema {
    /// Compiles `schema` (its draft from `$schema`, else 2020-12); the error says why it is
    /// not a usable schema, and where in it.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        let mut compiler = Compiler::new();
        compiler.set_default_draft(Draft::V2020_12);
        compiler.use_loader(Box::new(NoLoader));
        let mut schemas = Schemas::new();
        let compiled = match compiler.add_resource(SCHEMA_URL, schema.clone()) {
            Ok(()) => compiler.compile(SCHEMA_URL, &mut schemas),
            Err(error) => Err(error),
        };
        compiled
            .map(|index| JsonSchema { schemas, index })
            .map_err(|error| match error {
                // The schema breaks its draft's meta-schema: where, and the first reason there.
                CompileError::ValidationError { src, .. } => {
                    let mut found = Vec::new();
                    collect(&src, schema, &mut found);
                    found.dedup_by(|later, first| later.path == first.path);
                    let shown: Vec<String> = found.iter().map(ToString::to_string).collect();
                    shown.join("; ")
                }
                other => other.to_string().replace(SCHEMA_URL, "the schema"),
            })
    }

    /// Every violation of the schema by `value`; empty when it conforms.
    pub fn violations(&self, value: &Value) -> Vec<SchemaViolation> {
        let mut found = Vec::new();
        if let Err(error) = self.schemas.validate(value, self.index) {
            collect(&error, value, &mut found);
        }
        found
    }
}

/// The leaves of boon's error tree (a `$ref`, `allOf` or the root groups its causes), one
/// violation each; a `required` with several missing properties is one per property.
fn collect(error: &ValidationError<'_, '_>, value: &Value, found: &mut Vec<SchemaViolation>) {
    if !error.causes.is_empty() {
        for cause in &error.causes {
            collect(cause, value, found);
        }
        return;
    }
    let path = error.instance_location.to_string();
    // The subschema's location (`urn:…#/properties/id`) and the keyword in it (`type`).
    let mut schema_path = match error.schema_url.split_once('#') {
        Some((_, fragment)) => fragment.to_owned(),
        None => String::new(),
    };
    if let Some(keyword) = error.kind.keyword_path() {
        schema_path = format!("{schema_path}/{keyword}");
    }
    let mut push = |message: String| {
        found.push(SchemaViolation {
            path: path.clone(),
            schema_path: schema_path.clone(),
            message,
        })
    };
    match &error.kind {
        ErrorKind::Required { want } => {
            for property in want {
                push(format!("{} is a required property", Value::from(*property)));
            }
        }
        ErrorKind::Type { want, .. } => {
            let want: Vec<String> = want.iter().map(|t| format!("\"{t}\"")).collect();
            let shown = value
                .pointer(&path)
                .map_or_else(String::new, Value::to_string);
            push(format!("{shown} is not of type {}", want.join(" or ")));
        }
        ErrorKind::AdditionalProperties { got } => {
            let names: Vec<String> = got
                .iter()
                .map(|n| Value::from(n.as_ref()).to_string())
                .collect();
            push(format!(
                "additional properties are not allowed ({} unexpected)",
                names.join(", ")
            ));
        }
        kind => push(kind.to_string()),
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
        let invalid =
            JsonSchema::compile(&json!({"properties": {"q": {"type": "strin"}}})).unwrap_err();
        assert!(
            invalid.starts_with("at /properties/q/type: value must be one of"),
            "{invalid}"
        );
        let remote =
            JsonSchema::compile(&json!({"$ref": "https://example.com/s.json"})).unwrap_err();
        assert!(remote.contains("https://example.com/s.json"), "{remote}");
        // Not even a local file is read.
        let file = std::env::temp_dir().join("mcpeval-json-schema-ref.json");
        std::fs::write(&file, r#"{"type": "string"}"#).unwrap();
        let local = json!({"$ref": format!("file://{}", file.display())});
        assert!(JsonSchema::compile(&local).is_err());
    }
}
