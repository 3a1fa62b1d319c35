//! What each server advertised to the agent: the items of its `tools/list`,
//! `resources/list`, `resources/templates/list` and `prompts/list` answers, every page.
//!
//! Kept whole (schemas, descriptions and all) so that later checks can read the definitions
//! the agent was shown; coverage reads only their keys ([`ListKind::key`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ListKind;

/// The items one server advertised during a run, per list, in the order first seen. An
/// item listed again (another page, a repeated list) keeps its place and takes the latest
/// definition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Advertised {
    /// `tools/list` items (`name`, `description`, `inputSchema`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
    /// `resources/list` items (`uri`, `name`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<Value>,
    /// `resources/templates/list` items (`uriTemplate`, `name`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_templates: Vec<Value>,
    /// `prompts/list` items (`name`, `arguments`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<Value>,
}

impl ListKind {
    /// The field that names an item of this list: `name`, `uri` or `uriTemplate`.
    pub fn key(self) -> &'static str {
        match self {
            ListKind::Tools | ListKind::Prompts => "name",
            ListKind::Resources => "uri",
            ListKind::ResourceTemplates => "uriTemplate",
        }
    }
}

impl Advertised {
    /// The items of one list.
    pub fn items(&self, list: ListKind) -> &[Value] {
        match list {
            ListKind::Tools => &self.tools,
            ListKind::Resources => &self.resources,
            ListKind::ResourceTemplates => &self.resource_templates,
            ListKind::Prompts => &self.prompts,
        }
    }

    /// The names (URIs, URI templates) of one list's items, in order.
    pub fn names(&self, list: ListKind) -> Vec<String> {
        let key = list.key();
        self.items(list)
            .iter()
            .filter_map(|item| item[key].as_str().map(str::to_owned))
            .collect()
    }

    /// Nothing advertised.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
            && self.resources.is_empty()
            && self.resource_templates.is_empty()
            && self.prompts.is_empty()
    }

    /// Adds the items of one page: a new item at the end, a known one (same key) replaced
    /// in place. Items without a string key are kept as they come.
    pub fn add(&mut self, list: ListKind, page: Vec<Value>) {
        let key = list.key();
        let items = match list {
            ListKind::Tools => &mut self.tools,
            ListKind::Resources => &mut self.resources,
            ListKind::ResourceTemplates => &mut self.resource_templates,
            ListKind::Prompts => &mut self.prompts,
        };
        for item in page {
            let known = item[key]
                .as_str()
                .and_then(|name| items.iter().position(|old| old[key].as_str() == Some(name)));
            match known {
                Some(index) => items[index] = item,
                None => items.push(item),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pages_add_up_and_a_relisted_item_takes_its_latest_definition() {
        let mut advertised = Advertised::default();
        advertised.add(
            ListKind::Tools,
            vec![
                json!({"name": "a", "description": "old"}),
                json!({"name": "b"}),
            ],
        );
        advertised.add(ListKind::Tools, vec![json!({"name": "c"})]);
        advertised.add(
            ListKind::Tools,
            vec![json!({"name": "a", "description": "new"})],
        );
        advertised.add(
            ListKind::ResourceTemplates,
            vec![json!({"uriTemplate": "x://{id}"})],
        );
        assert_eq!(advertised.names(ListKind::Tools), ["a", "b", "c"]);
        assert_eq!(advertised.tools[0]["description"], "new");
        assert_eq!(advertised.names(ListKind::ResourceTemplates), ["x://{id}"]);
        assert!(advertised.resources.is_empty());
    }
}
