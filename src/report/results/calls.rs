//! What the proxies recorded of a run: the MCP calls by kind and the servers' elicitations
//! and sampling requests (`callHistory`), and what the
//! LLM proxies did with their cassettes (`llmCalls`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The recorded calls by kind, in order. No request headers, no credentials.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallHistory {
    /// `tools/call`s.
    pub tool_calls: Vec<CallRecord>,
    /// `resources/read`s.
    pub resource_reads: Vec<CallRecord>,
    /// `prompts/get`s.
    pub prompt_gets: Vec<CallRecord>,
    /// The servers' `elicitation/create` requests, who answered and how (absent when there
    /// were none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elicitations: Vec<crate::trace::RecordedElicitation>,
    /// The servers' `sampling/createMessage` requests, who answered and with what (absent
    /// when there were none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sampling: Vec<crate::trace::RecordedSampling>,
}

/// One recorded call.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRecord {
    /// The server's name.
    pub server_name: String,
    /// Tool name, resource URI or prompt name.
    pub name: String,
    /// Its position among all calls of the run, from 1.
    pub position: usize,
    /// The arguments.
    pub arguments: Option<Value>,
    /// `ok`, `is_error` or `error`.
    pub outcome: String,
    /// The result (or error) as the agent received it.
    pub result: Value,
    /// When it started, from the start of the run, in milliseconds.
    pub start_offset_ms: f64,
    /// How long it took, in milliseconds.
    pub duration_ms: f64,
    /// The o200k_base tokens of a tool call's result as the model receives it (absent for
    /// resource reads, prompt gets and results files written before it was counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_tokens: Option<usize>,
    /// The fault the proxy injected into the call (a `faults` rule), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injected: Option<crate::trace::Injected>,
    /// The input rounds the proxy fulfilled before the server's final answer (a 2026-07-28
    /// server's `InputRequiredResult`s).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<crate::trace::InputRound>,
    /// The statuses of the task the server answered the call with, as the proxy followed
    /// it to the result recorded here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub task: Vec<crate::trace::TaskStatusStep>,
    /// The turn of the task's conversation it was made in, from 1 (absent for a task of one
    /// turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
}

#[cfg(test)]
impl CallRecord {
    /// For tests: call #1 of `name` on `server`, which succeeded, with no arguments,
    /// result, times or tokens.
    pub(crate) fn succeeded(server: &str, name: &str) -> Self {
        CallRecord {
            server_name: server.into(),
            name: name.into(),
            position: 1,
            arguments: None,
            outcome: "ok".into(),
            result: Value::Null,
            start_offset_ms: 0.0,
            duration_ms: 0.0,
            result_tokens: None,
            injected: None,
            rounds: Vec::new(),
            task: Vec::new(),
            turn: None,
        }
    }
}

impl CallRecord {
    /// Whether the answer was made by the proxy (a task's `faults`) rather than the server,
    /// as [`RecordedCall::answer_injected`](crate::trace::RecordedCall::answer_injected).
    pub fn answer_injected(&self) -> bool {
        (self.injected.as_ref()).is_some_and(crate::trace::Injected::replaces_answer)
    }
}

/// What one LLM proxy of a run did with its cassette.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmCalls {
    /// `agent` or `judge`.
    pub who: String,
    /// The API: `anthropic`, `openai-chat`, `openai-responses` or `gemini`.
    pub api: String,
    /// The mode asked for: `once`, `none`, `new_episodes`, `all` or `passthrough`.
    pub mode: String,
    /// What the run did: `replayed`, `recorded`, `extended` or `live`.
    pub used: String,
    /// The cassette read or written.
    pub cassette: String,
    /// Calls answered from the cassette.
    pub replayed: usize,
    /// Calls answered live and recorded.
    pub recorded: usize,
    /// Calls answered live, not recorded.
    pub passed_through: usize,
    /// When each call of the cassette was asked, and how long a live answer took (absent
    /// when no call is in the cassette, and in older results files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<LlmTurnTime>,
    /// What the answered calls used per model, and what that cost (absent when no answer
    /// said; a replayed call's figures are what it used when recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<crate::llm::pricing::PricedUsage>,
}

/// When one model call of a cassette was made during the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmTurnTime {
    /// Its number in the cassette, from 1.
    pub seq: usize,
    /// When the agent asked, from the start of the run.
    pub start_offset_ms: f64,
    /// How long the live answer took, to its last byte; absent when it was replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
}
