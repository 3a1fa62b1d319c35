//! The recorded calls of one task run, as data.
//!
//! The recording proxy fills a [`CallTrace`]; assertions, snapshots and verify scripts read
//! it (verify scripts as a JSON file, see [`CallTrace::to_json_pretty`]). Field names are
//! camelCase in JSON. Nothing secret is in a trace: no request headers and no configured
//! header or environment values, only what the agent sent and the server answered.
//!
//! Arguments and results pass through rmcp's typed model on their way: fields the model
//! does not know are dropped, integers written as floats may come back as `1.0`, and key
//! order is kept.

mod advertised;
mod elicitation;
mod sampling;

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use advertised::Advertised;
pub use elicitation::{
    AnsweredBy, During, ElicitationAction, ElicitationMode, RecordedElicitation,
};
pub use sampling::RecordedSampling;

/// Everything the proxies of one task run recorded, in the order they received it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallTrace {
    /// Tool calls, resource reads and prompt gets, in the order the proxies received them
    /// (across all servers of the run).
    pub calls: Vec<RecordedCall>,
    /// List calls (`tools/list`, `resources/list`, …), in the order received.
    #[serde(default)]
    pub discovery: Vec<DiscoveryEvent>,
    /// What each server advertised in its list answers, by server name (absent from the
    /// JSON when nothing was listed).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub advertised: BTreeMap<String, Advertised>,
    /// The servers' `elicitation/create` requests, in the order received (absent from the
    /// JSON when there were none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elicitations: Vec<RecordedElicitation>,
    /// The servers' `sampling/createMessage` requests, in the order received (absent from
    /// the JSON when there were none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sampling: Vec<RecordedSampling>,
}

impl CallTrace {
    /// The trace as pretty-printed JSON, the format verify scripts read.
    pub fn to_json_pretty(&self) -> String {
        // Serialising plain data with string keys cannot fail; fall back to an empty trace
        // rather than panic should that ever change.
        serde_json::to_string_pretty(self)
            .unwrap_or_else(|_| String::from("{\"calls\":[],\"discovery\":[]}"))
    }

    /// Tool calls that ended in an error: an `isError` result or a JSON-RPC error. Errors
    /// the proxy injected (a task's `faults`) are not the server's and are not counted.
    pub fn tool_errors(&self) -> usize {
        self.calls
            .iter()
            .filter(|call| call.kind == CallKind::Tool && call.outcome.is_tool_error())
            .filter(|call| !call.answer_injected())
            .count()
    }

    /// The calls whose answer came from the server: those without an injected answer (a
    /// delayed call's answer is the server's). What coverage and schema checks read.
    pub fn served_calls(&self) -> impl Iterator<Item = &RecordedCall> {
        self.calls.iter().filter(|call| !call.answer_injected())
    }

    /// The part of the trace made in `turn` of the task's conversation: its calls, the
    /// elicitations and sampling requests that came in it (their positions among its
    /// calls), and everything listed and advertised.
    pub fn of_turn(&self, turn: u32) -> CallTrace {
        let kept: Vec<usize> = (self.calls.iter().enumerate())
            .filter(|(_, call)| call.turn == Some(turn))
            .map(|(i, _)| i + 1)
            .collect();
        // Whether a request stamped `asked_in` (or, unstamped, during `during`) came in the
        // turn, and its `during` renumbered among the turn's calls.
        let renumbered = |asked_in: Option<u32>, during: &Option<During>| {
            let at =
                (during.as_ref()).and_then(|d| kept.iter().position(|&p| Some(p) == d.position));
            let in_turn = match asked_in {
                Some(asked_in) => asked_in == turn,
                None => at.is_some(),
            };
            let during = during.as_ref().map(|during| During {
                position: at.map(|at| at + 1),
                ..during.clone()
            });
            in_turn.then_some(during)
        };
        CallTrace {
            calls: (self.calls.iter())
                .filter(|call| call.turn == Some(turn))
                .cloned()
                .collect(),
            discovery: self.discovery.clone(),
            advertised: self.advertised.clone(),
            elicitations: (self.elicitations.iter())
                .filter_map(|e| {
                    renumbered(e.turn, &e.during).map(|during| RecordedElicitation {
                        during,
                        ..e.clone()
                    })
                })
                .collect(),
            sampling: (self.sampling.iter())
                .filter_map(|s| {
                    renumbered(s.turn, &s.during).map(|during| RecordedSampling {
                        during,
                        ..s.clone()
                    })
                })
                .collect(),
        }
    }

    /// The recorded calls of one server, in order.
    pub fn calls_of<'a>(&'a self, server: &'a str) -> impl Iterator<Item = &'a RecordedCall> {
        self.calls.iter().filter(move |call| call.server == server)
    }
}

/// One `tools/call`, `resources/read` or `prompts/get` as the proxy saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedCall {
    /// The server's name in the MCP config.
    pub server: String,
    /// What was called.
    pub kind: CallKind,
    /// The tool name, the resource URI or the prompt name.
    pub name: String,
    /// The arguments the agent sent (tool and prompt arguments); `None` when it sent none
    /// and for resource reads.
    pub arguments: Option<serde_json::Value>,
    /// How the call ended.
    pub outcome: Outcome,
    /// When the proxy received the call, from the start of the run.
    #[serde(with = "duration_ms")]
    pub start_offset: Duration,
    /// How long the server took to answer (or the call took to fail).
    #[serde(with = "duration_ms")]
    pub duration: Duration,
    /// The fault the proxy injected into this call, if any (a task's `faults` rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injected: Option<Injected>,
    /// The input rounds the proxy fulfilled before the server answered for good (a
    /// 2026-07-28 server's `InputRequiredResult`s), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<InputRound>,
    /// The statuses of the task the server answered the call with (the 2026-07-28 Tasks
    /// extension), as the proxy followed it to the result the call records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub task: Vec<TaskStatusStep>,
    /// The turn of the task's conversation the call was made in, from 1 (absent for a task
    /// of one turn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
}

/// One status of a task a call was answered with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusStep {
    /// The task's id.
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// The server's status message, or the proxy's note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One `InputRequiredResult` a server answered a call with, which the proxy fulfilled and
/// retried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRound {
    /// What it asked for: each input request's key and its method (`elicitation/create`,
    /// `roots/list`, `sampling/createMessage`).
    pub asked: BTreeMap<String, String>,
    /// The request state the retry echoed, if the server sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl RecordedCall {
    /// Whether the agent's answer was made by the proxy (a fault) rather than the server.
    pub fn answer_injected(&self) -> bool {
        self.injected
            .as_ref()
            .is_some_and(Injected::replaces_answer)
    }
}

/// A fault the proxy injected on purpose, as the trace records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Injected {
    /// What it was.
    pub fault: FaultKind,
    /// The key path of the rule that injected it, e.g. `config.taskSets[0].faults[1]` or
    /// `spec.faults[0]` (in the task file).
    pub rule: String,
}

impl Injected {
    /// Whether the answer the agent got is the proxy's, not the server's: every fault but
    /// a delay (the server's answer, late) and a tool-list change (the call itself is
    /// answered by the server).
    pub fn replaces_answer(&self) -> bool {
        !matches!(self.fault, FaultKind::Delay | FaultKind::ToolsChanged)
    }
}

impl std::fmt::Display for Injected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "injected {} ({})", self.fault, self.rule)
    }
}

/// The kinds of fault a task's `faults` rules inject, named as the rules write them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FaultKind {
    /// `error`: a JSON-RPC error.
    Error,
    /// `toolError`: a tool result with `isError: true`.
    ToolError,
    /// `delay`: the server's answer, late.
    Delay,
    /// `timeout`: no answer at all.
    Timeout,
    /// `disconnect`: the agent's session ended, its HTTP connection closed.
    Disconnect,
    /// `malformed`: an HTTP 200 whose body is not JSON-RPC.
    Malformed,
    /// `replace`: a result of the task's own.
    Replace,
    /// `toolsChanged`: the server's tool list changed after this call.
    ToolsChanged,
    /// A call of a tool that a `toolsChanged` rule removed: answered "unknown tool".
    RemovedTool,
    /// `decline`: a server's elicitation declined on the user's behalf.
    Decline,
    /// `cancel`: a server's elicitation dismissed on the user's behalf.
    Cancel,
}

impl FaultKind {
    /// The name as rules write it (`toolError`).
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::Error => "error",
            FaultKind::ToolError => "toolError",
            FaultKind::Delay => "delay",
            FaultKind::Timeout => "timeout",
            FaultKind::Disconnect => "disconnect",
            FaultKind::Malformed => "malformed",
            FaultKind::Replace => "replace",
            FaultKind::ToolsChanged => "toolsChanged",
            FaultKind::RemovedTool => "removedTool",
            FaultKind::Decline => "decline",
            FaultKind::Cancel => "cancel",
        }
    }
}

impl std::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kind of a recorded call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CallKind {
    /// `tools/call`.
    Tool,
    /// `resources/read`.
    Resource,
    /// `prompts/get`.
    Prompt,
}

/// How a recorded call ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum Outcome {
    /// The server answered with a result (for tools: without `isError: true`).
    Ok {
        /// The result as the agent received it.
        result: serde_json::Value,
    },
    /// The tool ran and reported a failure: a result with `isError: true`.
    IsError {
        /// The result as the agent received it.
        result: serde_json::Value,
    },
    /// A JSON-RPC error: from the server, or from the proxy when the server could not be
    /// reached, exited or the agent cancelled the call.
    Error {
        /// The JSON-RPC error code.
        code: i32,
        /// The error message.
        message: String,
    },
}

impl Outcome {
    /// The call failed: an `isError` result or a JSON-RPC error (what `maxToolErrors`
    /// counts for tool calls).
    pub fn is_tool_error(&self) -> bool {
        !matches!(self, Outcome::Ok { .. })
    }

    /// A short word for the outcome: `ok`, `is_error` or `error`.
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Ok { .. } => "ok",
            Outcome::IsError { .. } => "is_error",
            Outcome::Error { .. } => "error",
        }
    }
}

/// One list call (`tools/list`, `resources/list`, `resources/templates/list`,
/// `prompts/list`): how the agent discovered what a server offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveryEvent {
    /// The server's name in the MCP config.
    pub server: String,
    /// Which list was asked for.
    pub list: ListKind,
    /// The pagination cursor the agent sent, if any.
    pub cursor: Option<String>,
    /// How many items the page held, or `None` when the call failed.
    pub items: Option<usize>,
    /// The JSON-RPC error message when the call failed.
    pub error: Option<String>,
    /// When the proxy received the call, from the start of the run.
    #[serde(with = "duration_ms")]
    pub start_offset: Duration,
    /// How long the server took to answer.
    #[serde(with = "duration_ms")]
    pub duration: Duration,
    /// The fault the proxy injected into this list call, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injected: Option<Injected>,
}

/// Which list a [`DiscoveryEvent`] asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ListKind {
    /// `tools/list`.
    Tools,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `prompts/list`.
    Prompts,
}

/// Durations as fractional milliseconds in JSON (`12.5`), readable by scripts.
mod duration_ms {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(value.as_secs_f64() * 1000.0)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        let millis = f64::deserialize(deserializer)?;
        Duration::try_from_secs_f64(millis / 1000.0).map_err(serde::de::Error::custom)
    }
}

/// The text of an MCP result, its parts in order joined by newlines: each `content` item's
/// text (an embedded resource's text; any other item as its JSON), each `contents[].text`
/// of a resource read, each `messages[].content.text` of a prompt, and the
/// `structuredContent` as JSON when there is no content. The whole result as JSON when it
/// has none of these.
pub fn result_text(result: &Value) -> String {
    let mut parts = Vec::new();
    for item in result["content"].as_array().into_iter().flatten() {
        match (item["text"].as_str(), item["resource"]["text"].as_str()) {
            (Some(text), _) | (None, Some(text)) => parts.push(text.to_owned()),
            (None, None) => parts.push(item.to_string()),
        }
    }
    if parts.is_empty() && !result["structuredContent"].is_null() {
        parts.push(result["structuredContent"].to_string());
    }
    let contents = result["contents"].as_array().into_iter().flatten();
    parts.extend(contents.filter_map(|item| item["text"].as_str().map(str::to_owned)));
    let messages = result["messages"].as_array().into_iter().flatten();
    parts.extend(messages.filter_map(|m| m["content"]["text"].as_str().map(str::to_owned)));
    if parts.is_empty() {
        result.to_string()
    } else {
        parts.join("\n")
    }
}

#[cfg(test)]
mod tests;

/// One call of the agent's own tools (not an MCP call): what skill assertions look at.
/// Claude Code reports these in its stream-json output as `tool_use` blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentToolCall {
    /// The tool's name, e.g. `Skill`.
    pub name: String,
    /// Its input as the agent sent it.
    pub input: Value,
}
