//! A fake Anthropic Messages API for driving the real Claude Code offline: it answers
//! `POST .../v1/messages` (any query) with the next turn of a script, as an SSE stream when
//! the request says `stream: true`, else as plain JSON. Every request body is logged for the
//! test to inspect.
//!
//! The turn is keyed on the conversation's `tool_result` blocks, not on the request's
//! position (the CLI may send a request again): on how many of them are not errors
//! (`is_error: true`), so that after a failed tool call the same turn comes again and the
//! call that failed is made again (a retry). A retry's failure counts, though: a call is
//! retried once, then the script goes on, so a call that always fails (one the agent
//! refuses, a removed tool) cannot loop. Conversations without failed tool calls are keyed
//! on every `tool_result`, as they always were (recorded cassettes stay valid).
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// One reply of the script.
#[derive(Debug, Clone)]
pub enum Turn {
    /// Call a tool (`mcp__<server>__<tool>`) with this input.
    ToolUse { name: String, input: Value },
    /// Answer with text and end the turn.
    Text(String),
    /// Refuse the request: this HTTP status with an Anthropic error body and `message`.
    Error(u16, String),
}

#[derive(Default)]
struct Shared {
    script: Vec<Turn>,
    requests: Mutex<Vec<Value>>,
}

/// A running fake API.
pub struct FakeAnthropic {
    /// `http://127.0.0.1:PORT` (what `ANTHROPIC_BASE_URL` takes).
    pub base_url: String,
    shared: Arc<Shared>,
}

impl FakeAnthropic {
    /// Serves `script` on a random loopback port until the runtime ends.
    pub async fn start(script: Vec<Turn>) -> Self {
        let shared = Arc::new(Shared {
            script,
            requests: Mutex::default(),
        });
        let app = Router::new()
            .route("/v1/messages", post(messages))
            .fallback(|| async { StatusCode::NOT_FOUND })
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let base_url = format!("http://{}", listener.local_addr().expect("local addr"));
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeAnthropic { base_url, shared }
    }

    /// Every request body received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The tool names offered in the last request that offered tools.
    pub fn offered_tools(&self) -> Vec<String> {
        self.requests()
            .iter()
            .rev()
            .find_map(|r| r["tools"].as_array().filter(|t| !t.is_empty()).cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect()
    }
}

/// The script's turn: the conversation's `tool_result` blocks, less each failure that is
/// not itself a retry's (the turn that made the call comes again, once), plus the answers
/// the conversation already holds (an assistant message with no `tool_use`: a resumed
/// session's earlier turns).
fn script_turn(request: &Value) -> usize {
    let messages = request["messages"].as_array().into_iter().flatten();
    let answered = (messages.clone())
        .filter(|m| m["role"] == "assistant")
        .filter(|m| {
            let content = m["content"].as_array().cloned().unwrap_or_default();
            !content.is_empty() && !content.iter().any(|block| block["type"] == "tool_use")
        })
        .count();
    let blocks = messages
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|block| block["type"] == "tool_result");
    let mut turn = 0;
    let mut retrying = false;
    for block in blocks {
        if block["is_error"] == true && !retrying {
            retrying = true;
        } else {
            turn += 1;
            retrying = false;
        }
    }
    turn + answered
}

async fn messages(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    shared.requests.lock().unwrap().push(request.clone());
    let model = request["model"]
        .as_str()
        .unwrap_or("claude-fake")
        .to_owned();
    // Side requests (titles, summaries) carry no tools: answer them with plain text.
    let has_tools = request["tools"].as_array().is_some_and(|t| !t.is_empty());
    let turn = if has_tools {
        shared
            .script
            .get(script_turn(&request))
            .cloned()
            .unwrap_or(Turn::Text("done".into()))
    } else {
        Turn::Text("ok".into())
    };
    if let Turn::Error(status, message) = &turn {
        let status = StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body =
            json!({"type": "error", "error": {"type": "authentication_error", "message": message}});
        return (status, axum::Json(body)).into_response();
    }
    let id = format!("msg_{}", shared.requests.lock().unwrap().len());
    let (block, stop_reason) = match &turn {
        Turn::ToolUse { name, input } => (
            json!({"type": "tool_use", "id": format!("toolu_{id}"), "name": name, "input": input}),
            "tool_use",
        ),
        Turn::Text(text) | Turn::Error(_, text) => {
            (json!({"type": "text", "text": text}), "end_turn")
        }
    };
    let usage = json!({"input_tokens": 100, "output_tokens": 20});
    if request["stream"] != true {
        let message = json!({"id": id, "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": stop_reason, "stop_sequence": null, "usage": usage});
        return axum::Json(message).into_response();
    }
    let mut events = Vec::new();
    let mut event =
        |name: &str, data: Value| events.push(format!("event: {name}\ndata: {data}\n\n"));
    event(
        "message_start",
        json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
        "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 100, "output_tokens": 1}}}),
    );
    match &turn {
        Turn::ToolUse { input, .. } => {
            let mut start = block.clone();
            start["input"] = json!({});
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": start}),
            );
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
            );
        }
        Turn::Text(text) | Turn::Error(_, text) => {
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            );
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            );
        }
    }
    event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": {"output_tokens": 20}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        events.concat(),
    )
        .into_response()
}
