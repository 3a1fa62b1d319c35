//! Faults on purpose: which request of a run a `faults` rule hits ([`FaultPlan`], shared
//! by the proxies of one run), and the tool lists that `toolsChanged` rules changed.

use std::collections::BTreeMap;
use std::sync::Mutex;

use rmcp::model::{ListToolsResult, Tool};
use serde_json::{Map, Value};

use crate::fault::{FaultAction, FaultRule};
use crate::plumbing::lock::lock;
use crate::trace::{FaultKind, Injected};

/// How long a request waits before the proxy forwards it (a `delay` rule), once the call
/// is recorded as received: the delay is part of its recorded duration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Delayed(pub(crate) std::time::Duration);

/// The `faults` rules of one run and what they did so far. Every proxy of the run holds
/// it: a rule's calls are counted across servers and sessions.
#[derive(Debug)]
pub struct FaultPlan {
    rules: Vec<FaultRule>,
    seed: u64,
    test: String,
    state: Mutex<PlanState>,
}

#[derive(Debug, Default)]
struct PlanState {
    /// Per rule: the calls it matched, the faults it injected.
    counts: Vec<(u32, u32)>,
    /// Per server: the tool list's changes so far.
    changed: BTreeMap<String, ChangedTools>,
}

/// A server's tool list after `toolsChanged` rules: definitions added (or replaced) and
/// names removed (each with the rule that removed it).
#[derive(Debug, Default, Clone)]
struct ChangedTools {
    added: Vec<Map<String, Value>>,
    removed: BTreeMap<String, String>,
    /// The rule that changed the list last.
    last_rule: String,
}

/// What one rule did in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleNote {
    /// The rule's key path.
    pub rule: String,
    /// The calls it matched (where), hit or not.
    pub matched: u32,
    /// The faults it injected.
    pub injected: u32,
}

impl FaultPlan {
    /// The plan of `rules` for the test named `test`, drawing with `seed`.
    pub fn new(rules: Vec<FaultRule>, seed: u64, test: &str) -> Self {
        let counts = vec![(0, 0); rules.len()];
        FaultPlan {
            rules,
            seed,
            test: test.to_owned(),
            state: Mutex::new(PlanState {
                counts,
                changed: BTreeMap::new(),
            }),
        }
    }

    /// The rules, in order.
    pub fn rules(&self) -> &[FaultRule] {
        &self.rules
    }

    /// The seed its `probability` rules draw with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// What each rule did so far, in rule order.
    pub fn notes(&self) -> Vec<RuleNote> {
        let state = lock(&self.state);
        (self.rules.iter().zip(&state.counts))
            .map(|(rule, (matched, injected))| RuleNote {
                rule: rule.key_path.clone(),
                matched: *matched,
                injected: *injected,
            })
            .collect()
    }

    /// Counts a request of `method` (a tool call's tool `name`) to `server` for every rule
    /// it matches; the first rule that hits it, if any.
    pub(crate) fn hit(&self, server: &str, method: &str, name: Option<&str>) -> Option<&FaultRule> {
        let mut state = lock(&self.state);
        let mut chosen = None;
        for (i, rule) in self.rules.iter().enumerate() {
            if !rule.matches(server, method, name) {
                continue;
            }
            let counts = &mut state.counts[i];
            counts.0 += 1;
            if chosen.is_none() && rule.fires(counts.0, self.seed, &self.test) {
                counts.1 += 1;
                chosen = Some(rule);
            }
        }
        chosen
    }

    /// Whether a `toolsChanged` rule may hit `server`: its proxy then declares
    /// `tools.listChanged`.
    pub(crate) fn changes_tools(&self, server: &str) -> bool {
        self.rules.iter().any(|rule| {
            matches!(rule.action, FaultAction::ToolsChanged(_))
                && rule.server.as_deref().is_none_or(|s| s == server)
        })
    }

    /// Whether a rule on `elicitation/create` may hit `server`: its proxy then declares
    /// that the user can be asked.
    pub(crate) fn answers_user(&self, server: &str) -> bool {
        self.rules
            .iter()
            .any(|rule| rule.matches(server, crate::fault::ELICITATION, None))
    }

    /// Applies `rule`'s tool-list change to `server`.
    pub(crate) fn change_tools(&self, server: &str, rule: &FaultRule) {
        let FaultAction::ToolsChanged(change) = &rule.action else {
            return;
        };
        let mut state = lock(&self.state);
        let tools = state.changed.entry(server.to_owned()).or_default();
        tools.last_rule.clone_from(&rule.key_path);
        for name in &change.remove {
            tools.removed.insert(name.clone(), rule.key_path.clone());
            tools.added.retain(|tool| tool_name(tool) != name);
        }
        for tool in &change.add {
            let name = tool_name(tool);
            tools.removed.remove(name);
            tools.added.retain(|known| tool_name(known) != name);
            tools.added.push(tool.clone());
        }
    }

    /// The rule that removed `tool` of `server`, if one did: its calls are then answered
    /// "unknown tool".
    pub(crate) fn removed(&self, server: &str, tool: &str) -> Option<Injected> {
        let state = lock(&self.state);
        let rule = state.changed.get(server)?.removed.get(tool)?;
        Some(Injected {
            fault: FaultKind::RemovedTool,
            rule: rule.clone(),
        })
    }

    /// Changes one page of `server`'s `tools/list` answer as its `toolsChanged` rules say:
    /// removed tools left out, added ones put in place of a tool of their name or appended
    /// to the last page. The rule that changed it last, if any did.
    pub(crate) fn change_page(&self, server: &str, page: &mut ListToolsResult) -> Option<Injected> {
        let state = lock(&self.state);
        let tools = state.changed.get(server)?;
        let last = page.next_cursor.is_none();
        page.tools
            .retain(|tool| !tools.removed.contains_key(tool.name.as_ref()));
        for definition in &tools.added {
            let Ok(tool) = serde_json::from_value::<Tool>(Value::Object(definition.clone())) else {
                continue;
            };
            match page.tools.iter_mut().find(|known| known.name == tool.name) {
                Some(known) => *known = tool,
                None if last => page.tools.push(tool),
                None => {}
            }
        }
        Some(Injected {
            fault: FaultKind::ToolsChanged,
            rule: tools.last_rule.clone(),
        })
    }
}

fn tool_name(tool: &Map<String, Value>) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{FaultTarget, FaultWhen, ToolsChange};
    use serde_json::json;

    fn rule(key: &str, target: FaultTarget, when: FaultWhen, action: FaultAction) -> FaultRule {
        FaultRule {
            key_path: key.into(),
            server: Some("demo".into()),
            target,
            when,
            action,
        }
    }

    #[test]
    fn every_matching_rule_counts_and_the_first_that_fires_hits() {
        let add = || FaultTarget::Tool("add".into());
        let plan = FaultPlan::new(
            vec![
                rule("r[0]", add(), FaultWhen::Call(2), FaultAction::Timeout),
                rule("r[1]", add(), FaultWhen::Every, FaultAction::Malformed),
                rule(
                    "r[2]",
                    FaultTarget::Tool("nope".into()),
                    FaultWhen::Every,
                    FaultAction::Timeout,
                ),
            ],
            0,
            "t",
        );
        let hits: Vec<&str> = (0..3)
            .map(|_| {
                plan.hit("demo", "tools/call", Some("add"))
                    .map_or("-", |r| &r.key_path)
            })
            .map(|key| if key == "-" { "-" } else { &key[..4] })
            .collect();
        assert_eq!(hits, ["r[1]", "r[0]", "r[1]"]);
        assert!(plan.hit("other", "tools/call", Some("add")).is_none());
        let notes = plan.notes();
        assert_eq!((notes[0].matched, notes[0].injected), (3, 1));
        assert_eq!((notes[1].matched, notes[1].injected), (3, 2));
        assert_eq!(
            (notes[2].matched, notes[2].injected),
            (0, 0),
            "never matched"
        );
    }

    #[test]
    fn a_tools_change_edits_the_pages_and_removes_tools() {
        let change = ToolsChange {
            add: vec![
                json!({"name": "sub", "inputSchema": {"type": "object"}})
                    .as_object()
                    .unwrap()
                    .clone(),
                json!({"name": "echo", "description": "new", "inputSchema": {"type": "object"}})
                    .as_object()
                    .unwrap()
                    .clone(),
            ],
            remove: vec!["add".into()],
        };
        let changing = rule(
            "spec.faults[0]",
            FaultTarget::Method("tools/list".into()),
            FaultWhen::Call(1),
            FaultAction::ToolsChanged(change),
        );
        let plan = FaultPlan::new(vec![changing.clone()], 0, "t");
        assert!(plan.changes_tools("demo"));
        assert!(!plan.changes_tools("other"));
        let page = || -> ListToolsResult {
            serde_json::from_value(json!({"tools": [
                {"name": "add", "inputSchema": {"type": "object"}},
                {"name": "echo", "description": "old", "inputSchema": {"type": "object"}}
            ]}))
            .unwrap()
        };
        let mut before = page();
        assert!(plan.change_page("demo", &mut before).is_none());
        assert_eq!(before.tools.len(), 2);
        plan.change_tools("demo", &changing);
        let mut after = page();
        let injected = plan.change_page("demo", &mut after).unwrap();
        assert_eq!(injected.rule, "spec.faults[0]");
        let names: Vec<&str> = after.tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["echo", "sub"]);
        assert_eq!(after.tools[0].description.as_deref(), Some("new"));
        assert_eq!(
            plan.removed("demo", "add").unwrap().fault,
            FaultKind::RemovedTool
        );
        assert!(plan.removed("demo", "echo").is_none());
    }
}
