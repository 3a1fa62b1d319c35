//! The schema checks over many runs: per tool, how many of its calls sent arguments that
//! break its `inputSchema` (often: the schema is unclear to agents) and how many of its
//! results broke its `outputSchema`; and every distinct broken tool definition.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::report::results::TaskResult;

/// The schema findings of a set of results.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SchemaSummary {
    /// Tools with at least one finding, by `server/tool`.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolSchemaCounts>,
    /// Each distinct broken definition, `server/tool: problem`.
    #[serde(default)]
    pub definitions: BTreeSet<String>,
}

/// One tool's calls and findings over all runs.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolSchemaCounts {
    /// Its calls.
    pub calls: usize,
    /// Calls whose arguments broke its `inputSchema`.
    pub bad_arguments: usize,
    /// Results that broke its `outputSchema` (or lacked `structuredContent`).
    pub bad_results: usize,
}

impl SchemaSummary {
    /// The findings of `results`, counted.
    pub fn of(results: &[TaskResult]) -> Self {
        let mut summary = SchemaSummary::default();
        for result in results {
            let found = &result.schema_violations;
            summary
                .definitions
                .extend(found.definitions.iter().map(|p| p.describe()));
            for finding in &found.arguments {
                summary.tool(&finding.server, &finding.tool).bad_arguments += 1;
            }
            for finding in &found.results {
                summary.tool(&finding.server, &finding.tool).bad_results += 1;
            }
        }
        // Calls are counted only for tools with findings, so the figures read "N of M".
        for result in results {
            for call in &result.call_history.tool_calls {
                let key = format!("{}/{}", call.server_name, call.name);
                if let Some(counts) = summary.tools.get_mut(&key) {
                    counts.calls += 1;
                }
            }
        }
        summary
    }

    /// Nothing found.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.definitions.is_empty()
    }

    fn tool(&mut self, server: &str, tool: &str) -> &mut ToolSchemaCounts {
        self.tools.entry(format!("{server}/{tool}")).or_default()
    }

    /// Lines for the text summary.
    pub fn render(&self) -> Vec<String> {
        let mut lines: Vec<String> = (self.definitions.iter())
            .map(|problem| format!("schema: invalid tool definition {problem}"))
            .collect();
        for (tool, counts) in &self.tools {
            if counts.bad_results > 0 {
                lines.push(format!(
                    "schema: {tool}: {} of {} results broke its outputSchema",
                    counts.bad_results, counts.calls
                ));
            }
            if counts.bad_arguments > 0 {
                lines.push(format!(
                    "schema: {tool}: {} of {} calls sent arguments that break its inputSchema",
                    counts.bad_arguments, counts.calls
                ));
            }
        }
        lines
    }
}
