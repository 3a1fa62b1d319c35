//! `faults:` of a task set (`config.taskSets[i].faults`) and of a task file
//! (`spec.faults`): each rule's where, when and what, validated into [`FaultRule`]s.
//!
//! A rule is a flat mapping; its `when` keys are the variants of [`RawWhen`] and its `what`
//! keys those of [`RawAction`], each read by serde from its own entry ([`TaggedEntry`]) and
//! validated in one `match`. The keys an error lists are the enums' variant names.

use std::fmt;
use std::sync::LazyLock;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::config::files::check::Checker;
use crate::config::files::error::did_you_mean;
use crate::config::files::tagged::{FieldName, TaggedEntry, listed, variant_names};
use crate::fault::{
    ELICITATION, FaultAction, FaultRule, FaultTarget, FaultWhen, METHODS, ToolsChange,
};

/// One rule as written: where, and the `when` and `what` entries given (null ones are
/// left out, as keys not written).
#[derive(Debug, Default)]
pub(in crate::config) struct RawFaultRule {
    server: Option<String>,
    tool: Option<String>,
    method: Option<String>,
    when: Vec<(&'static str, RawWhen)>,
    action: Vec<(&'static str, RawAction)>,
}

/// Which matching calls a rule hits, as written: one key of the rule.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
enum RawWhen {
    Call(i64),
    Calls(Vec<i64>),
    Every(bool),
    Probability(f64),
}

/// What the agent gets, as written: one key of the rule.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
enum RawAction {
    Error(RawError),
    ToolError(String),
    Delay(String),
    Timeout(bool),
    Disconnect(bool),
    Malformed(bool),
    Replace(Value),
    ToolsChanged(RawToolsChanged),
    Decline(bool),
    Cancel(bool),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawError {
    code: Option<i64>,
    message: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToolsChanged {
    #[serde(default)]
    add: Vec<Value>,
    #[serde(default)]
    remove: Vec<String>,
}

/// The keys of the rule's where.
const WHERE_KEYS: [&str; 3] = ["server", "tool", "method"];

/// Every key a rule may have, in the order an unknown key's error lists them.
static RULE_KEYS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let when = variant_names::<RawWhen>().iter();
    let what = variant_names::<RawAction>().iter();
    WHERE_KEYS
        .into_iter()
        .chain(when.chain(what).copied())
        .collect()
});

impl<'de> Deserialize<'de> for RawFaultRule {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("RawFaultRule", &RULE_KEYS, RawFaultRule::default())
    }
}

impl<'de> Visitor<'de> for RawFaultRule {
    type Value = RawFaultRule;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("struct RawFaultRule")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self, A::Error> {
        while let Some(key) = map.next_key_seed(FieldName(&RULE_KEYS))? {
            match key {
                "server" => self.server = map.next_value()?,
                "tool" => self.tool = map.next_value()?,
                "method" => self.method = map.next_value()?,
                _ if variant_names::<RawWhen>().contains(&key) => {
                    let when = map.next_value_seed(TaggedEntry::new(key))?;
                    self.when.extend(when.map(|when| (key, when)));
                }
                // `FieldName` let only the rule's keys through: the rest are actions.
                _ => {
                    let action = map.next_value_seed(TaggedEntry::new(key))?;
                    self.action.extend(action.map(|action| (key, action)));
                }
            }
        }
        Ok(self)
    }
}

/// Validates the rules written at `key` (`config.taskSets[0].faults`, `spec.faults`);
/// `servers` are the MCP config's server names when known.
pub(in crate::config) fn fault_rules(
    check: &mut Checker<'_>,
    key: &str,
    raw: Vec<RawFaultRule>,
    servers: Option<&[&str]>,
) -> Vec<FaultRule> {
    let rules = raw.into_iter().enumerate();
    rules
        .filter_map(|(i, rule)| rule.validate(check, &format!("{key}[{i}]"), servers))
        .collect()
}

impl RawFaultRule {
    fn validate(
        self,
        check: &mut Checker<'_>,
        key: &str,
        servers: Option<&[&str]>,
    ) -> Option<FaultRule> {
        let errors = check.error_count();
        if let Some(server) = &self.server {
            check.known_server(&format!("{key}.server"), server, servers);
        }
        let target = target(check, key, self.tool, self.method);
        let when = when(check, key, self.when);
        let action = action(check, key, self.action, target.as_ref());
        let rule = FaultRule {
            key_path: key.to_owned(),
            server: self.server,
            target: target?,
            when: when?,
            action: action?,
        };
        (check.error_count() == errors).then_some(rule)
    }
}

fn target(
    check: &mut Checker<'_>,
    key: &str,
    tool: Option<String>,
    method: Option<String>,
) -> Option<FaultTarget> {
    match (tool, method) {
        (Some(tool), None) => check
            .non_empty(&format!("{key}.tool"), Some(&tool))
            .is_some()
            .then(|| FaultTarget::Tool(tool.clone())),
        (None, Some(method)) if METHODS.contains(&method.as_str()) || method == ELICITATION => {
            Some(FaultTarget::Method(method))
        }
        (None, Some(method)) => {
            let why = if method == "initialize" || method.starts_with("notifications/") {
                " (the handshake and notifications cannot be faulted; `disconnect` ends a session)"
            } else {
                ""
            };
            check.error(
                format!("{key}.method"),
                format!(
                    "unknown MCP method `{method}`{why}; expected one of {}, {ELICITATION}{}",
                    METHODS.join(", "),
                    did_you_mean(&method, METHODS.iter().chain([&ELICITATION]).copied())
                ),
            );
            None
        }
        (Some(_), Some(_)) => {
            check.error(
                key,
                "both `tool` and `method` are set; expected one (`tool: NAME` is `tools/call` of that tool)",
            );
            None
        }
        (None, None) => {
            check.error(
                key,
                "neither `tool` nor `method` is set; expected which calls the rule hits",
            );
            None
        }
    }
}

/// The rule's one `when` entry, validated.
fn when(
    check: &mut Checker<'_>,
    key: &str,
    written: Vec<(&'static str, RawWhen)>,
) -> Option<FaultWhen> {
    let keys = listed(variant_names::<RawWhen>());
    let missing = format!("no `when`: expected one of {keys} (which matching calls are hit)");
    let twice = format!("expected only one of {keys}");
    let (name, when) = only_one(check, key, written, (&missing, &twice))?;
    let at = format!("{key}.{name}");
    let number = |check: &mut Checker<'_>, at: String, n: i64| -> Option<u32> {
        match u32::try_from(n) {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                check.error(
                    at,
                    format!("expected a call number from 1 (the first matching call), found {n}"),
                );
                None
            }
        }
    };
    match when {
        RawWhen::Call(n) => number(check, at, n).map(FaultWhen::Call),
        RawWhen::Calls(list) if list.is_empty() => {
            check.error(at, "expected at least one call number");
            None
        }
        RawWhen::Calls(list) => {
            let numbers: Vec<Option<u32>> = (list.into_iter().enumerate())
                .map(|(i, n)| number(check, format!("{at}[{i}]"), n))
                .collect();
            let numbers = numbers.into_iter().collect::<Option<_>>();
            numbers.map(FaultWhen::Calls)
        }
        RawWhen::Every(true) => Some(FaultWhen::Every),
        RawWhen::Every(false) => {
            check.error(
                at,
                "`every: false` hits no call; remove the rule, or pick calls with `call`/`calls`",
            );
            None
        }
        RawWhen::Probability(p) if p > 0.0 && p <= 1.0 => Some(FaultWhen::Probability(p)),
        RawWhen::Probability(p) => {
            check.error(
                at,
                format!("expected a probability above 0 and at most 1, found {p}"),
            );
            None
        }
    }
}

/// The one entry `written` holds; else the error for none or for several, at `key`.
fn only_one<T>(
    check: &mut Checker<'_>,
    key: &str,
    mut written: Vec<(&'static str, T)>,
    (none, several): (&str, &str),
) -> Option<(&'static str, T)> {
    match written.len() {
        1 => written.pop(),
        0 => {
            check.error(key, none);
            None
        }
        _ => {
            check.error(key, several);
            None
        }
    }
}

/// The rule's one `what` entry, validated (`target`, when valid, says which it may be).
fn action(
    check: &mut Checker<'_>,
    key: &str,
    written: Vec<(&'static str, RawAction)>,
    target: Option<&FaultTarget>,
) -> Option<FaultAction> {
    let keys = listed(variant_names::<RawAction>());
    let missing = format!("no fault: expected one of {keys} (what the agent gets)");
    let twice = format!("expected only one fault of {keys}");
    let (name, action) = only_one(check, key, written, (&missing, &twice))?;
    let at = format!("{key}.{name}");
    let tool_call = match target {
        Some(FaultTarget::Tool(_)) => Some(true),
        Some(FaultTarget::Method(method)) => Some(method == "tools/call"),
        None => None,
    };
    let asks = matches!(target, Some(FaultTarget::Method(method)) if method == ELICITATION);
    let for_user = matches!(action, RawAction::Decline(_) | RawAction::Cancel(_));
    if asks && !for_user && !matches!(action, RawAction::Timeout(_)) {
        check.error(
            &at,
            format!("a rule on `{ELICITATION}` answers for the user; expected decline, cancel or timeout (never answered), not `{name}`"),
        );
        return None;
    }
    if for_user && !asks && target.is_some() {
        check.error(
            &at,
            format!("`{name}` answers a server's elicitation; expected `method: {ELICITATION}`"),
        );
        return None;
    }
    let flag = |check: &mut Checker<'_>, on: bool, action: FaultAction| {
        if !on {
            check.error(
                &at,
                format!("`{name}: false` is no fault; remove the rule or write `{name}: true`"),
            );
        }
        on.then_some(action)
    };
    match action {
        RawAction::Error(error) => json_rpc_error(check, &at, error),
        RawAction::ToolError(text) => {
            if tool_call == Some(false) {
                check.error(
                    &at,
                    format!("`{name}` answers a tool call; this rule hits another method (use `tool: NAME` or `method: tools/call`)"),
                );
            }
            Some(FaultAction::ToolError(text))
        }
        RawAction::Delay(delay) => check.duration(&at, &delay).map(FaultAction::Delay),
        RawAction::Timeout(on) => flag(check, on, FaultAction::Timeout),
        RawAction::Disconnect(on) => flag(check, on, FaultAction::Disconnect),
        RawAction::Malformed(on) => flag(check, on, FaultAction::Malformed),
        RawAction::Replace(result) => replacement(check, &at, result, tool_call),
        RawAction::ToolsChanged(change) => tools_changed(check, &at, change),
        RawAction::Decline(on) => flag(check, on, FaultAction::Decline),
        RawAction::Cancel(on) => flag(check, on, FaultAction::Cancel),
    }
}

fn json_rpc_error(check: &mut Checker<'_>, key: &str, raw: RawError) -> Option<FaultAction> {
    let code = match raw.code.map(i32::try_from) {
        Some(Ok(code)) => Some(code),
        Some(Err(_)) => {
            check.error(
                format!("{key}.code"),
                "expected a JSON-RPC error code (a 32-bit integer)",
            );
            None
        }
        None => {
            check.error(
                format!("{key}.code"),
                "missing required field; expected a JSON-RPC error code, e.g. -32603",
            );
            None
        }
    };
    let message = check.non_empty(&format!("{key}.message"), raw.message.as_deref());
    let message = message.map(str::to_owned);
    Some(FaultAction::Error {
        code: code?,
        message: message?,
    })
}

/// `replace`: a result object; for a tool call, one rmcp reads as a tool result.
fn replacement(
    check: &mut Checker<'_>,
    key: &str,
    result: Value,
    tool_call: Option<bool>,
) -> Option<FaultAction> {
    if !result.is_object() {
        check.error(
            key,
            format!("expected the result object the agent gets, found {result}"),
        );
        return None;
    }
    if tool_call == Some(true)
        && let Err(error) = serde_json::from_value::<rmcp::model::CallToolResult>(result.clone())
    {
        check.error(
            key,
            format!("not a tool result ({error}); expected e.g. {{content: [{{type: text, text: \"…\"}}]}}"),
        );
        return None;
    }
    Some(FaultAction::Replace(result))
}

fn tools_changed(check: &mut Checker<'_>, key: &str, raw: RawToolsChanged) -> Option<FaultAction> {
    let errors = check.error_count();
    if raw.add.is_empty() && raw.remove.is_empty() {
        check.error(
            key,
            "expected `add` (tool definitions) or `remove` (tool names)",
        );
    }
    let mut add = Vec::new();
    for (i, tool) in raw.add.into_iter().enumerate() {
        let at = format!("{key}.add[{i}]");
        let Value::Object(tool) = tool else {
            check.error(
                at,
                "expected a tool definition: name, description, inputSchema",
            );
            continue;
        };
        match serde_json::from_value::<rmcp::model::Tool>(Value::Object(with_schema(&tool))) {
            Ok(_) => add.push(with_schema(&tool)),
            Err(error) => check.error(
                at,
                format!("not a tool definition ({error}); expected name, description, inputSchema"),
            ),
        }
    }
    for (i, name) in raw.remove.iter().enumerate() {
        check.non_empty(&format!("{key}.remove[{i}]"), Some(name));
    }
    (check.error_count() == errors).then_some(FaultAction::ToolsChanged(ToolsChange {
        add,
        remove: raw.remove,
    }))
}

/// A tool definition with `inputSchema: {type: object}` when it has none.
fn with_schema(tool: &Map<String, Value>) -> Map<String, Value> {
    let mut tool = tool.clone();
    tool.entry("inputSchema")
        .or_insert_with(|| serde_json::json!({"type": "object"}));
    tool
}
