//! A fake LLM upstream that speaks the four APIs of the LLM proxy (Anthropic Messages,
//! OpenAI Chat Completions and Responses, Gemini), streaming and not, from a script of
//! replies answered in order (or, with [`FakeLlm::start_by_turn`], chosen by how many tool
//! results the conversation holds, whatever the order of requests). Every request it receives is logged; paths that are not a
//! model call get 404.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// The model answers with this text.
    Text(String),
    /// The model calls a tool.
    ToolCall { name: String, args: Value },
    /// The model calls a tool of a namespace: a Responses API `function_call` with
    /// `namespace` (Codex offers each MCP server's tools as the namespace
    /// `mcp__<server>`); the other APIs get `name` alone.
    NamespacedCall {
        namespace: String,
        name: String,
        args: Value,
    },
    /// An error status with this JSON body.
    Error(u16, Value),
    /// 200 with this JSON body as it is, whatever the API (a malformed reply).
    Raw(Value),
    /// A streamed text answer whose first event is sent at once and the rest only once
    /// `gate` is notified.
    Gated(String, Arc<tokio::sync::Notify>),
}

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// Path and query.
    pub path: String,
    pub headers: HeaderMap,
    pub body: Value,
}

#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<Reply>>,
    /// Replies by the number of tool results in the request ([`FakeLlm::start_by_turn`]).
    by_turn: Option<Vec<Reply>>,
    seen: Mutex<Vec<Seen>>,
}

/// A running fake; stops when dropped.
pub struct FakeLlm {
    /// `http://127.0.0.1:PORT` (add `/v1` for the OpenAI APIs).
    pub url: String,
    script: Arc<Script>,
    stop: CancellationToken,
}

impl FakeLlm {
    pub async fn start(replies: Vec<Reply>) -> Self {
        Self::serve(Script {
            replies: Mutex::new(replies.into()),
            ..Script::default()
        })
        .await
    }

    /// A fake that answers each request with `replies[n]`, `n` the number of tool results
    /// the request's conversation holds (the last reply when there are more): several
    /// agents at once, retries, any order. Tool results are Chat `role: tool` messages,
    /// Responses `function_call_output` items, Gemini `functionResponse` parts and
    /// Anthropic `tool_result` blocks.
    pub async fn start_by_turn(replies: Vec<Reply>) -> Self {
        Self::serve(Script {
            by_turn: Some(replies),
            ..Script::default()
        })
        .await
    }

    async fn serve(script: Script) -> Self {
        let script = Arc::new(script);
        let router = axum::Router::new()
            .fallback(answer)
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind the fake LLM API");
        let url = format!("http://{}", listener.local_addr().expect("local address"));
        let stop = CancellationToken::new();
        let shutdown = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await;
        });
        Self { url, script, stop }
    }

    /// Every request received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.script.seen.lock().unwrap().clone()
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn answer(
    State(script): State<Arc<Script>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri
        .path_and_query()
        .map_or(uri.path(), |p| p.as_str())
        .to_owned();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let number = {
        let mut seen = script.seen.lock().unwrap();
        seen.push(Seen {
            path: path.clone(),
            headers,
            body: body.clone(),
        });
        seen.len()
    };
    let api = if uri.path() == "/v1/messages" {
        "anthropic"
    } else if uri.path().ends_with("/chat/completions") {
        "chat"
    } else if uri.path().ends_with("/responses") {
        "responses"
    } else if uri.path().contains(":generateContent")
        || uri.path().contains(":streamGenerateContent")
    {
        "gemini"
    } else {
        return (StatusCode::NOT_FOUND, "fake LLM: no such path").into_response();
    };
    let next = match &script.by_turn {
        Some(replies) => {
            let turn = tool_results(&body).min(replies.len().saturating_sub(1));
            replies.get(turn).cloned()
        }
        None => script.replies.lock().unwrap().pop_front(),
    };
    let Some(mut reply) = next else {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": {"message": "fake LLM: no reply left"}})),
        )
            .into_response();
    };
    if let Reply::Error(status, body) = reply {
        return (StatusCode::from_u16(status).unwrap(), axum::Json(body)).into_response();
    }
    if let Reply::Raw(body) = reply {
        return axum::Json(body).into_response();
    }
    if let Reply::NamespacedCall { name, args, .. } = &reply
        && api != "responses"
    {
        reply = Reply::ToolCall {
            name: name.clone(),
            args: args.clone(),
        };
    }
    let gate = match &reply {
        Reply::Gated(text, gate) => {
            let gate = gate.clone();
            reply = Reply::Text(text.clone());
            Some(gate)
        }
        _ => None,
    };
    let streaming = body["stream"] == true || uri.path().contains(":streamGenerateContent");
    let (json_body, events) = match api {
        "anthropic" => anthropic(&reply, number),
        "chat" => chat(&reply, number),
        "responses" => responses(&reply, number),
        _ => gemini(&reply),
    };
    if !streaming {
        return axum::Json(json_body).into_response();
    }
    let separator = if api == "gemini" { "\r\n\r\n" } else { "\n\n" };
    let mut chunks: Vec<String> = events
        .into_iter()
        .map(|(event, data)| match event {
            Some(event) => format!("event: {event}\ndata: {data}{separator}"),
            None => format!("data: {data}{separator}"),
        })
        .collect();
    let Some(gate) = gate else {
        return (
            [(header::CONTENT_TYPE, "text/event-stream")],
            chunks.concat(),
        )
            .into_response();
    };
    let rest = chunks.split_off(1).concat();
    let first = chunks.concat();
    let stream = futures::stream::iter([Some(first), None, Some(rest)]).then(move |chunk| {
        let gate = gate.clone();
        async move {
            match chunk {
                Some(text) => Ok::<_, std::convert::Infallible>(Bytes::from(text)),
                None => {
                    gate.notified().await;
                    Ok(Bytes::new())
                }
            }
        }
    });
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        axum::body::Body::from_stream(stream),
    )
        .into_response()
}

/// How many tool results the conversation of `body` holds, in any API's shape.
fn tool_results(body: &Value) -> usize {
    fn count(value: &Value) -> usize {
        match value {
            Value::Object(object) => {
                let own = usize::from(
                    object.get("role").and_then(Value::as_str) == Some("tool")
                        || matches!(
                            object.get("type").and_then(Value::as_str),
                            Some("function_call_output" | "tool_result")
                        )
                        || object.contains_key("functionResponse"),
                );
                own + object.values().map(count).sum::<usize>()
            }
            Value::Array(items) => items.iter().map(count).sum(),
            _ => 0,
        }
    }
    ["messages", "input", "contents"]
        .iter()
        .map(|key| count(&body[*key]))
        .sum()
}

type Rendered = (Value, Vec<(Option<&'static str>, String)>);

fn anthropic(reply: &Reply, number: usize) -> Rendered {
    let thinking = json!({"type": "thinking", "thinking": "add them", "signature": "EqQBCkYIBxgCKkD+/opaque=="});
    let (block, stop) = match reply {
        Reply::ToolCall { name, args } => (
            json!({"type": "tool_use", "id": format!("toolu_{number}"), "name": name, "input": args}),
            "tool_use",
        ),
        Reply::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
        Reply::Error(..) | Reply::Raw(..) | Reply::Gated(..) | Reply::NamespacedCall { .. } => {
            unreachable!()
        }
    };
    let message = json!({"id": format!("msg_{number}"), "type": "message", "role": "assistant",
        "model": "claude-test", "content": [thinking, block], "stop_reason": stop,
        "usage": {"input_tokens": 10, "output_tokens": 5}});
    let mut start = message.clone();
    start["content"] = json!([]);
    let event = |name, data: Value| (Some(name), data.to_string());
    let events = vec![
        event(
            "message_start",
            json!({"type": "message_start", "message": start}),
        ),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        ),
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCkYIBxgCKkD+/opaque=="}}),
        ),
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": block}),
        ),
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 1}),
        ),
        event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}}),
        ),
        event("message_stop", json!({"type": "message_stop"})),
    ];
    (message, events)
}

fn chat(reply: &Reply, number: usize) -> Rendered {
    let message = match reply {
        Reply::ToolCall { name, args } => {
            json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": format!("call_{number}"), "type": "function", "function": {"name": name, "arguments": args.to_string()}}]})
        }
        Reply::Text(text) => json!({"role": "assistant", "content": text}),
        Reply::Error(..) | Reply::Raw(..) | Reply::Gated(..) | Reply::NamespacedCall { .. } => {
            unreachable!()
        }
    };
    let finish = if message["tool_calls"].is_array() {
        "tool_calls"
    } else {
        "stop"
    };
    let body = json!({"id": format!("chatcmpl-{number}"), "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
    let chunk = |delta: Value, finish: Value| {
        (None, json!({"id": format!("chatcmpl-{number}"), "object": "chat.completion.chunk", "created": 1,
            "model": "gpt-test", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string())
    };
    let events = vec![
        chunk(json!({"role": "assistant"}), Value::Null),
        chunk(message.clone(), Value::Null),
        chunk(json!({}), json!(finish)),
        (None, "[DONE]".to_owned()),
    ];
    (body, events)
}

fn responses(reply: &Reply, number: usize) -> Rendered {
    let item = match reply {
        Reply::ToolCall { name, args } => {
            json!({"type": "function_call", "id": format!("fc_{number}"),
            "call_id": format!("call_{number}"), "name": name, "arguments": args.to_string(), "status": "completed"})
        }
        Reply::NamespacedCall {
            namespace,
            name,
            args,
        } => {
            json!({"type": "function_call", "id": format!("fc_{number}"), "call_id": format!("call_{number}"),
            "namespace": namespace, "name": name, "arguments": args.to_string(), "status": "completed"})
        }
        Reply::Text(text) => {
            json!({"type": "message", "id": format!("msg_{number}"), "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]})
        }
        Reply::Error(..) | Reply::Raw(..) | Reply::Gated(..) => unreachable!(),
    };
    let reasoning = json!({"type": "reasoning", "id": format!("rs_{number}"), "summary": [], "encrypted_content": "gAAAAABopaque-reasoning=="});
    let body = json!({"id": format!("resp_{number}"), "object": "response", "status": "completed", "model": "gpt-test",
        "output": [reasoning, item], "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}});
    let mut created = body.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    let event = |name, data: Value| (Some(name), data.to_string());
    let events = vec![
        event(
            "response.created",
            json!({"type": "response.created", "sequence_number": 0, "response": created}),
        ),
        event(
            "response.output_item.done",
            json!({"type": "response.output_item.done", "sequence_number": 1, "output_index": 0, "item": reasoning}),
        ),
        event(
            "response.output_item.done",
            json!({"type": "response.output_item.done", "sequence_number": 2, "output_index": 1, "item": item}),
        ),
        event(
            "response.completed",
            json!({"type": "response.completed", "sequence_number": 3, "response": body}),
        ),
    ];
    (body, events)
}

fn gemini(reply: &Reply) -> Rendered {
    let part = match reply {
        Reply::ToolCall { name, args } => {
            json!({"functionCall": {"name": name, "args": args}, "thoughtSignature": "CiQBopaque=="})
        }
        Reply::Text(text) => json!({"text": text, "thoughtSignature": "CiQBopaque=="}),
        Reply::Error(..) | Reply::Raw(..) | Reply::Gated(..) | Reply::NamespacedCall { .. } => {
            unreachable!()
        }
    };
    let usage = json!({"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15});
    let body = json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage, "modelVersion": "gemini-test"});
    let first = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "index": 0}], "modelVersion": "gemini-test"});
    let events = vec![(None, first.to_string()), (None, body.to_string())];
    (body, events)
}
