//! Server-sent events as a cassette stores them: parsed from a whole recorded body, and
//! rendered back event for event.
//!
//! The body is complete when it is parsed (it was captured while passing through), so this
//! is a plain function over text rather than a stream decoder.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One event of a stream. `data` holds the data when it is a JSON object or array (a diff
/// of a cassette then reads as content); anything else (Chat's `[DONE]`) is `dataRaw`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SseEvent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) data: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) data_raw: Option<String>,
}

impl SseEvent {
    fn from_fields(event: Option<String>, id: Option<String>, data: Option<String>) -> Self {
        let parsed = data
            .as_deref()
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
            .filter(|value| value.is_object() || value.is_array());
        let data_raw = if parsed.is_some() { None } else { data };
        Self {
            event,
            id,
            data: parsed,
            data_raw,
        }
    }

    /// The event as it goes on the wire, ending with the blank line.
    fn render(&self, out: &mut String) {
        if let Some(event) = &self.event {
            out.push_str(&format!("event: {event}\n"));
        }
        if let Some(id) = &self.id {
            out.push_str(&format!("id: {id}\n"));
        }
        if let Some(data) = &self.data {
            out.push_str(&format!("data: {data}\n"));
        } else if let Some(raw) = &self.data_raw {
            for line in raw.split('\n') {
                out.push_str(&format!("data: {line}\n"));
            }
        }
        out.push('\n');
    }
}

/// The events of a whole SSE body (`\n`, `\r\n` or `\r` line ends). Comments and `retry:`
/// lines are dropped; an event with neither a name nor data is skipped.
pub(crate) fn parse(body: &str) -> Vec<SseEvent> {
    let mut events = Vec::new();
    let (mut event, mut id, mut data): (Option<String>, Option<String>, Option<String>) =
        (None, None, None);
    let body = body.replace("\r\n", "\n").replace('\r', "\n");
    for line in body.split('\n') {
        if line.is_empty() {
            if event.is_some() || data.is_some() {
                events.push(SseEvent::from_fields(event.take(), id.take(), data.take()));
            }
            id = None;
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => event = Some(value.to_owned()),
            "id" => id = Some(value.to_owned()),
            "data" => match &mut data {
                Some(text) => {
                    text.push('\n');
                    text.push_str(value);
                }
                None => data = Some(value.to_owned()),
            },
            _ => {}
        }
    }
    if event.is_some() || data.is_some() {
        events.push(SseEvent::from_fields(event, id, data));
    }
    events
}

/// The stream of `events`, each followed by a blank line.
pub(crate) fn render(events: &[SseEvent]) -> String {
    let mut out = String::new();
    for event in events {
        event.render(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn event(name: Option<&str>, data: Value) -> SseEvent {
        SseEvent {
            event: name.map(str::to_owned),
            id: None,
            data: Some(data),
            data_raw: None,
        }
    }

    fn raw(text: &str) -> SseEvent {
        SseEvent {
            event: None,
            id: None,
            data: None,
            data_raw: Some(text.to_owned()),
        }
    }

    #[test]
    fn parses_each_api_s_stream() {
        let cases = [
            (
                "event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: ping\ndata: {}\n\n",
                vec![
                    event(Some("message_start"), json!({"type": "message_start"})),
                    event(Some("ping"), json!({})),
                ],
            ),
            (
                "data: {\"choices\":[]}\n\ndata: [DONE]\n\n",
                vec![event(None, json!({"choices": []})), raw("[DONE]")],
            ),
            (
                "data: {\"candidates\": [1]}\r\n\r\ndata: {\"candidates\": [2]}\r\n\r\n",
                vec![
                    event(None, json!({"candidates": [1]})),
                    event(None, json!({"candidates": [2]})),
                ],
            ),
            (
                ": keep-alive\nretry: 10\n\ndata: two\ndata: lines\n\ndata: 42",
                vec![raw("two\nlines"), raw("42")],
            ),
        ];
        for (body, expected) in cases {
            assert_eq!(parse(body), expected, "{body:?}");
        }
    }

    #[test]
    fn rendering_then_parsing_gives_the_same_events() {
        let mut with_id = event(Some("response.created"), json!({"a": [1, "b"]}));
        with_id.id = Some("7".into());
        let events = vec![with_id, raw("two\nlines"), raw("[DONE]")];
        let text = render(&events);
        assert_eq!(
            text,
            "event: response.created\nid: 7\ndata: {\"a\":[1,\"b\"]}\n\ndata: two\ndata: lines\n\ndata: [DONE]\n\n"
        );
        assert_eq!(parse(&text), events);
    }
}
