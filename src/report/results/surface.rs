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
