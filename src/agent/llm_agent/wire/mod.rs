//! The wire adapters of the llm-agent: the provider-neutral conversation as each API's
//! request, and each API's reply as an [`AssistantTurn`] with its token usage.
//!
//! | provider | request | tool calls | tool results |
//! |---|---|---|---|
//! | `openai` | Chat Completions `messages`, `tools[].function` | `tool_calls` | `role: tool` messages |
//! | `anthropic` | Messages `messages`, `tools[].input_schema`, `max_tokens` | `tool_use` blocks | `tool_result` blocks |
//! | `gemini` | `contents`, `tools[].functionDeclarations` | `functionCall` parts | `functionResponse` parts |

mod anthropic;
mod gemini;
mod gemini_schema;
mod openai_chat;

use serde_json::Value;

use gemini_schema::gemini_schema;

use super::conversation::{AssistantTurn, Item};
use super::tools::OfferedTool;
use crate::llm::{Provider, TokenUsage};

/// The request of the next turn: `conversation` so far, offering `tools` to `model`.
pub(super) fn request(
    provider: Provider,
    model: &str,
    max_tokens: u32,
    tools: &[OfferedTool],
    conversation: &[Item],
) -> Value {
    match provider {
        Provider::OpenAi => openai_chat::request(model, tools, conversation),
        Provider::Anthropic => anthropic::request(model, max_tokens, tools, conversation),
        Provider::Gemini => gemini::request(tools, conversation),
    }
}

/// The model's turn in `reply`; what is wrong with the reply when it has none. `turn`
/// numbers made-up call ids.
pub(super) fn read_reply(
    provider: Provider,
    reply: &Value,
    turn: u32,
) -> Result<AssistantTurn, String> {
    match provider {
        Provider::OpenAi => openai_chat::read_reply(reply, turn),
        Provider::Anthropic => anthropic::read_reply(reply, turn),
        Provider::Gemini => gemini::read_reply(reply, turn),
    }
}

/// The tokens `reply` says it used (none when it does not say).
pub(super) fn usage(provider: Provider, reply: &Value) -> TokenUsage {
    match provider {
        Provider::OpenAi => {
            let mut usage = TokenUsage::default();
            usage.add_reply(reply);
            usage
        }
        Provider::Anthropic => anthropic::usage(reply),
        Provider::Gemini => gemini::usage(reply),
    }
}
