//! A cassette's recorded model calls as a report shows them: per call, what was new in the
//! request (its last conversation item) and what the model answered (its text and tool
//! calls, put together from a JSON body or an event stream of any of the four APIs).

use std::path::Path;

use serde_json::Value;

use super::cassette::{CassetteParts, Interaction, RecordedResponse};
use super::error::LlmProxyError;
use super::sse::SseEvent;

/// One recorded model call.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedTurn {
    /// Its number in the cassette, from 1.
    pub seq: usize,
    /// The API path, e.g. `/chat/completions`.
    pub path: String,
    /// The model asked for, when the request names it.
    pub model: Option<String>,
    /// The request's last conversation item (the new input of this turn), or the whole
    /// normalised request when it has no conversation.
    pub input: Value,
    /// The answer's status code.
    pub status: u16,
    /// The answer's text and tool calls, one per line (`tool NAME ARGUMENTS`).
    pub reply: String,
}

/// The recorded calls of the cassette at `path`: the agent's (`section` `None`) or a named
/// section's (`judge`); `None` when the file or the section does not exist.
pub fn recorded_turns(
    path: &Path,
    section: Option<&str>,
) -> Result<Option<Vec<RecordedTurn>>, LlmProxyError> {
    let Some(parts) = CassetteParts::load(path)? else {
        return Ok(None);
    };
    Ok(parts
        .take(section)
        .map(|cassette| cassette.interactions.iter().map(turn).collect()))
}

fn turn(interaction: &Interaction) -> RecordedTurn {
    let request = &interaction.normalized;
    let conversation = ["messages", "input", "contents"]
        .iter()
        .find_map(|field| request.get(field).and_then(Value::as_array));
    let input = match conversation.and_then(|items| items.last()) {
        Some(last) => last.clone(),
        None => request.clone(),
    };
    RecordedTurn {
        seq: interaction.seq,
        path: interaction.path.clone(),
        model: request
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_owned),
        input,
        status: interaction.response.status,
        reply: reply(&interaction.response),
    }
}

/// The answer's text and tool calls.
fn reply(response: &RecordedResponse) -> String {
    let mut reply = Reply::default();
    match (&response.json, &response.sse, &response.text) {
        (Some(json), _, _) => reply.json(json),
        (None, Some(events), _) => events.iter().for_each(|event| reply.event(event)),
        (None, None, text) => reply.text.push_str(text.as_deref().unwrap_or_default()),
    }
    reply.render()
}

/// An answer put together: its text and its tool calls (name, arguments).
#[derive(Default)]
struct Reply {
    text: String,
    tools: Vec<(String, String)>,
}

impl Reply {
    /// A whole answer: Chat Completions, Messages, Responses or Gemini.
    fn json(&mut self, json: &Value) {
        if let Some(error) = json.get("error") {
            self.text.push_str(&error.to_string());
        }
        for choice in array(json, "choices") {
            let message = choice.get("message").unwrap_or(&Value::Null);
            self.push_text(message.get("content"));
            for call in array(message, "tool_calls") {
                self.function(call.get("function").unwrap_or(&Value::Null));
            }
        }
        for block in array(json, "content") {
            self.block(block);
        }
        for item in array(json, "output") {
            match item.get("type").and_then(Value::as_str) {
                Some("function_call") => self.function(item),
                _ => array(item, "content").iter().for_each(|c| self.block(c)),
            }
        }
        for candidate in array(json, "candidates") {
            let content = candidate.get("content").unwrap_or(&Value::Null);
            for part in array(content, "parts") {
                self.push_text(part.get("text"));
                if let Some(call) = part.get("functionCall") {
                    self.tool(call.get("name"), call.get("args"));
                }
            }
        }
    }

    /// One event of a stream: its deltas, in order.
    fn event(&mut self, event: &SseEvent) {
        let Some(data) = &event.data else {
            return;
        };
        // Chat Completions chunks.
        for choice in array(data, "choices") {
            let delta = choice.get("delta").unwrap_or(&Value::Null);
            self.push_text(delta.get("content"));
            for call in array(delta, "tool_calls") {
                let function = call.get("function").unwrap_or(&Value::Null);
                if let Some(name) = function.get("name").and_then(Value::as_str) {
                    self.tools.push((name.to_owned(), String::new()));
                }
                self.append_arguments(function.get("arguments"));
            }
        }
        match data.get("type").and_then(Value::as_str) {
            // Messages.
            Some("content_block_start") => {
                let block = data.get("content_block").unwrap_or(&Value::Null);
                if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                    self.tool(block.get("name"), None);
                }
            }
            Some("content_block_delta") => {
                let delta = data.get("delta").unwrap_or(&Value::Null);
                self.push_text(delta.get("text"));
                self.append_arguments(delta.get("partial_json"));
            }
            // Responses.
            Some("response.output_text.delta") => self.push_text(data.get("delta")),
            Some("response.output_item.done") => {
                let item = data.get("item").unwrap_or(&Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    self.function(item);
                }
            }
            _ => {}
        }
        // Gemini streams whole candidates.
        if data.get("candidates").is_some() {
            self.json(&serde_json::json!({"candidates": data["candidates"]}));
        }
    }

    fn block(&mut self, block: &Value) {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_use") => self.tool(block.get("name"), block.get("input")),
            _ => self.push_text(block.get("text")),
        }
    }

    fn function(&mut self, function: &Value) {
        self.tool(function.get("name"), function.get("arguments"));
    }

    fn tool(&mut self, name: Option<&Value>, arguments: Option<&Value>) {
        let name = name.and_then(Value::as_str).unwrap_or("?").to_owned();
        let arguments = match arguments {
            Some(Value::String(text)) => text.clone(),
            Some(value) => value.to_string(),
            None => String::new(),
        };
        self.tools.push((name, arguments));
    }

    fn append_arguments(&mut self, part: Option<&Value>) {
        if let (Some(text), Some((_, arguments))) =
            (part.and_then(Value::as_str), self.tools.last_mut())
        {
            arguments.push_str(text);
        }
    }

    fn push_text(&mut self, text: Option<&Value>) {
        if let Some(text) = text.and_then(Value::as_str) {
            self.text.push_str(text);
        }
    }

    fn render(self) -> String {
        let mut lines = vec![self.text];
        lines.retain(|text| !text.is_empty());
        for (name, arguments) in self.tools {
            lines.push(format!("tool {name} {arguments}").trim_end().to_owned());
        }
        lines.join("\n")
    }
}

fn array<'a>(value: &'a Value, field: &str) -> &'a [Value] {
    value
        .get(field)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn json_reply(body: Value) -> String {
        reply(&RecordedResponse {
            status: 200,
            content_type: Some("application/json".into()),
            json: Some(body),
            sse: None,
            text: None,
        })
    }

    #[test]
    fn chat_completions_reply_has_text_and_tool_calls() {
        let body = json!({"choices": [{"message": {"content": "Adding.", "tool_calls": [
            {"function": {"name": "add", "arguments": "{\"a\":2}"}}]}}]});
        assert_eq!(json_reply(body), "Adding.\ntool add {\"a\":2}");
    }

    #[test]
    fn messages_stream_reply_is_put_together_from_deltas() {
        let events: Vec<SseEvent> = serde_json::from_value(json!([
            {"data": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "The sum "}}},
            {"data": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "is 42."}}},
            {"data": {"type": "content_block_start", "content_block": {"type": "tool_use", "name": "mcp__demo__add"}}},
            {"data": {"type": "content_block_delta", "delta": {"type": "input_json_delta", "partial_json": "{\"a\":"}}},
            {"data": {"type": "content_block_delta", "delta": {"type": "input_json_delta", "partial_json": "2}"}}}
        ]))
        .unwrap();
        let response = RecordedResponse {
            status: 200,
            content_type: Some("text/event-stream".into()),
            json: None,
            sse: Some(events),
            text: None,
        };
        assert_eq!(
            reply(&response),
            "The sum is 42.\ntool mcp__demo__add {\"a\":2}"
        );
    }
}
