//! Entries of the assertion lists: which calls an entry matches ([`CallMatcher`], a
//! `callOrder` entry [`OrderedCall`]), their raw serde form and its validation.

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

use super::arguments::ArgumentPattern;
use crate::config::files::check::Checker;
use crate::config::files::error::did_you_mean;
use crate::trace::{CallKind, RecordedCall, RecordedElicitation};

/// One tool, resource or prompt entry. The name keys differ by kind (`tool`/`toolPattern`,
/// `uri`/`uriPattern`, `prompt`/`promptPattern`), so all are accepted here and the
/// validation pass rejects the ones that do not belong to the list's kind.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::config) struct RawMatcher {
    server: Option<String>,
    tool: Option<String>,
    tool_pattern: Option<String>,
    uri: Option<String>,
    uri_pattern: Option<String>,
    prompt: Option<String>,
    prompt_pattern: Option<String>,
    arguments: Option<Value>,
    turn: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::config) struct RawCallOrder {
    #[serde(rename = "type")]
    kind: Option<String>,
    server: Option<String>,
    name: Option<String>,
    arguments: Option<Value>,
    turn: Option<i64>,
}

/// The YAML spelling of a call kind: `tool`, `resource` or `prompt`.
pub fn kind_name(kind: CallKind) -> &'static str {
    match kind {
        CallKind::Tool => "tool",
        CallKind::Resource => "resource",
        CallKind::Prompt => "prompt",
    }
}

/// The keys naming a call of `kind` in an assertion entry: exact name and pattern.
fn name_keys(kind: CallKind) -> (&'static str, &'static str) {
    match kind {
        CallKind::Tool => ("tool", "toolPattern"),
        CallKind::Resource => ("uri", "uriPattern"),
        CallKind::Prompt => ("prompt", "promptPattern"),
    }
}

/// Which calls of one server an assertion entry matches.
#[derive(Debug, Clone)]
pub struct CallMatcher {
    /// The MCP server name; must equal the call's server exactly.
    pub server: String,
    /// Exact name (tool name, URI or prompt name).
    pub name: Option<String>,
    /// Unanchored regex over the name. With `name` too, either may match.
    pub pattern: Option<Regex>,
    /// The call's arguments must match this (tools and prompts).
    pub arguments: Option<ArgumentPattern>,
    /// `turn`: only calls made in this turn of the task's conversation.
    pub turn: Option<u32>,
}

impl CallMatcher {
    /// Whether `call` matches this entry: its server, its name, its arguments and its turn.
    pub fn matches_call(&self, call: &RecordedCall) -> bool {
        self.turn.is_none_or(|turn| call.turn == Some(turn))
            && self.matches(&call.server, &call.name)
            && self
                .arguments
                .as_ref()
                .is_none_or(|pattern| pattern.matches(call.arguments.as_ref()))
    }

    /// Whether a call of `server` named `name` matches this entry, arguments aside.
    pub fn matches(&self, server: &str, name: &str) -> bool {
        if self.server != server {
            return false;
        }
        match (&self.name, &self.pattern) {
            (None, None) => true,
            (exact, pattern) => {
                exact.as_deref() == Some(name) || pattern.as_ref().is_some_and(|p| p.is_match(name))
            }
        }
    }

    /// How the entry reads in a failure message, e.g. `kubernetes/~pods_.*`,
    /// `kubernetes/*` or `files/read_file with arguments {"path":{"$match":"^/tmp/"}}`.
    pub fn describe(&self) -> String {
        let mut text = match &self.arguments {
            Some(pattern) => format!("{} with arguments {pattern}", self.describe_name()),
            None => self.describe_name(),
        };
        if let Some(turn) = self.turn {
            text.push_str(&format!(" in turn {turn}"));
        }
        text
    }

    /// The server and name part of [`describe`](Self::describe).
    pub fn describe_name(&self) -> String {
        match (&self.name, &self.pattern) {
            (Some(name), None) => format!("{}/{name}", self.server),
            (None, Some(pattern)) => format!("{}/~{}", self.server, pattern.as_str()),
            (Some(name), Some(pattern)) => {
                format!("{}/{name} or ~{}", self.server, pattern.as_str())
            }
            (None, None) => format!("{}/*", self.server),
        }
    }
}

/// One entry of `callOrder`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedCall {
    /// Tool, resource or prompt.
    pub kind: CallKind,
    /// The MCP server name.
    pub server: String,
    /// The exact tool name, URI or prompt name.
    pub name: String,
    /// The call's arguments must match this (tools and prompts).
    pub arguments: Option<ArgumentPattern>,
    /// `type: elicitation`: the entry is an elicitation `server` sent while its tool `name`
    /// was being called, not the call itself.
    pub asked: bool,
    /// `turn`: only a call (or an elicitation) of this turn of the task's conversation.
    pub turn: Option<u32>,
}

impl OrderedCall {
    /// Whether `elicitation` is this `type: elicitation` entry's: its server, during a
    /// call of the entry's tool.
    pub fn matches_elicitation(&self, elicitation: &RecordedElicitation) -> bool {
        self.asked
            && elicitation.server == self.server
            && elicitation.tool() == Some(&self.name)
            && self.turn.is_none_or(|turn| elicitation.turn == Some(turn))
    }

    /// Whether `call` is this entry's call: kind, server, name and arguments.
    pub fn matches_call(&self, call: &RecordedCall) -> bool {
        !self.asked
            && self.matches_name(call)
            && self
                .arguments
                .as_ref()
                .is_none_or(|pattern| pattern.matches(call.arguments.as_ref()))
    }

    /// Whether `call` has this entry's kind, server and name, arguments aside.
    pub fn matches_name(&self, call: &RecordedCall) -> bool {
        call.kind == self.kind
            && call.server == self.server
            && call.name == self.name
            && self.turn.is_none_or(|turn| call.turn == Some(turn))
    }

    /// How the entry reads in a failure message: `tool demo/add`, with its arguments
    /// pattern when it has one.
    pub fn describe(&self) -> String {
        let kind = if self.asked {
            "elicitation"
        } else {
            kind_name(self.kind)
        };
        let mut call = format!("{kind} {}/{}", self.server, self.name);
        if let Some(pattern) = &self.arguments {
            call.push_str(&format!(" with arguments {pattern}"));
        }
        if let Some(turn) = self.turn {
            call.push_str(&format!(" in turn {turn}"));
        }
        call
    }
}

/// Validates the `arguments` written at `path` of an entry of `kind`: resources have none.
fn arguments(
    check: &mut Checker<'_>,
    path: &str,
    kind: Option<CallKind>,
    written: Option<Value>,
) -> Result<Option<ArgumentPattern>, ()> {
    let Some(written) = written else {
        return Ok(None);
    };
    if kind == Some(CallKind::Resource) {
        check.error(
            path,
            "a resource read has no arguments; match its URI with uri or uriPattern (name in callOrder)",
        );
        return Err(());
    }
    ArgumentPattern::validate(check, path, written)
        .map(Some)
        .ok_or(())
}

/// Checks that `server` (written at `path`) names a server of the MCP config.
pub fn check_server(
    check: &mut Checker<'_>,
    path: &str,
    server: &str,
    servers: Option<&[&str]>,
) -> bool {
    let Some(servers) = servers else {
        // The MCP config did not load; its own errors are reported.
        return true;
    };
    if servers.contains(&server) {
        return true;
    }
    let known = if servers.is_empty() {
        "none".to_owned()
    } else {
        servers.join(", ")
    };
    check.error(
        path,
        format!(
            "unknown MCP server `{server}`{}; servers in the MCP config: {known}",
            did_you_mean(server, servers.iter().copied())
        ),
    );
    false
}

impl RawMatcher {
    pub(in crate::config) fn validate(
        self,
        check: &mut Checker<'_>,
        path: &str,
        kind: CallKind,
        servers: Option<&[&str]>,
    ) -> Option<CallMatcher> {
        let (name_key, pattern_key) = name_keys(kind);
        let all = [
            ("tool", self.tool.is_some()),
            ("toolPattern", self.tool_pattern.is_some()),
            ("uri", self.uri.is_some()),
            ("uriPattern", self.uri_pattern.is_some()),
            ("prompt", self.prompt.is_some()),
            ("promptPattern", self.prompt_pattern.is_some()),
        ];
        let mut ok = true;
        for (key, present) in all {
            if present && key != name_key && key != pattern_key {
                check.error(
                    format!("{path}.{key}"),
                    format!("`{key}` does not belong in a {} entry; expected server, {name_key} or {pattern_key}", kind_name(kind)),
                );
                ok = false;
            }
        }
        let (name, pattern) = match kind {
            CallKind::Tool => (self.tool, self.tool_pattern),
            CallKind::Resource => (self.uri, self.uri_pattern),
            CallKind::Prompt => (self.prompt, self.prompt_pattern),
        };
        let pattern = match pattern {
            Some(p) => match check.regex(&format!("{path}.{pattern_key}"), &p) {
                Some(regex) => Some(regex),
                None => {
                    ok = false;
                    None
                }
            },
            None => None,
        };
        let arguments = arguments(
            check,
            &format!("{path}.arguments"),
            Some(kind),
            self.arguments,
        );
        let server = match check.non_empty(&format!("{path}.server"), self.server.as_deref()) {
            Some(server) => server.to_owned(),
            None => return None,
        };
        ok &= check_server(check, &format!("{path}.server"), &server, servers);
        let turn = turn(check, path, self.turn);
        ok &= turn.is_ok();
        match arguments {
            Ok(arguments) if ok => Some(CallMatcher {
                server,
                name,
                pattern,
                arguments,
                turn: turn.ok().flatten(),
            }),
            _ => None,
        }
    }
}

impl RawCallOrder {
    pub(in crate::config) fn validate(
        self,
        check: &mut Checker<'_>,
        path: &str,
        servers: Option<&[&str]>,
    ) -> Option<OrderedCall> {
        let asked = self.kind.as_deref() == Some("elicitation");
        let kind = match self.kind.as_deref() {
            Some("tool" | "elicitation") => Some(CallKind::Tool),
            Some("resource") => Some(CallKind::Resource),
            Some("prompt") => Some(CallKind::Prompt),
            Some(other) => {
                check.error(
                    format!("{path}.type"),
                    format!(
                        "unknown call type `{other}`; expected one of tool, resource, prompt, elicitation{}",
                        did_you_mean(other, ["tool", "resource", "prompt", "elicitation"])
                    ),
                );
                None
            }
            None => {
                check.error(
                    format!("{path}.type"),
                    "missing required field; expected tool, resource, prompt or elicitation",
                );
                None
            }
        };
        let server = check
            .non_empty(&format!("{path}.server"), self.server.as_deref())
            .map(str::to_owned);
        let name = check
            .non_empty(&format!("{path}.name"), self.name.as_deref())
            .map(str::to_owned);
        let server_ok = server
            .as_deref()
            .is_some_and(|s| check_server(check, &format!("{path}.server"), s, servers));
        if asked && self.arguments.is_some() {
            check.error(
                format!("{path}.arguments"),
                "an elicitation entry has no arguments; its `name` is the tool being called when the server asked",
            );
        }
        let arguments = arguments(check, &format!("{path}.arguments"), kind, self.arguments);
        let turn = turn(check, path, self.turn);
        match (kind, server, name, arguments, turn) {
            (Some(kind), Some(server), Some(name), Ok(arguments), Ok(turn)) if server_ok => {
                Some(OrderedCall {
                    kind,
                    server,
                    name,
                    arguments,
                    asked,
                    turn,
                })
            }
            _ => None,
        }
    }
}

/// Validates the `turn` of the entry at `path`: a count from 1; `Err` once reported.
pub(super) fn turn(
    check: &mut Checker<'_>,
    path: &str,
    turn: Option<i64>,
) -> Result<Option<u32>, ()> {
    let at = format!("{path}.turn");
    match turn {
        None => Ok(None),
        Some(0) => {
            check.error(at, "turns count from 1 (the task's prompt)");
            Err(())
        }
        Some(turn) => check.count(&at, turn).map(Some).ok_or(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(name: Option<&str>, pattern: Option<&str>) -> CallMatcher {
        CallMatcher {
            server: "k8s".into(),
            name: name.map(Into::into),
            pattern: pattern.map(|p| Regex::new(p).unwrap()),
            arguments: None,
            turn: None,
        }
    }

    #[test]
    fn an_entry_with_a_turn_matches_only_calls_of_that_turn() {
        let call = |turn: Option<u32>| RecordedCall {
            server: "k8s".into(),
            kind: CallKind::Tool,
            name: "scale".into(),
            arguments: None,
            outcome: crate::trace::Outcome::Ok {
                result: serde_json::Value::Null,
            },
            start_offset: std::time::Duration::ZERO,
            duration: std::time::Duration::ZERO,
            injected: None,
            rounds: Vec::new(),
            task: Vec::new(),
            turn,
        };
        let mut entry = matcher(Some("scale"), None);
        assert!(entry.matches_call(&call(None)) && entry.matches_call(&call(Some(2))));
        entry.turn = Some(2);
        assert!(entry.matches_call(&call(Some(2))));
        assert!(!entry.matches_call(&call(Some(3))) && !entry.matches_call(&call(None)));
        assert_eq!(entry.describe(), "k8s/scale in turn 2");
    }

    #[test]
    fn pattern_is_unanchored() {
        assert!(matcher(None, Some("pods_")).matches("k8s", "list_pods_all"));
        assert!(!matcher(None, Some("^pods_$")).matches("k8s", "pods_list"));
    }

    #[test]
    fn neither_name_nor_pattern_matches_any_call_of_the_server() {
        assert!(matcher(None, None).matches("k8s", "anything"));
        assert!(!matcher(None, None).matches("other", "anything"));
    }

    #[test]
    fn name_and_pattern_either_may_match() {
        let m = matcher(Some("exact"), Some("^pods_"));
        assert!(m.matches("k8s", "exact"));
        assert!(m.matches("k8s", "pods_list"));
        assert!(!m.matches("k8s", "other"));
    }
}
