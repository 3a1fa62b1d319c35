//! Token counts of what the servers of a run put into the agent's context: each server's
//! tool definitions and each tool result, counted with OpenAI's `o200k_base` encoding
//! (tiktoken-rs). For other model families (Claude, Gemini) the count is an estimate: their
//! tokenizers differ, though not by much on JSON and English.
//!
//! What is counted, so that two runs compare:
//! - a tool definition is rendered as the tool APIs of Anthropic and OpenAI receive it:
//!   compact JSON `{"name":…,"description":…,"input_schema":…}`, in that order, the
//!   `inputSchema` as the server sent it, a missing description left out; `title`,
//!   `outputSchema` and `annotations` are not sent to the model and not counted. A server's
//!   definition tokens are the sum over the tools its `tools/list` answers advertised to the
//!   agent ([`Advertised`](crate::trace::Advertised)).
//! - a tool result is its text as the model receives it ([`result_text`]): the text of each
//!   `content` item (an embedded resource's text; any other item, an image too, as its JSON),
//!   or the `structuredContent` as JSON when there is no content. A JSON-RPC error counts its
//!   message. Resource reads and prompt gets are not counted, nor are answers the proxy
//!   injected (a task's `faults`): they are not the server's.
//!
//! The provider's own framing (its tool-use system prompt, message wrappers) is not counted,
//! nor is what the agent itself reported ([`crate::llm::TokenUsage`]): that is the whole
//! conversation's usage, a different figure.

use std::collections::BTreeMap;
use std::sync::Once;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tiktoken_rs::{CoreBPE, o200k_base_singleton};

use crate::trace::{CallKind, CallTrace, Outcome, RecordedCall, result_text};

/// The encoding every count here uses, as results files and reports name it.
pub const TOKENIZER: &str = "o200k_base";

/// The process-wide `o200k_base` tokenizer, built on first use (its ranks are embedded in
/// tiktoken-rs, nothing is downloaded; building takes ~0.2 s optimised, ~0.9 s in a plain
/// debug build, once per process).
fn tokenizer() -> &'static CoreBPE {
    o200k_base_singleton()
}

/// Starts building the tokenizer on a thread of its own (once per process), so that the
/// first count, when a run ends, need not wait for it.
pub fn warm_up() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        let _ = std::thread::Builder::new()
            .name("tokenizer".into())
            .spawn(tokenizer);
    });
}

/// The `o200k_base` tokens of `text`, special-token markers (`<|endoftext|>`) counted as
/// ordinary text.
pub fn count(text: &str) -> usize {
    tokenizer().count_ordinary(text)
}

/// One tool definition as the model's tool API receives it: compact JSON of `name`,
/// `description` (when there is one) and `input_schema` (see the module docs).
pub fn definition_text(tool: &Value) -> String {
    let mut rendered = Map::new();
    for (from, to) in [
        ("name", "name"),
        ("description", "description"),
        ("inputSchema", "input_schema"),
    ] {
        if let Some(value) = tool.get(from).filter(|value| !value.is_null()) {
            rendered.insert(to.to_owned(), value.clone());
        }
    }
    Value::Object(rendered).to_string()
}

/// The tokens of one tool definition ([`definition_text`]).
pub fn definition_tokens(tool: &Value) -> usize {
    count(&definition_text(tool))
}

/// The tokens of a tool call's result as the model receives it (see the module docs);
/// `None` for resource reads, prompt gets and answers the proxy injected (a task's
/// `faults`: not the server's output).
pub fn result_tokens(call: &RecordedCall) -> Option<usize> {
    if call.kind != CallKind::Tool || call.answer_injected() {
        return None;
    }
    Some(match &call.outcome {
        Outcome::Ok { result } | Outcome::IsError { result } => count(&result_text(result)),
        Outcome::Error { message, .. } => count(message),
    })
}

/// One server's token figures in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTokens {
    /// Tool definitions counted: the tools its `tools/list` answers advertised.
    pub tools: usize,
    /// Their tokens together.
    pub definition_tokens: usize,
    /// Tool calls of this server whose results were counted.
    pub tool_calls: usize,
    /// Their results' tokens together.
    pub result_tokens: usize,
    /// The tokens of its biggest result.
    pub biggest_result_tokens: usize,
}

/// The token figures of one run's trace, counted once: per server, and per call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceTokens {
    /// Per server that advertised tools or was called, by name.
    pub servers: BTreeMap<String, ServerTokens>,
    /// Per call of the trace, in its order: the result's tokens of a tool call, `None` for
    /// other calls.
    pub results: Vec<Option<usize>>,
}

impl TraceTokens {
    /// Counts the tool definitions and tool results of `trace`.
    pub fn of(trace: &CallTrace) -> Self {
        let mut servers: BTreeMap<String, ServerTokens> = BTreeMap::new();
        for (server, advertised) in &trace.advertised {
            if !advertised.tools.is_empty() {
                let figures = servers.entry(server.clone()).or_default();
                figures.tools = advertised.tools.len();
                figures.definition_tokens = advertised.tools.iter().map(definition_tokens).sum();
            }
        }
        let results: Vec<Option<usize>> = trace.calls.iter().map(result_tokens).collect();
        for (call, tokens) in trace.calls.iter().zip(&results) {
            if let Some(tokens) = *tokens {
                let figures = servers.entry(call.server.clone()).or_default();
                figures.tool_calls += 1;
                figures.result_tokens += tokens;
                figures.biggest_result_tokens = figures.biggest_result_tokens.max(tokens);
            }
        }
        TraceTokens { servers, results }
    }
}

/// `n` with a comma between each group of three digits: `1,234,567`.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `1 token`, `1,234 tokens`.
pub fn describe(tokens: usize) -> String {
    let plural = if tokens == 1 { "" } else { "s" };
    format!("{} token{plural}", grouped(tokens))
}

#[cfg(test)]
#[path = "tokens_tests.rs"]
mod tests;
