//! The scripted user: a task's `elicitation` rules (validated by `config`, carried out by
//! the proxy), which answer a server's `elicitation/create` on the user's behalf, the same
//! for every agent, so that a run that asks the user is deterministic and replayable.
//!
//! A rule says which elicitation it answers (`server`, the `tool` being called, `mode`, a
//! `message` pattern, `properties` the requested schema must have) and how (`action`:
//! `accept` with `content`, `decline` or `cancel`). The first rule that matches answers;
//! `unmatched` says what happens to any other elicitation.
//!
//! The same user answers a server's `sampling/createMessage` with a scripted reply (a
//! task's `sampling` rules: [`ScriptedModel`]).

use regex::Regex;
use serde_json::{Map, Value};

mod sampling;

pub use sampling::{
    ReplyRule, ReplySource, SCRIPTED_MODEL, Sampled, SamplingScript, SamplingUnmatched,
    ScriptedModel, message_texts,
};

use crate::plumbing::json_schema::{JsonSchema, describe_violations};
pub use crate::trace::{ElicitationAction, ElicitationMode};

/// One `elicitation.rules` entry.
#[derive(Debug, Clone)]
pub struct UserRule {
    /// Where it is written: `spec.elicitation.rules[0]` (the task file) or
    /// `config.taskSets[0].elicitation.rules[1]` (the eval file). The trace names a rule by it.
    pub key_path: String,
    /// `server`: only this server's elicitations.
    pub server: Option<String>,
    /// `tool`: only elicitations made while this tool is being called.
    pub tool: Option<String>,
    /// `mode`: only form or only URL elicitations.
    pub mode: Option<ElicitationMode>,
    /// `message`: a pattern the elicitation's message must contain a match of.
    pub message: Option<Regex>,
    /// `properties`: names the requested schema must all have among its properties.
    pub properties: Vec<String>,
    /// `action`: the user's answer.
    pub action: ElicitationAction,
    /// `content`: what an `accept` fills in (form mode).
    pub content: Option<Map<String, Value>>,
}

/// What happens to an elicitation no rule matches (`elicitation.unmatched`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unmatched {
    /// `fail` (the default): the server gets `cancel`, and the run fails naming what the
    /// server asked.
    #[default]
    Fail,
    /// `decline`: the server gets `decline`.
    Decline,
    /// `cancel`: the server gets `cancel`.
    Cancel,
    /// `agent`: relayed to the agent, as without rules.
    Agent,
}

impl Unmatched {
    /// The values `unmatched` takes, as written.
    pub const NAMES: [&'static str; 4] = ["fail", "decline", "cancel", "agent"];

    /// The value named `name`, as written.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "fail" => Some(Unmatched::Fail),
            "decline" => Some(Unmatched::Decline),
            "cancel" => Some(Unmatched::Cancel),
            "agent" => Some(Unmatched::Agent),
            _ => None,
        }
    }
}

/// A task's `elicitation`, or a task set's, as written there: its rules, and `unmatched`
/// when given.
#[derive(Debug, Clone, Default)]
pub struct ElicitationScript {
    /// The rules, in order.
    pub rules: Vec<UserRule>,
    /// `unmatched`, when written.
    pub unmatched: Option<Unmatched>,
}

/// The scripted user of one run: the task's rules, then its task sets', and one
/// `unmatched` (the task's, else the first task set's that says, else `fail`).
#[derive(Debug, Clone, Default)]
pub struct ScriptedUser {
    /// The rules, in the order they are tried.
    pub rules: Vec<UserRule>,
    /// What happens to an elicitation no rule matches.
    pub unmatched: Unmatched,
}

/// An elicitation as the scripted user sees it.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// The server asking.
    pub server: &'a str,
    /// The tool being called when it asked, if a tool call was in flight.
    pub tool: Option<&'a str>,
    /// Form or URL.
    pub mode: ElicitationMode,
    /// The message shown to the user.
    pub message: &'a str,
    /// The requested schema (form mode).
    pub schema: Option<&'a Value>,
}

/// How the scripted user answers one elicitation.
#[derive(Debug, Clone, Copy)]
pub enum UserDecision<'a> {
    /// The first rule that matches.
    Rule(&'a UserRule),
    /// No rule matched.
    Unmatched(Unmatched),
}

impl ScriptedUser {
    /// The user of a run whose task has `task` and whose task sets have `sets`; `None`
    /// when none of them scripts elicitations (the agent answers them, as it would).
    pub fn of<'a>(
        task: Option<&'a ElicitationScript>,
        sets: impl IntoIterator<Item = &'a ElicitationScript>,
    ) -> Option<Self> {
        let scripts: Vec<&ElicitationScript> = task.into_iter().chain(sets).collect();
        if scripts.is_empty() {
            return None;
        }
        Some(ScriptedUser {
            rules: scripts
                .iter()
                .flat_map(|s| s.rules.iter().cloned())
                .collect(),
            unmatched: scripts
                .iter()
                .find_map(|script| script.unmatched)
                .unwrap_or_default(),
        })
    }

    /// How the user answers `asked`.
    pub fn decide(&self, asked: &Asked<'_>) -> UserDecision<'_> {
        match self.rules.iter().find(|rule| rule.matches(asked)) {
            Some(rule) => UserDecision::Rule(rule),
            None => UserDecision::Unmatched(self.unmatched),
        }
    }
}

impl UserRule {
    /// Whether the rule answers `asked`.
    pub fn matches(&self, asked: &Asked<'_>) -> bool {
        let properties = asked
            .schema
            .and_then(|schema| schema["properties"].as_object());
        self.server.as_deref().is_none_or(|s| s == asked.server)
            && self.tool.as_deref().is_none_or(|t| Some(t) == asked.tool)
            && self.mode.is_none_or(|mode| mode == asked.mode)
            && (self.message.as_ref()).is_none_or(|regex| regex.is_match(asked.message))
            && (self.properties.iter())
                .all(|name| properties.is_some_and(|props| props.contains_key(name)))
    }

    /// The answer's content, checked against the requested schema: the error names the
    /// property (`confirm`: "…"). `None` for a `decline`, a `cancel` and a URL-mode accept.
    pub fn content_for(&self, asked: &Asked<'_>) -> Result<Option<Value>, String> {
        if self.action != ElicitationAction::Accept || asked.mode == ElicitationMode::Url {
            return Ok(None);
        }
        let content = Value::Object(self.content.clone().unwrap_or_default());
        if let Some(schema) = asked.schema {
            check_content(schema, &content)?;
        }
        Ok(Some(content))
    }
}

/// Whether `content` satisfies the server's `requestedSchema`: a property the schema does
/// not have, a missing required one, or a value of the wrong type or outside its `enum`
/// is an error naming the property.
pub fn check_content(schema: &Value, content: &Value) -> Result<(), String> {
    let properties = schema["properties"].as_object();
    if let Some(object) = content.as_object() {
        for name in object.keys() {
            if !properties.is_some_and(|props| props.contains_key(name)) {
                let known: Vec<&str> = (properties.into_iter().flat_map(|props| props.keys()))
                    .map(String::as_str)
                    .collect();
                return Err(format!(
                    "property `{name}` is not in the server's requested schema (it has: {})",
                    if known.is_empty() {
                        "no properties".to_owned()
                    } else {
                        known.join(", ")
                    }
                ));
            }
        }
    }
    let compiled = JsonSchema::compile(schema)
        .map_err(|error| format!("the server's requested schema does not compile: {error}"))?;
    let violations = compiled.violations(content);
    if violations.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the content does not satisfy the server's requested schema:\n{}",
        describe_violations(&violations)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(action: ElicitationAction) -> UserRule {
        UserRule {
            key_path: "spec.elicitation.rules[0]".into(),
            server: None,
            tool: None,
            mode: None,
            message: None,
            properties: Vec::new(),
            action,
            content: None,
        }
    }

    fn asked<'a>(schema: Option<&'a Value>) -> Asked<'a> {
        Asked {
            server: "files",
            tool: Some("delete_file"),
            mode: ElicitationMode::Form,
            message: "Delete notes.txt?",
            schema,
        }
    }

    #[test]
    fn a_rule_matches_on_every_key_it_has() {
        let schema = json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}});
        let asked = asked(Some(&schema));
        assert!(rule(ElicitationAction::Decline).matches(&asked));
        let keyed = |edit: &dyn Fn(&mut UserRule)| {
            let mut rule = rule(ElicitationAction::Decline);
            edit(&mut rule);
            rule.matches(&asked)
        };
        assert!(keyed(&|r| r.server = Some("files".into())));
        assert!(!keyed(&|r| r.server = Some("other".into())));
        assert!(keyed(&|r| r.tool = Some("delete_file".into())));
        assert!(!keyed(&|r| r.tool = Some("read_file".into())));
        assert!(keyed(&|r| r.mode = Some(ElicitationMode::Form)));
        assert!(!keyed(&|r| r.mode = Some(ElicitationMode::Url)));
        assert!(keyed(&|r| r.message = Regex::new("(?i)^delete").ok()));
        assert!(!keyed(&|r| r.message = Regex::new("rename").ok()));
        assert!(keyed(&|r| r.properties = vec!["confirm".into()]));
        assert!(!keyed(&|r| r.properties = vec!["reason".into()]));
    }

    #[test]
    fn the_task_s_rules_come_first_and_its_unmatched_wins() {
        let task = ElicitationScript {
            rules: vec![rule(ElicitationAction::Accept)],
            unmatched: None,
        };
        let set = ElicitationScript {
            rules: vec![rule(ElicitationAction::Cancel)],
            unmatched: Some(Unmatched::Decline),
        };
        let user = ScriptedUser::of(Some(&task), [&set]).unwrap();
        assert!(matches!(
            user.decide(&asked(None)),
            UserDecision::Rule(UserRule {
                action: ElicitationAction::Accept,
                ..
            })
        ));
        assert_eq!(user.unmatched, Unmatched::Decline);
        assert!(ScriptedUser::of(None, []).is_none());
        let unmatched = ScriptedUser::of(None, [&ElicitationScript::default()]).unwrap();
        assert!(matches!(
            unmatched.decide(&asked(None)),
            UserDecision::Unmatched(Unmatched::Fail)
        ));
    }

    #[test]
    fn accepted_content_is_checked_against_the_requested_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean"},
                "reason": {"type": "string", "enum": ["old", "wrong"]}
            },
            "required": ["confirm"]
        });
        assert_eq!(check_content(&schema, &json!({"confirm": true})), Ok(()));
        let unknown = check_content(&schema, &json!({"confirm": true, "why": "x"})).unwrap_err();
        assert!(
            unknown.contains("`why`") && unknown.contains("confirm, reason"),
            "{unknown}"
        );
        let missing = check_content(&schema, &json!({"reason": "old"})).unwrap_err();
        assert!(missing.contains("confirm"), "{missing}");
        let wrong = check_content(&schema, &json!({"confirm": "yes"})).unwrap_err();
        assert!(wrong.contains("/confirm"), "{wrong}");
        let outside = check_content(&schema, &json!({"confirm": true, "reason": "x"}));
        assert!(outside.unwrap_err().contains("/reason"));
        let mut accept = rule(ElicitationAction::Accept);
        accept.content = json!({"confirm": true}).as_object().cloned();
        assert_eq!(
            accept.content_for(&asked(Some(&schema))),
            Ok(Some(json!({"confirm": true})))
        );
        assert_eq!(
            rule(ElicitationAction::Decline).content_for(&asked(Some(&schema))),
            Ok(None)
        );
    }
}
