//! OpenAI Chat Completions: `messages` with `tool_calls` and `role: tool` results, and the
//! tolerant reading of a reply. The request is exactly what the openai agent always sent
//! (`model`, `messages`, `tools` when there are any), so older cassettes still replay.

use serde_json::{Value, json};

use super::super::conversation::{AssistantTurn, Item, ToolCall};
use super::super::tools::OfferedTool;

pub(super) fn request(model: &str, tools: &[OfferedTool], conversation: &[Item]) -> Value {
    let mut messages = Vec::new();
    for item in conversation {
        match item {
            Item::User(text) => messages.push(json!({"role": "user", "content": text})),
            Item::Assistant(turn) => messages.push(message(turn)),
            Item::ToolResults(results) => messages.extend(results.iter().map(|result| {
                json!({"role": "tool", "tool_call_id": result.call_id, "content": result.text})
            })),
        }
    }
    let mut request = json!({"model": model, "messages": messages});
    if !tools.is_empty() {
        request["tools"] = tools.iter().map(function).collect();
    }
    request
}

/// A tool as an entry of the request's `tools`.
fn function(tool: &OfferedTool) -> Value {
    let mut function = json!({"name": tool.function});
    if let Some(description) = &tool.description {
        function["description"] = json!(description);
    }
    function["parameters"] = tool.parameters.clone();
    json!({"type": "function", "function": function})
}

/// The assistant message in the canonical form (`arguments` a string).
fn message(turn: &AssistantTurn) -> Value {
    let mut message = json!({"role": "assistant", "content": turn.text});
    if !turn.calls.is_empty() {
        let calls: Vec<Value> = turn
            .calls
            .iter()
            .map(|call| {
                let arguments = match &call.arguments {
                    Value::String(text) => text.clone(),
                    Value::Null => "{}".to_owned(),
                    other => other.to_string(),
                };
                json!({"id": call.id, "type": "function",
                       "function": {"name": call.name, "arguments": arguments}})
            })
            .collect();
        message["tool_calls"] = Value::Array(calls);
    }
    message
}

/// Reads the first choice's message of a reply.
pub(super) fn read_reply(reply: &Value, turn: u32) -> Result<AssistantTurn, String> {
    let choices = reply["choices"]
        .as_array()
        .ok_or("it has no `choices` array")?;
    let choice = choices.first().ok_or("its `choices` array is empty")?;
    let message = &choice["message"];
    if !message.is_object() {
        return Err("its first choice has no `message` object".into());
    }
    let text = match &message["content"] {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join(""),
        ),
        _ => None,
    };
    let mut calls = Vec::new();
    for (index, call) in message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = call["function"]["name"]
            .as_str()
            .ok_or_else(|| format!("tool call {} has no `function.name`", index + 1))?;
        let id = call["id"].as_str().filter(|id| !id.is_empty());
        calls.push(ToolCall {
            id: id.map_or_else(|| format!("call_{turn}_{}", index + 1), str::to_owned),
            id_from_api: id.is_some(),
            name: name.to_owned(),
            arguments: call["function"]["arguments"].clone(),
        });
    }
    Ok(AssistantTurn {
        text,
        calls,
        raw: Value::Null,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::llm_agent::conversation::ToolResult;

    #[test]
    fn replies_are_read_tolerantly() {
        let reply = json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"function": {"name": "echo", "arguments": {"text": "x"}}},
            {"id": "c2", "type": "function", "function": {"name": "echo", "arguments": "{}"}}
        ]}, "finish_reason": "something_new"}]});
        let turn = read_reply(&reply, 3).unwrap();
        assert_eq!(turn.text, None);
        assert_eq!(turn.calls[0].id, "call_3_1");
        assert_eq!(turn.calls[1].id, "c2");
        assert_eq!(
            message(&turn)["tool_calls"][0]["function"]["arguments"],
            r#"{"text":"x"}"#
        );
        assert!(
            read_reply(&json!({"id": "x"}), 1)
                .unwrap_err()
                .contains("choices")
        );
        assert!(
            read_reply(&json!({"choices": []}), 1)
                .unwrap_err()
                .contains("empty")
        );
    }

    #[test]
    fn the_conversation_is_messages_with_tool_messages() {
        let turn = read_reply(
            &json!({"choices": [{"message": {"content": null, "tool_calls": [
                {"id": "c1", "function": {"name": "echo", "arguments": "{\"text\":\"hi\"}"}}]}}]}),
            1,
        )
        .unwrap();
        let conversation = [
            Item::User("Do it.".into()),
            Item::Assistant(turn),
            Item::ToolResults(vec![ToolResult {
                call_id: "c1".into(),
                id_from_api: true,
                name: "echo".into(),
                text: "echo: hi".into(),
                is_error: false,
            }]),
        ];
        assert_eq!(
            request("m", &[], &conversation),
            json!({"model": "m", "messages": [
                {"role": "user", "content": "Do it."},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "echo", "arguments": "{\"text\":\"hi\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "echo: hi"}
            ]})
        );
    }
}
