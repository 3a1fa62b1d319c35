//! What each server advertised to the agent during a run (`surface` of its results file):
//! what surface coverage counts.

use serde::{Deserialize, Serialize};

use crate::trace::{Advertised, ListKind};

/// What one server advertised during a run (or what no test used), by name: tool and
/// prompt names, resource URIs, resource URI templates.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Surface {
    /// Tool names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Resource URIs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// Resource URI templates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_templates: Vec<String>,
    /// Prompt names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<String>,
}

impl Surface {
    /// The names of what a server advertised.
    pub fn of(advertised: &Advertised) -> Self {
        Surface {
            tools: advertised.names(ListKind::Tools),
            resources: advertised.names(ListKind::Resources),
            resource_templates: advertised.names(ListKind::ResourceTemplates),
            prompts: advertised.names(ListKind::Prompts),
        }
    }

    pub(in crate::report) fn names(&self, list: ListKind) -> &[String] {
        match list {
            ListKind::Tools => &self.tools,
            ListKind::Resources => &self.resources,
            ListKind::ResourceTemplates => &self.resource_templates,
            ListKind::Prompts => &self.prompts,
        }
    }

    pub(in crate::report) fn names_mut(&mut self, list: ListKind) -> &mut Vec<String> {
        match list {
            ListKind::Tools => &mut self.tools,
            ListKind::Resources => &mut self.resources,
            ListKind::ResourceTemplates => &mut self.resource_templates,
            ListKind::Prompts => &mut self.prompts,
        }
    }
}

/// The tools one server offered the agent during a run, as it saw them (after a variant's
/// rewrites and decoys): `mcpServers[]` of a results file, as mcpchecker's summary names
/// them, so a reader knows which tool set the run was judged against.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTools {
    /// The server's name in the MCP config.
    pub name: String,
    /// In a report's summary: the variant that saw this tool set, when it differs from the
    /// one the other runs saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Its tools, in the order listed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSummary>,
}

/// One tool as listed: what parameter coverage reads its properties from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSummary {
    /// Its name.
    pub name: String,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its input schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<serde_json::Value>,
}

impl ServerTools {
    /// The tools of each server in `advertised` (servers that listed none left out).
    pub fn of_each<'a>(
        advertised: impl IntoIterator<Item = (&'a String, &'a Advertised)>,
    ) -> Vec<ServerTools> {
        advertised
            .into_iter()
            .filter(|(_, advertised)| !advertised.tools.is_empty())
            .map(|(server, advertised)| ServerTools {
                name: server.clone(),
                variant: None,
                tools: (advertised.tools.iter())
                    .filter_map(|tool| {
                        Some(ToolSummary {
                            name: tool["name"].as_str()?.to_owned(),
                            description: tool["description"].as_str().map(str::to_owned),
                            input_schema: Some(tool["inputSchema"].clone())
                                .filter(|schema| !schema.is_null()),
                        })
                    })
                    .collect(),
            })
            .collect()
    }
}

/// The tool sets `results` were judged against: each server's (the first run's that listed
/// tools), then the first of each variant's that differs from it, named by the variant.
pub fn tool_sets(results: &[super::TaskResult]) -> Vec<ServerTools> {
    let mut sets: Vec<ServerTools> = Vec::new();
    // The (server, variant) pairs already looked at: one comparison each.
    let mut seen: Vec<(&str, Option<&str>)> = Vec::new();
    for result in results {
        for server in &result.mcp_servers {
            let key = (server.name.as_str(), result.variant.as_deref());
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            let first = sets.iter().find(|set| set.name == server.name);
            if first.is_some_and(|set| set.tools == server.tools) {
                continue;
            }
            sets.push(ServerTools {
                variant: first.and(result.variant.clone()),
                ..server.clone()
            });
        }
    }
    sets
}
