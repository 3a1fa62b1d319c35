//! `faults:` of a task set (`config.taskSets[i].faults`) and of a task file
//! (`spec.faults`): each rule's where, when and what, validated into [`FaultRule`]s.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::config::files::check::Checker;
use crate::config::files::error::did_you_mean;
use crate::fault::{FaultAction, FaultRule, FaultTarget, FaultWhen, METHODS, ToolsChange};

/// One rule as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::config) struct RawFaultRule {
    server: Option<String>,
    tool: Option<String>,
    method: Option<String>,
    call: Option<i64>,
    calls: Option<Vec<i64>>,
    every: Option<bool>,
    probability: Option<f64>,
    error: Option<RawError>,
    tool_error: Option<String>,
    delay: Option<String>,
    timeout: Option<bool>,
    disconnect: Option<bool>,
    malformed: Option<bool>,
    replace: Option<Value>,
    tools_changed: Option<RawToolsChanged>,
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

const WHEN_KEYS: &str = "`call`, `calls`, `every` or `probability`";
const WHAT_KEYS: &str = "`error`, `toolError`, `delay`, `timeout`, `disconnect`, `malformed`, `replace` or `toolsChanged`";

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
        if let (Some(server), Some(servers)) = (&self.server, servers)
            && !servers.contains(&server.as_str())
        {
            check.error(
                format!("{key}.server"),
                format!(
                    "unknown server `{server}`; the MCP config has {}{}",
                    servers.join(", "),
                    did_you_mean(server, servers.iter().copied())
                ),
            );
        }
        let target = target(check, key, self.tool, self.method);
        let when = when(
            check,
            key,
            self.call,
            self.calls,
            self.every,
            self.probability,
        );
        let what = What {
            error: self.error,
            tool_error: self.tool_error,
            delay: self.delay,
            timeout: self.timeout,
            disconnect: self.disconnect,
            malformed: self.malformed,
            replace: self.replace,
            tools_changed: self.tools_changed,
        };
        let action = what.validate(check, key, target.as_ref());
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
        (None, Some(method)) if METHODS.contains(&method.as_str()) => {
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
                    "unknown MCP method `{method}`{why}; expected one of {}{}",
                    METHODS.join(", "),
                    did_you_mean(&method, METHODS.iter().copied())
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

fn when(
    check: &mut Checker<'_>,
    key: &str,
    call: Option<i64>,
    calls: Option<Vec<i64>>,
    every: Option<bool>,
    probability: Option<f64>,
) -> Option<FaultWhen> {
    let set = [
        call.is_some(),
        calls.is_some(),
        every.is_some(),
        probability.is_some(),
    ];
    let missing = format!("no `when`: expected one of {WHEN_KEYS} (which matching calls are hit)");
    let twice = format!("expected only one of {WHEN_KEYS}");
    if !exactly_one(check, key, &set, (&missing, &twice)) {
        return None;
    }
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
    if let Some(n) = call {
        return number(check, format!("{key}.call"), n).map(FaultWhen::Call);
    }
    if let Some(list) = calls {
        if list.is_empty() {
            check.error(format!("{key}.calls"), "expected at least one call number");
            return None;
        }
        let numbers: Vec<Option<u32>> = (list.into_iter().enumerate())
            .map(|(i, n)| number(check, format!("{key}.calls[{i}]"), n))
            .collect();
        return numbers
            .into_iter()
            .collect::<Option<_>>()
            .map(FaultWhen::Calls);
    }
    if let Some(every) = every {
        if !every {
            check.error(
                format!("{key}.every"),
                "`every: false` hits no call; remove the rule, or pick calls with `call`/`calls`",
            );
            return None;
        }
        return Some(FaultWhen::Every);
    }
    let p = probability?;
    if !(p > 0.0 && p <= 1.0) {
        check.error(
            format!("{key}.probability"),
            format!("expected a probability above 0 and at most 1, found {p}"),
        );
        return None;
    }
    Some(FaultWhen::Probability(p))
}

/// Whether exactly one of the keys `set` says are given is; else the error for none or
/// for several, at `key`.
fn exactly_one(
    check: &mut Checker<'_>,
    key: &str,
    set: &[bool],
    (none, several): (&str, &str),
) -> bool {
    match set.iter().filter(|set| **set).count() {
        1 => true,
        0 => {
            check.error(key, none);
            false
        }
        _ => {
            check.error(key, several);
            false
        }
    }
}

/// The `what` keys of a rule, as written.
struct What {
    error: Option<RawError>,
    tool_error: Option<String>,
    delay: Option<String>,
    timeout: Option<bool>,
    disconnect: Option<bool>,
    malformed: Option<bool>,
    replace: Option<Value>,
    tools_changed: Option<RawToolsChanged>,
}

impl What {
    fn validate(
        self,
        check: &mut Checker<'_>,
        key: &str,
        target: Option<&FaultTarget>,
    ) -> Option<FaultAction> {
        let set = [
            self.error.is_some(),
            self.tool_error.is_some(),
            self.delay.is_some(),
            self.timeout.is_some(),
            self.disconnect.is_some(),
            self.malformed.is_some(),
            self.replace.is_some(),
            self.tools_changed.is_some(),
        ];
        let missing = format!("no fault: expected one of {WHAT_KEYS} (what the agent gets)");
        let twice = format!("expected only one fault of {WHAT_KEYS}");
        if !exactly_one(check, key, &set, (&missing, &twice)) {
            return None;
        }
        let tool_call = match target {
            Some(FaultTarget::Tool(_)) => Some(true),
            Some(FaultTarget::Method(method)) => Some(method == "tools/call"),
            None => None,
        };
        let tools_only = |check: &mut Checker<'_>, name: &str| {
            if tool_call == Some(false) {
                check.error(
                    format!("{key}.{name}"),
                    format!("`{name}` answers a tool call; this rule hits another method (use `tool: NAME` or `method: tools/call`)"),
                );
            }
        };
        let flag = |check: &mut Checker<'_>, name: &str, value: bool, action: FaultAction| {
            if value {
                Some(action)
            } else {
                check.error(
                    format!("{key}.{name}"),
                    format!("`{name}: false` is no fault; remove the rule or write `{name}: true`"),
                );
                None
            }
        };
        if let Some(error) = self.error {
            return json_rpc_error(check, &format!("{key}.error"), error);
        }
        if let Some(text) = self.tool_error {
            tools_only(check, "toolError");
            return Some(FaultAction::ToolError(text));
        }
        if let Some(delay) = self.delay {
            return check
                .duration(&format!("{key}.delay"), &delay)
                .map(FaultAction::Delay);
        }
        if let Some(timeout) = self.timeout {
            return flag(check, "timeout", timeout, FaultAction::Timeout);
        }
        if let Some(disconnect) = self.disconnect {
            return flag(check, "disconnect", disconnect, FaultAction::Disconnect);
        }
        if let Some(malformed) = self.malformed {
            return flag(check, "malformed", malformed, FaultAction::Malformed);
        }
        if let Some(result) = self.replace {
            return replacement(check, &format!("{key}.replace"), result, tool_call);
        }
        let change = self.tools_changed?;
        tools_changed(check, &format!("{key}.toolsChanged"), change)
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
