//! Elicitations: a server asking the user back (`elicitation/create`) during a run, as the
//! proxy recorded them, with who answered and how.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::CallKind;

/// One `elicitation/create` a server sent during the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedElicitation {
    /// The server's name in the MCP config.
    pub server: String,
    /// Form or URL.
    pub mode: ElicitationMode,
    /// The message shown to the user.
    pub message: String,
    /// The schema of the form (form mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// The page the user is sent to (URL mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The call in flight when the server asked, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub during: Option<During>,
    /// The turn of the task's conversation it came in, from 1 (absent outside one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// Who answered: the scripted user or the agent.
    pub answered_by: AnsweredBy,
    /// The key path of the scripted user's rule that answered, e.g.
    /// `spec.elicitation.rules[0]`; absent when no rule did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The answer the server got; absent when it got an error or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<ElicitationAction>,
    /// What an `accept` filled in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Value>,
    /// The fault a `faults` rule on `elicitation/create` made of it: the user declined,
    /// cancelled or never answered whatever the task's rules say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injected: Option<super::Injected>,
    /// Why the scripted user could not answer as the task wants (no rule matched, content
    /// the requested schema refuses), or the agent's error: this fails the run when the
    /// scripted user answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// When the proxy received it, from the start of the run.
    #[serde(with = "super::duration_ms")]
    pub start_offset: Duration,
}

impl RecordedElicitation {
    /// The tool whose call the elicitation came during, if it came during a tool call.
    pub fn tool(&self) -> Option<&str> {
        (self.during.as_ref())
            .filter(|during| during.kind == CallKind::Tool)
            .map(|during| during.name.as_str())
    }
}

/// The call an elicitation came during.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct During {
    /// What was being called.
    pub kind: CallKind,
    /// The tool name, the resource URI or the prompt name.
    pub name: String,
    /// Its position among the trace's `calls`, from 1 (as a results file's `position`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<usize>,
}

/// The two kinds of elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ElicitationMode {
    /// `form`: fields to fill in, described by a schema.
    Form,
    /// `url`: a page to visit.
    Url,
}

impl ElicitationMode {
    /// The values, as written.
    pub const NAMES: [&'static str; 2] = ["form", "url"];

    /// `form` or `url`.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitationMode::Form => "form",
            ElicitationMode::Url => "url",
        }
    }

    /// The mode named `name`, as written.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "form" => Some(ElicitationMode::Form),
            "url" => Some(ElicitationMode::Url),
            _ => None,
        }
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ElicitationAction {
    /// `accept`: the form filled in (or the page visited).
    Accept,
    /// `decline`: no, but go on.
    Decline,
    /// `cancel`: dismissed.
    Cancel,
}

impl ElicitationAction {
    /// The values, as written.
    pub const NAMES: [&'static str; 3] = ["accept", "decline", "cancel"];

    /// `accept`, `decline` or `cancel`.
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitationAction::Accept => "accept",
            ElicitationAction::Decline => "decline",
            ElicitationAction::Cancel => "cancel",
        }
    }

    /// The action named `name`, as written.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "accept" => Some(ElicitationAction::Accept),
            "decline" => Some(ElicitationAction::Decline),
            "cancel" => Some(ElicitationAction::Cancel),
            _ => None,
        }
    }
}

/// Who answered an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AnsweredBy {
    /// The task's scripted user (its `elicitation` rules).
    Script,
    /// The agent, as the proxy relayed it.
    Agent,
}
