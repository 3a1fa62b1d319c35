//! `elicitations` entries of an assertions block: which recorded elicitations an entry
//! matches ([`ElicitationMatcher`]), as written and validated.

use regex::Regex;
use serde::Deserialize;

use crate::config::files::check::Checker;
use crate::trace::{ElicitationAction, ElicitationMode, RecordedElicitation};

/// One `elicitations` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(in crate::config) struct RawElicitationMatcher {
    server: Option<String>,
    tool: Option<String>,
    tool_pattern: Option<String>,
    mode: Option<String>,
    message: Option<String>,
    action: Option<String>,
    turn: Option<i64>,
}

/// Which elicitations an `elicitations` entry matches: every key written must hold.
#[derive(Debug, Clone, Default)]
pub struct ElicitationMatcher {
    /// `server`: the server that asked.
    pub server: Option<String>,
    /// `tool`: the tool being called when it asked.
    pub tool: Option<String>,
    /// `toolPattern`: an unanchored regex over that tool's name.
    pub tool_pattern: Option<Regex>,
    /// `mode`: form or URL.
    pub mode: Option<ElicitationMode>,
    /// `message`: an unanchored regex over the message.
    pub message: Option<Regex>,
    /// `action`: the answer the server got.
    pub action: Option<ElicitationAction>,
    /// `turn`: only elicitations of this turn of the task's conversation.
    pub turn: Option<u32>,
}

impl ElicitationMatcher {
    /// Whether `elicitation` matches every key of the entry.
    pub fn matches(&self, elicitation: &RecordedElicitation) -> bool {
        let tool = elicitation.tool();
        self.server
            .as_deref()
            .is_none_or(|s| s == elicitation.server)
            && self.tool.as_deref().is_none_or(|t| Some(t) == tool)
            && (self.tool_pattern.as_ref()).is_none_or(|p| tool.is_some_and(|t| p.is_match(t)))
            && self.mode.is_none_or(|mode| mode == elicitation.mode)
            && (self.message.as_ref()).is_none_or(|p| p.is_match(&elicitation.message))
            && self
                .action
                .is_none_or(|action| Some(action) == elicitation.action)
            && self.turn.is_none_or(|turn| elicitation.turn == Some(turn))
    }

    /// `server=files tool=delete_file action=accept`, for messages (`any elicitation` when
    /// the entry has no key).
    pub fn describe(&self) -> String {
        let keys = [
            self.server.as_ref().map(|s| format!("server={s}")),
            self.tool.as_ref().map(|t| format!("tool={t}")),
            (self.tool_pattern.as_ref()).map(|p| format!("toolPattern={}", p.as_str())),
            self.mode.map(|m| format!("mode={}", m.as_str())),
            (self.message.as_ref()).map(|p| format!("message={}", p.as_str())),
            self.action.map(|a| format!("action={}", a.as_str())),
            self.turn.map(|turn| format!("turn={turn}")),
        ];
        let keys: Vec<String> = keys.into_iter().flatten().collect();
        if keys.is_empty() {
            "any elicitation".to_owned()
        } else {
            keys.join(" ")
        }
    }
}

impl RawElicitationMatcher {
    /// Validates the entry written at `path`.
    pub(in crate::config) fn validate(
        self,
        check: &mut Checker<'_>,
        path: &str,
        servers: Option<&[&str]>,
    ) -> Option<ElicitationMatcher> {
        let errors = check.error_count();
        if let Some(server) = &self.server {
            check.known_server(&format!("{path}.server"), server, servers);
        }
        let mode = (self.mode.as_deref())
            .filter(|name| check.one_of(&format!("{path}.mode"), name, &ElicitationMode::NAMES))
            .and_then(ElicitationMode::from_name);
        let action = (self.action.as_deref())
            .filter(|name| check.one_of(&format!("{path}.action"), name, &ElicitationAction::NAMES))
            .and_then(ElicitationAction::from_name);
        let tool_pattern =
            (self.tool_pattern).and_then(|p| check.regex(&format!("{path}.toolPattern"), &p));
        let message = (self.message).and_then(|p| check.regex(&format!("{path}.message"), &p));
        let turn = super::matchers::turn(check, path, self.turn);
        if check.error_count() > errors {
            return None;
        }
        Some(ElicitationMatcher {
            server: self.server,
            tool: self.tool,
            tool_pattern,
            mode,
            message,
            action,
            turn: turn.ok().flatten(),
        })
    }
}
