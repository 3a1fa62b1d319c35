//! Surface coverage: per server, each tool, resource, resource template and prompt it
//! advertised during the runs, how many tests used it, and the share used.
//!
//! A results file names what each server advertised ([`Surface`]); its `callHistory` holds
//! what was used, but for the calls whose answer the proxy injected (a task's `faults`): the
//! server's item did not answer them; and a call answered with `isError` or an error does
//! not cover its item (parameter coverage shows each tool's error share). An item counts a test once however many of its runs
//! used it. A resource template is used by a `resources/read` whose URI matches it
//! ([`template_matches`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::report::results::{CallRecord, Surface, TaskResult};
use crate::trace::ListKind;

/// The lists in the order reports show them.
const LISTS: [ListKind; 4] = [
    ListKind::Tools,
    ListKind::Resources,
    ListKind::ResourceTemplates,
    ListKind::Prompts,
];

/// One server's coverage over a set of results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCoverage {
    /// Items advertised in any run (tools, resources, templates and prompts together).
    pub advertised: usize,
    /// Of those, items at least one test used.
    pub used: usize,
    /// `used / advertised`.
    pub coverage: f64,
    /// Each advertised tool and the number of tests that called it, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, usize>,
    /// Each advertised resource and the number of tests that read it, by URI.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resources: BTreeMap<String, usize>,
    /// Each advertised resource template and the number of tests that read a URI matching
    /// it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_templates: BTreeMap<String, usize>,
    /// Each advertised prompt and the number of tests that got it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prompts: BTreeMap<String, usize>,
    /// The advertised items no test used.
    pub untouched: Surface,
}

impl ServerCoverage {
    fn uses(&self, list: ListKind) -> &BTreeMap<String, usize> {
        match list {
            ListKind::Tools => &self.tools,
            ListKind::Resources => &self.resources,
            ListKind::ResourceTemplates => &self.resource_templates,
            ListKind::Prompts => &self.prompts,
        }
    }

    fn uses_mut(&mut self, list: ListKind) -> &mut BTreeMap<String, usize> {
        match list {
            ListKind::Tools => &mut self.tools,
            ListKind::Resources => &mut self.resources,
            ListKind::ResourceTemplates => &mut self.resource_templates,
            ListKind::Prompts => &mut self.prompts,
        }
    }

    /// Text lines for a terminal: the figures, then each list's items with their test
    /// counts, then the untouched items.
    pub fn render(&self, server: &str) -> Vec<String> {
        let mut lines = vec![format!(
            "coverage of {server}: {} of {} advertised items used ({:.1}%)",
            self.used,
            self.advertised,
            self.coverage * 100.0
        )];
        let mut untouched = Vec::new();
        for list in LISTS {
            let uses = self.uses(list);
            if uses.is_empty() {
                continue;
            }
            let items: Vec<String> = uses
                .iter()
                .map(|(name, tests)| match tests {
                    1 => format!("{name} (1 test)"),
                    n => format!("{name} ({n} tests)"),
                })
                .collect();
            lines.push(format!("  {}: {}", label(list, true), items.join(", ")));
            let names = self.untouched.names(list);
            untouched.extend(
                names
                    .iter()
                    .map(|name| format!("{} {name}", label(list, false))),
            );
        }
        if !untouched.is_empty() {
            lines.push(format!("  untouched: {}", untouched.join(", ")));
        }
        lines
    }
}

fn label(list: ListKind, plural: bool) -> &'static str {
    match (list, plural) {
        (ListKind::Tools, true) => "tools",
        (ListKind::Tools, false) => "tool",
        (ListKind::Resources, true) => "resources",
        (ListKind::Resources, false) => "resource",
        (ListKind::ResourceTemplates, true) => "resource templates",
        (ListKind::ResourceTemplates, false) => "resource template",
        (ListKind::Prompts, true) => "prompts",
        (ListKind::Prompts, false) => "prompt",
    }
}

/// The coverage of every server that advertised something in `results`, by server name.
pub fn coverage(results: &[TaskResult]) -> BTreeMap<String, ServerCoverage> {
    // server → list → item → the tests that used it
    type Users<'a> = BTreeMap<&'a str, BTreeMap<ListKind, BTreeMap<&'a str, BTreeSet<&'a str>>>>;
    let mut users: Users = BTreeMap::new();
    for result in results {
        for (server, surface) in &result.surface {
            let lists = users.entry(server).or_default();
            for list in LISTS {
                let items = lists.entry(list).or_default();
                for name in surface.names(list) {
                    items.entry(name).or_default();
                }
            }
        }
    }
    for result in results {
        let test = result.test_name.as_str();
        let history = &result.call_history;
        let calls = [
            (ListKind::Tools, &history.tool_calls),
            (ListKind::Resources, &history.resource_reads),
            (ListKind::Prompts, &history.prompt_gets),
        ];
        for (list, records) in calls {
            // A call whose answer the proxy injected (a task's `faults`) did not use the
            // server's item, nor did one it answered with `isError` or an error: an item is
            // covered by a call that succeeded.
            let served = records
                .iter()
                .filter(|record| record.outcome == "ok" && !record.answer_injected());
            for CallRecord {
                server_name, name, ..
            } in served
            {
                let Some(lists) = users.get_mut(server_name.as_str()) else {
                    continue;
                };
                if let Some(tests) = lists.entry(list).or_default().get_mut(name.as_str()) {
                    tests.insert(test);
                }
                if list == ListKind::Resources {
                    let templates = lists.entry(ListKind::ResourceTemplates).or_default();
                    for (template, tests) in templates.iter_mut() {
                        if template_matches(template, name) {
                            tests.insert(test);
                        }
                    }
                }
            }
        }
    }
    users
        .into_iter()
        .filter_map(|(server, lists)| {
            let mut coverage = ServerCoverage::default();
            for (list, items) in lists {
                for (name, tests) in items {
                    coverage.advertised += 1;
                    coverage.used += usize::from(!tests.is_empty());
                    if tests.is_empty() {
                        coverage.untouched.names_mut(list).push(name.to_owned());
                    }
                    coverage.uses_mut(list).insert(name.to_owned(), tests.len());
                }
            }
            if coverage.advertised == 0 {
                return None;
            }
            coverage.coverage = coverage.used as f64 / coverage.advertised as f64;
            Some((server.to_owned(), coverage))
        })
        .collect()
}

/// A URI matches an RFC 6570 URI template: the literal parts match exactly; a `{+var}`,
/// `{#var}`, `{?var}` or `{&var}` expression matches any text, any other expression one or
/// more characters other than `/`, `?` and `#`. An unclosed `{` is literal.
pub fn template_matches(template: &str, uri: &str) -> bool {
    match template.find('{') {
        None => template == uri,
        Some(open) => {
            let Some(close) = template[open..].find('}').map(|c| open + c) else {
                return template == uri;
            };
            let (literal, rest) = (&template[..open], &template[close + 1..]);
            let Some(uri) = uri.strip_prefix(literal) else {
                return false;
            };
            let anything = matches!(
                template[open + 1..].chars().next(),
                Some('+' | '#' | '?' | '&')
            );
            // Try every length the expression could take, shortest first.
            let mut ends = vec![0];
            ends.extend(uri.char_indices().map(|(i, c)| i + c.len_utf8()));
            ends.into_iter()
                .take_while(|&end| anything || !uri[..end].contains(['/', '?', '#']))
                .filter(|&end| anything || end > 0)
                .any(|end| template_matches(rest, &uri[end..]))
        }
    }
}

#[cfg(test)]
#[path = "coverage_tests.rs"]
mod tests;
