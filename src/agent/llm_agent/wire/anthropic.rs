//! Anthropic Messages: `messages` whose assistant turns are the reply's `content` blocks
//! sent back verbatim (`tool_use`, and thinking blocks with their signatures), tool results
//! as `tool_result` blocks of a user message, and `max_tokens`, which the API requires.

use serde_json::{Value, json};

use super::super::conversation::{AssistantTurn, Item, ToolCall};
use super::super::tools::OfferedTool;
use crate::llm::TokenUsage;

pub(super) fn request(
    model: &str,
    max_tokens: u32,
    tools: &[OfferedTool],
    conversation: &[Item],
) -> Value {
    let messages: Vec<Value> = conversation
        .iter()
        .map(|item| match item {
            Item::User(text) => json!({"role": "user", "content": text}),
            Item::Assistant(turn) => json!({"role": "assistant", "content": turn.raw}),
            Item::ToolResults(results) => {
                let blocks: Vec<Value> = results
                    .iter()
                    .map(|result| {
                        let mut block = json!({"type": "tool_result",
                            "tool_use_id": result.call_id, "content": result.text});
                        if result.is_error {
                            block["is_error"] = json!(true);
                        }
                        block
                    })
                    .collect();
                json!({"role": "user", "content": blocks})
            }
        })
        .collect();
    let mut request = json!({"model": model, "max_tokens": max_tokens, "messages": messages});
    if !tools.is_empty() {
        request["tools"] = tools.iter().map(tool).collect();
    }
    request
}

fn tool(tool: &OfferedTool) -> Value {
    let mut entry = json!({"name": tool.function});
    if let Some(description) = &tool.description {
        entry["description"] = json!(description);
    }
    entry["input_schema"] = tool.parameters.clone();
    entry
}

/// Reads a Messages reply: its text blocks joined, its `tool_use` blocks in order.
pub(super) fn read_reply(reply: &Value, turn: u32) -> Result<AssistantTurn, String> {
    let blocks = reply["content"]
        .as_array()
        .ok_or("it has no `content` array")?;
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        match block["type"].as_str() {
            Some("text") => texts.extend(block["text"].as_str()),
            Some("tool_use") => {
                let name = block["name"]
                    .as_str()
                    .ok_or_else(|| format!("content block {} has no `name`", index + 1))?;
                let id = block["id"].as_str().filter(|id| !id.is_empty());
                calls.push(ToolCall {
                    id: id
                        .map_or_else(|| format!("call_{turn}_{}", calls.len() + 1), str::to_owned),
                    id_from_api: id.is_some(),
                    name: name.to_owned(),
                    arguments: block["input"].clone(),
                });
            }
            // Thinking, redacted thinking and whatever comes next: sent back as they are.
            _ => {}
        }
    }
    Ok(AssistantTurn {
        text: (!texts.is_empty()).then(|| texts.concat()),
        calls,
        raw: Value::Array(blocks.clone()),
    })
}

/// `usage`: input tokens (cache writes and reads included) and output tokens.
pub(super) fn usage(reply: &Value) -> TokenUsage {
    let usage = &reply["usage"];
    let count = |key: &str| usage[key].as_u64().unwrap_or(0);
    let prompt = count("input_tokens")
        + count("cache_creation_input_tokens")
        + count("cache_read_input_tokens");
    TokenUsage::new(prompt, count("output_tokens"), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::llm_agent::conversation::ToolResult;

    fn echo() -> OfferedTool {
        OfferedTool {
            function: "echo".into(),
            server: "s".into(),
            server_index: 0,
            tool: "echo".into(),
            description: Some("Echoes".into()),
            parameters: json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        }
    }

    #[test]
    fn tool_use_blocks_are_calls_and_the_content_goes_back_verbatim() {
        let thinking = json!({"type": "thinking", "thinking": "hm", "signature": "sig=="});
        let reply = json!({"content": [thinking,
            {"type": "text", "text": "Let me echo."},
            {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"text": "hi"}}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 5, "output_tokens": 3}});
        let turn = read_reply(&reply, 1).unwrap();
        assert_eq!(turn.text.as_deref(), Some("Let me echo."));
        assert_eq!(turn.calls[0].id, "toolu_1");
        assert_eq!(turn.calls[0].arguments, json!({"text": "hi"}));
        assert_eq!(usage(&reply), TokenUsage::new(15, 3, None));
        let conversation = [
            Item::User("Do it.".into()),
            Item::Assistant(turn),
            Item::ToolResults(vec![ToolResult {
                call_id: "toolu_1".into(),
                id_from_api: true,
                name: "echo".into(),
                text: "Error: boom".into(),
                is_error: true,
            }]),
        ];
        let body = request("claude-test", 4096, &[echo()], &conversation);
        assert_eq!(body["max_tokens"], 4096);
        assert_eq!(body["messages"][1]["content"], reply["content"]);
        assert_eq!(
            body["messages"][2],
            json!({"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "toolu_1", "content": "Error: boom", "is_error": true}]})
        );
        assert_eq!(
            body["tools"][0],
            json!({"name": "echo", "description": "Echoes",
                "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}}})
        );
    }

    #[test]
    fn a_reply_without_content_is_malformed() {
        let error = read_reply(&json!({"type": "message"}), 1).unwrap_err();
        assert!(error.contains("`content`"), "{error}");
        let error = read_reply(&json!({"content": [{"type": "tool_use"}]}), 1).unwrap_err();
        assert!(error.contains("no `name`"), "{error}");
    }
}
