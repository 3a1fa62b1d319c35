//! The conversation of the llm-agent, whatever the provider: the prompt, the model's
//! turns (text and tool calls) and the tool results. The wire adapters (`wire/`) turn it
//! into each API's request and each API's reply into an [`AssistantTurn`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One item of the conversation, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Item {
    /// The user's message: the task's prompt (or a later turn's, in a conversation).
    User(String),
    /// One reply of the model.
    Assistant(AssistantTurn),
    /// The results of the tool calls of the reply before, in the same order.
    ToolResults(Vec<ToolResult>),
}

/// One reply of the model, as the loop reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantTurn {
    /// Its text (`None` when the reply had no text at all, which OpenAI sends as `null`).
    pub text: Option<String>,
    /// The tool calls it asks for, in order.
    pub calls: Vec<ToolCall>,
    /// The reply's own content (Anthropic's `content` blocks, Gemini's `parts`), sent back
    /// verbatim in later requests so that what the API needs returned (thinking blocks and
    /// their signatures, `thoughtSignature`) is; `Null` for OpenAI, whose message is rebuilt.
    pub raw: Value,
}

/// One tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Its id: the API's, else made up as `call_<turn>_<n>`.
    pub id: String,
    /// Whether the API gave the id (Gemini often does not; a made-up one is not sent back
    /// to it).
    pub id_from_api: bool,
    /// The function name.
    pub name: String,
    /// The arguments as the API sent them (a JSON string or an object).
    pub arguments: Value,
}

/// What one tool call gave, fed back to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The call's [`ToolCall::id`].
    pub call_id: String,
    /// Whether the call's id came from the API.
    pub id_from_api: bool,
    /// The function name of the call.
    pub name: String,
    /// The result as text (`Error: …` when it failed).
    pub text: String,
    /// The call failed: an `isError` result, a protocol error, an unknown tool or bad
    /// arguments.
    pub is_error: bool,
}
