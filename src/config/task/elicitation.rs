//! `elicitation:` of a task set (`config.taskSets[i].elicitation`) and of a task file
//! (`spec.elicitation`): the scripted user's rules, validated into an
//! [`ElicitationScript`]. An mcpeval key: mcpchecker ignores it.

use serde::Deserialize;
use serde_json::Value;

use crate::config::files::check::Checker;
use crate::user::{ElicitationAction, ElicitationMode, ElicitationScript, Unmatched, UserRule};

/// `elicitation` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::config) struct RawElicitation {
    #[serde(default)]
    rules: Vec<RawUserRule>,
    unmatched: Option<String>,
}

/// One rule as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUserRule {
    server: Option<String>,
    tool: Option<String>,
    mode: Option<String>,
    message: Option<String>,
    #[serde(default)]
    properties: Vec<String>,
    action: Option<String>,
    content: Option<Value>,
}

/// Validates the `elicitation` written at `key` (`spec.elicitation`,
/// `config.taskSets[0].elicitation`); `servers` are the MCP config's server names when known.
pub(in crate::config) fn elicitation_script(
    check: &mut Checker<'_>,
    key: &str,
    raw: Option<RawElicitation>,
    servers: Option<&[&str]>,
) -> Option<ElicitationScript> {
    let raw = raw?;
    let unmatched = (raw.unmatched)
        .filter(|name| check.one_of(&format!("{key}.unmatched"), name, &Unmatched::NAMES))
        .and_then(|name| Unmatched::from_name(&name));
    let rules = (raw.rules.into_iter().enumerate())
        .filter_map(|(i, rule)| rule.validate(check, &format!("{key}.rules[{i}]"), servers))
        .collect();
    Some(ElicitationScript { rules, unmatched })
}

impl RawUserRule {
    fn validate(
        self,
        check: &mut Checker<'_>,
        key: &str,
        servers: Option<&[&str]>,
    ) -> Option<UserRule> {
        let errors = check.error_count();
        if let Some(server) = &self.server {
            check.known_server(&format!("{key}.server"), server, servers);
        }
        let mode = (self.mode.as_deref())
            .filter(|name| check.one_of(&format!("{key}.mode"), name, &ElicitationMode::NAMES))
            .and_then(ElicitationMode::from_name);
        let message = (self.message.as_deref())
            .and_then(|pattern| check.regex(&format!("{key}.message"), pattern));
        let action = match self.action.as_deref() {
            None => {
                let expected = "a rule needs `action`: accept, decline or cancel";
                check.error(format!("{key}.action"), expected);
                None
            }
            Some(name) => Some(name)
                .filter(|name| {
                    check.one_of(&format!("{key}.action"), name, &ElicitationAction::NAMES)
                })
                .and_then(ElicitationAction::from_name),
        };
        let content = self.content.and_then(|content| {
            let content_key = format!("{key}.content");
            match (action, mode, content) {
                (Some(action), _, _) if action != ElicitationAction::Accept => {
                    let why = format!("only an `accept` fills in content; this rule says `{}`", action.as_str());
                    check.error(content_key, why);
                    None
                }
                (_, Some(ElicitationMode::Url), _) => {
                    check.error(content_key, "a URL-mode elicitation is accepted without content");
                    None
                }
                (_, _, Value::Object(map)) => {
                    for (name, value) in &map {
                        if !is_form_value(value) {
                            let why = "expected a string, a number, a boolean or a list of strings, as an elicitation form takes";
                            check.error(format!("{content_key}.{name}"), why);
                        }
                    }
                    Some(map)
                }
                (_, _, _) => {
                    check.error(content_key, "expected a mapping of the form's properties to their values");
                    None
                }
            }
        });
        if check.error_count() > errors {
            return None;
        }
        Some(UserRule {
            key_path: key.to_owned(),
            server: self.server,
            tool: self.tool,
            mode,
            message,
            properties: self.properties,
            action: action?,
            content,
        })
    }
}

/// A value an elicitation form holds: a string, a number, a boolean, or a list of strings
/// (a multi-select).
fn is_form_value(value: &Value) -> bool {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
        Value::Array(items) => items.iter().all(Value::is_string),
        Value::Null | Value::Object(_) => false,
    }
}
