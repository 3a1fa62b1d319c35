//! Sampling: a server asking the client's model for a completion
//! (`sampling/createMessage`) during a run, as the proxy recorded it, with who answered
//! and what.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{AnsweredBy, During};

/// One `sampling/createMessage` a server sent during the run (classically or in an input
/// round).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedSampling {
    /// The server's name in the MCP config.
    pub server: String,
    /// The texts of the request's messages, in order.
    pub messages: Vec<String>,
    /// The system prompt the server asked for, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The call in flight when the server asked, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub during: Option<During>,
    /// The turn of the task's conversation it came in, from 1 (absent outside one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// Who answered: the scripted model (the task's `sampling` rules) or the agent.
    pub answered_by: AnsweredBy,
    /// The key path of the rule that answered, e.g. `spec.sampling.rules[0]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The reply's text, when the server got one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// The model the reply named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `true` when the server got the user's refusal (`unmatched: decline`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub declined: bool,
    /// Why no rule answered (this fails the run when the scripted model was asked), or the
    /// agent's error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// When the proxy received it, from the start of the run.
    #[serde(with = "super::duration_ms")]
    pub start_offset: Duration,
}

impl RecordedSampling {
    /// The tool whose call the request came during, if it came during a tool call.
    pub fn tool(&self) -> Option<&str> {
        (self.during.as_ref())
            .filter(|during| during.kind == super::CallKind::Tool)
            .map(|during| during.name.as_str())
    }
}
