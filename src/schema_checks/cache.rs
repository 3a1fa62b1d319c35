//! Work done once per process rather than once per run: compiling a schema and judging a
//! server's tool definitions. Every task of an eval sees the same definitions, so the second
//! task onwards only looks them up.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::DefinitionProblem;
use super::definitions::judge_definitions;
use crate::plumbing::json_schema::JsonSchema;
use crate::plumbing::lock::lock;

/// A schema as compiled, or why it does not compile.
pub type Compiled = Arc<Result<JsonSchema, String>>;

/// Compiled schemas by their JSON text, and definition problems by the server and the tool
/// list's JSON text. Shared by every run of the process (`RunOptions::schemas`).
#[derive(Debug, Default)]
pub struct SchemaCache {
    schemas: Mutex<HashMap<String, Compiled>>,
    definitions: Mutex<HashMap<(String, String), Vec<DefinitionProblem>>>,
}

impl SchemaCache {
    /// `schema` compiled (draft from its `$schema`, else 2020-12 as MCP specifies).
    pub fn compiled(&self, schema: &Value) -> Compiled {
        let key = schema.to_string();
        if let Some(known) = lock(&self.schemas).get(&key) {
            return known.clone();
        }
        // Compiled outside the lock: another run may compile the same schema meanwhile,
        // which costs time, never correctness.
        let compiled = Arc::new(JsonSchema::compile(schema));
        lock(&self.schemas).entry(key).or_insert(compiled).clone()
    }

    /// What is wrong with the tools `server` advertised (judged once per distinct list).
    pub fn definition_problems(&self, server: &str, tools: &[Value]) -> Vec<DefinitionProblem> {
        let key = (server.to_owned(), Value::from(tools.to_vec()).to_string());
        if let Some(known) = lock(&self.definitions).get(&key) {
            return known.clone();
        }
        let compile_error = |schema: &Value| self.compiled(schema).as_ref().as_ref().err().cloned();
        let problems = judge_definitions(server, tools, &compile_error);
        lock(&self.definitions)
            .entry(key)
            .or_insert(problems)
            .clone()
    }
}
