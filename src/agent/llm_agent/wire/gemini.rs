//! Gemini `generateContent`: `contents` whose model turns are the reply's `parts` sent
//! back verbatim (`thoughtSignature` included), tools as `functionDeclarations` with their
//! schemas cut to what the API accepts ([`super::gemini_schema`]), results as
//! `functionResponse` parts.

use serde_json::{Value, json};

use super::super::conversation::{AssistantTurn, Item, ToolCall};
use super::super::tools::OfferedTool;
use super::gemini_schema;
use crate::llm::TokenUsage;

pub(super) fn request(tools: &[OfferedTool], conversation: &[Item]) -> Value {
    let contents: Vec<Value> = conversation
        .iter()
        .map(|item| match item {
            Item::User(text) => json!({"role": "user", "parts": [{"text": text}]}),
            Item::Assistant(turn) => json!({"role": "model", "parts": turn.raw}),
            Item::ToolResults(results) => {
                let parts: Vec<Value> = results
                    .iter()
                    .map(|result| {
                        let response = if result.is_error {
                            json!({"error": result.text})
                        } else {
                            json!({"result": result.text})
                        };
                        let mut part = json!({"name": result.name, "response": response});
                        if result.id_from_api {
                            part["id"] = json!(result.call_id);
                        }
                        json!({"functionResponse": part})
                    })
                    .collect();
                json!({"role": "user", "parts": parts})
            }
        })
        .collect();
    let mut request = json!({"contents": contents});
    if !tools.is_empty() {
        let declarations: Vec<Value> = tools.iter().map(declaration).collect();
        request["tools"] = json!([{"functionDeclarations": declarations}]);
    }
    request
}

/// A tool as a function declaration; one without parameters is declared without them (the
/// API refuses an object schema with no properties).
fn declaration(tool: &OfferedTool) -> Value {
    let mut entry = json!({"name": tool.function});
    if let Some(description) = &tool.description {
        entry["description"] = json!(description);
    }
    let parameters = gemini_schema(&tool.parameters);
    if parameters["properties"]
        .as_object()
        .is_some_and(|properties| !properties.is_empty())
    {
        entry["parameters"] = parameters;
    }
    entry
}

/// Reads the first candidate: its text parts (not thoughts) joined, its `functionCall`
/// parts in order.
pub(super) fn read_reply(reply: &Value, turn: u32) -> Result<AssistantTurn, String> {
    let Some(candidate) = reply["candidates"].as_array().and_then(|c| c.first()) else {
        return Err(match reply["promptFeedback"]["blockReason"].as_str() {
            Some(reason) => format!("it has no candidates: the prompt was blocked ({reason})"),
            None => "it has no `candidates`".to_owned(),
        });
    };
    let Some(parts) = candidate["content"]["parts"].as_array() else {
        let finish = candidate["finishReason"].as_str().unwrap_or("none given");
        return Err(format!(
            "its first candidate has no content parts (finishReason {finish})"
        ));
    };
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        if let Some(text) = part["text"].as_str()
            && part["thought"] != true
        {
            texts.push(text);
        }
        if let Some(call) = part.get("functionCall") {
            let name = call["name"]
                .as_str()
                .ok_or_else(|| format!("part {} has a `functionCall` without `name`", index + 1))?;
            let id = call["id"].as_str().filter(|id| !id.is_empty());
            calls.push(ToolCall {
                id: id.map_or_else(|| format!("call_{turn}_{}", calls.len() + 1), str::to_owned),
                id_from_api: id.is_some(),
                name: name.to_owned(),
                arguments: call["args"].clone(),
            });
        }
    }
    Ok(AssistantTurn {
        text: (!texts.is_empty()).then(|| texts.concat()),
        calls,
        raw: Value::Array(parts.clone()),
    })
}

/// `usageMetadata`: prompt tokens, candidate tokens (thoughts included) and the total.
pub(super) fn usage(reply: &Value) -> TokenUsage {
    let usage = &reply["usageMetadata"];
    let count = |key: &str| usage[key].as_u64().unwrap_or(0);
    let completion = count("candidatesTokenCount") + count("thoughtsTokenCount");
    TokenUsage::new(
        count("promptTokenCount"),
        completion,
        usage["totalTokenCount"].as_u64(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::llm_agent::conversation::ToolResult;

    fn tool(function: &str, parameters: Value) -> OfferedTool {
        OfferedTool {
            function: function.into(),
            server: "s".into(),
            server_index: 0,
            tool: function.into(),
            description: None,
            parameters,
        }
    }

    #[test]
    fn function_calls_are_read_and_parts_go_back_verbatim() {
        let reply = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "thinking…", "thought": true},
            {"functionCall": {"name": "add", "args": {"a": 1}}, "thoughtSignature": "CiQ=="},
            {"functionCall": {"name": "echo", "id": "fc-2", "args": {"text": "x"}}}]},
            "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 4,
                              "thoughtsTokenCount": 2, "totalTokenCount": 16}});
        let turn = read_reply(&reply, 2).unwrap();
        assert_eq!(turn.text, None);
        let ids: Vec<(&str, bool)> = turn
            .calls
            .iter()
            .map(|c| (c.id.as_str(), c.id_from_api))
            .collect();
        assert_eq!(ids, [("call_2_1", false), ("fc-2", true)]);
        assert_eq!(usage(&reply), TokenUsage::new(10, 6, Some(16)));
        let result = |call: &ToolCall, text: &str, is_error| ToolResult {
            call_id: call.id.clone(),
            id_from_api: call.id_from_api,
            name: call.name.clone(),
            text: text.into(),
            is_error,
        };
        let results = vec![
            result(&turn.calls[0], "1", false),
            result(&turn.calls[1], "Error: no", true),
        ];
        let conversation = [
            Item::User("Go.".into()),
            Item::Assistant(turn),
            Item::ToolResults(results),
        ];
        let body = request(&[], &conversation);
        assert_eq!(
            body["contents"][0],
            json!({"role": "user", "parts": [{"text": "Go."}]})
        );
        assert_eq!(
            body["contents"][1]["parts"],
            reply["candidates"][0]["content"]["parts"]
        );
        assert_eq!(
            body["contents"][2]["parts"],
            json!([{"functionResponse": {"name": "add", "response": {"result": "1"}}},
                   {"functionResponse": {"name": "echo", "response": {"error": "Error: no"}, "id": "fc-2"}}])
        );
        assert!(body.get("tools").is_none());
    }

    #[test]
    fn tools_are_declarations_and_parameterless_ones_have_no_parameters() {
        let body = request(
            &[
                tool(
                    "add",
                    json!({"type": "object", "$schema": "x",
                    "properties": {"a": {"type": "number"}}, "additionalProperties": false}),
                ),
                tool("ping", json!({"type": "object", "properties": {}})),
            ],
            &[Item::User("Go.".into())],
        );
        assert_eq!(
            body["tools"],
            json!([{"functionDeclarations": [
                {"name": "add", "parameters": {"type": "object", "properties": {"a": {"type": "number"}}}},
                {"name": "ping"}]}])
        );
    }

    #[test]
    fn replies_without_candidates_or_content_say_why() {
        let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
        assert!(
            read_reply(&blocked, 1)
                .unwrap_err()
                .contains("blocked (SAFETY)")
        );
        let empty = json!({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL"}]});
        assert!(
            read_reply(&empty, 1)
                .unwrap_err()
                .contains("MALFORMED_FUNCTION_CALL")
        );
        assert!(
            read_reply(&json!({}), 1)
                .unwrap_err()
                .contains("candidates")
        );
    }
}
