//! What a proxy changes in the tool definitions the agent sees (a variant's
//! `toolOverrides` and `decoys`): the `tools/list` answers rewritten on the way to the agent,
//! and calls of a decoy answered by the proxy itself with an error result. Calls of real
//! tools go to the server unchanged, so a rewrite costs nothing per call.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use rmcp::model::{CallToolResult, ListToolsResult, Tool};
use serde_json::{Map, Value};

use crate::plumbing::lock::lock;

/// What one tool's definition becomes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolPatch {
    /// A new `title`.
    pub title: Option<String>,
    /// A new `description`.
    pub description: Option<String>,
    /// New `description`s of input-schema properties, by property.
    pub properties: BTreeMap<String, String>,
}

/// The rewrite of one server's tools: patches by tool name, and decoys (whole tool
/// definitions as JSON) added to the last page of each `tools/list` answer.
#[derive(Debug, Clone, Default)]
pub struct ToolRewrite {
    /// Patches by tool name.
    pub patches: BTreeMap<String, ToolPatch>,
    /// Decoy definitions (`name`, `description`, `inputSchema`).
    pub decoys: Vec<Map<String, Value>>,
}

/// What the rewrites of one server did during a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RewriteNotes {
    /// Patched tools that a `tools/list` answer the agent received held.
    pub patched: BTreeSet<String>,
    /// Patched input-schema properties the tool's schema does not have, as
    /// `<tool>.<property>`.
    pub missing_properties: BTreeSet<String>,
    /// Tools the server advertised, by name (every page the agent asked for).
    pub advertised: BTreeSet<String>,
    /// Decoys the server advertises a tool of the same name as (not added: the name is
    /// the server's).
    pub decoy_conflicts: BTreeSet<String>,
    /// Decoys the agent was shown.
    pub decoys_shown: BTreeSet<String>,
}

/// The message of a decoy's error result.
pub const DECOY_ANSWER: &str = "This tool is not available.";

impl ToolRewrite {
    /// It changes nothing.
    pub fn is_empty(&self) -> bool {
        self.patches.is_empty() && self.decoys.is_empty()
    }

    fn decoy_name(decoy: &Map<String, Value>) -> &str {
        decoy.get("name").and_then(Value::as_str).unwrap_or("")
    }

    /// Whether `name` is a decoy the proxy answers (not one the server has a tool of). The
    /// notes are locked only for a decoy's name: other calls pay a look-up of the names.
    pub(crate) fn answers(&self, name: &str, notes: &Mutex<RewriteNotes>) -> bool {
        (self.decoys.iter()).any(|decoy| Self::decoy_name(decoy) == name)
            && !lock(notes).decoy_conflicts.contains(name)
    }

    /// The error result a decoy call gets.
    pub(crate) fn decoy_result() -> Value {
        serde_json::json!({
            "content": [{ "type": "text", "text": DECOY_ANSWER }],
            "isError": true,
        })
    }

    /// [`decoy_result`](Self::decoy_result) as rmcp's type.
    pub(crate) fn decoy_call_result() -> Option<CallToolResult> {
        serde_json::from_value(Self::decoy_result()).ok()
    }

    /// Rewrites one page of a `tools/list` answer: patches applied; on the last page, the
    /// decoys whose names the server does not use appended.
    pub(crate) fn apply(&self, page: &mut ListToolsResult, notes: &mut RewriteNotes) {
        for tool in &mut page.tools {
            notes.advertised.insert(tool.name.to_string());
            if (self.decoys.iter()).any(|decoy| Self::decoy_name(decoy) == tool.name) {
                notes.decoy_conflicts.insert(tool.name.to_string());
            }
            if let Some(patch) = self.patches.get(tool.name.as_ref()) {
                patch_tool(tool, patch, notes);
                notes.patched.insert(tool.name.to_string());
            }
        }
        if page.next_cursor.is_some() {
            return;
        }
        for decoy in &self.decoys {
            let name = Self::decoy_name(decoy);
            if notes.decoy_conflicts.contains(name) {
                continue;
            }
            match serde_json::from_value::<Tool>(Value::Object(decoy.clone())) {
                Ok(tool) => {
                    notes.decoys_shown.insert(name.to_owned());
                    page.tools.push(tool);
                }
                // The config checked the shape; a schema rmcp will not hold is left out.
                Err(_) => continue,
            }
        }
    }
}

fn patch_tool(tool: &mut Tool, patch: &ToolPatch, notes: &mut RewriteNotes) {
    if let Some(title) = &patch.title {
        tool.title = Some(title.clone());
    }
    if let Some(description) = &patch.description {
        tool.description = Some(description.clone().into());
    }
    if patch.properties.is_empty() {
        return;
    }
    let schema = Arc::make_mut(&mut tool.input_schema);
    let mut properties = schema.get_mut("properties").and_then(Value::as_object_mut);
    for (property, description) in &patch.properties {
        let definition = match properties {
            Some(ref mut properties) => properties.get_mut(property),
            None => None,
        };
        match definition.and_then(Value::as_object_mut) {
            Some(definition) => {
                definition.insert("description".into(), description.clone().into());
            }
            None => {
                notes
                    .missing_properties
                    .insert(format!("{}.{property}", tool.name));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(tools: Value, next: Option<&str>) -> ListToolsResult {
        let mut value = json!({ "tools": tools });
        if let Some(next) = next {
            value["nextCursor"] = next.into();
        }
        serde_json::from_value(value).unwrap()
    }

    fn rewrite() -> ToolRewrite {
        ToolRewrite {
            patches: BTreeMap::from([(
                "add".to_owned(),
                ToolPatch {
                    title: Some("Adder".into()),
                    description: Some("Sums two numbers".into()),
                    properties: BTreeMap::from([
                        ("a".to_owned(), "the first".to_owned()),
                        ("z".to_owned(), "not there".to_owned()),
                    ]),
                },
            )]),
            decoys: vec![
                json!({"name": "sum", "description": "Adds", "inputSchema": {"type": "object"}})
                    .as_object()
                    .unwrap()
                    .clone(),
                json!({"name": "echo", "inputSchema": {"type": "object"}})
                    .as_object()
                    .unwrap()
                    .clone(),
            ],
        }
    }

    #[test]
    fn patches_every_page_and_adds_decoys_to_the_last() {
        let rewrite = rewrite();
        let mut notes = RewriteNotes::default();
        let schema = json!({"type": "object", "properties": {"a": {"type": "number"}}});
        let mut first = page(
            json!([{"name": "add", "description": "old", "inputSchema": schema}]),
            Some("2"),
        );
        rewrite.apply(&mut first, &mut notes);
        let add = serde_json::to_value(&first.tools[0]).unwrap();
        assert_eq!(add["description"], "Sums two numbers");
        assert_eq!(add["title"], "Adder");
        assert_eq!(
            add["inputSchema"]["properties"]["a"]["description"],
            "the first"
        );
        assert_eq!(first.tools.len(), 1, "no decoy before the last page");

        let mut last = page(
            json!([{"name": "echo", "inputSchema": {"type": "object"}}]),
            None,
        );
        rewrite.apply(&mut last, &mut notes);
        let names: Vec<&str> = last.tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(
            names,
            ["echo", "sum"],
            "a decoy named as a real tool is left out"
        );
        assert!(notes.decoy_conflicts.contains("echo"));
        assert!(notes.missing_properties.contains("add.z"));
        assert!(notes.patched.contains("add"));
        let notes = Mutex::new(notes);
        assert!(rewrite.answers("sum", &notes));
        assert!(
            !rewrite.answers("echo", &notes),
            "the server's own echo is called"
        );
        assert!(!rewrite.answers("add", &notes));
    }
}
