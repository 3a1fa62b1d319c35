//! A fake OpenAI Chat Completions API, in-process on `127.0.0.1:0`: it answers
//! `POST {base_url}/chat/completions` from a per-test script of replies and logs every
//! request, so tests can check what a client sent (tools offered, tool results returned).
#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with this JSON body.
    Json(Value),
    /// This status with this body (as is).
    Status(u16, String),
    /// This status with a `Retry-After: SECONDS` header and an OpenAI-style error body.
    RetryAfter(u16, u64),
    /// 200 with this text body (`text/plain`), e.g. not JSON at all.
    Raw(String),
    /// Waits this long, then answers 200 with this JSON body (for timeouts).
    Slow(Duration, Value),
}

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Request {
    /// The path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// The `Authorization` header.
    pub authorization: Option<String>,
    /// The body as JSON (`Value::Null` when it was not JSON).
    pub body: Value,
}

#[derive(Default)]
struct Script {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Request>>,
}

/// A running fake API; stops when dropped.
pub struct FakeOpenAi {
    /// The base URL to give the client (`http://127.0.0.1:PORT/v1`).
    pub base_url: String,
    script: Arc<Script>,
    stop: CancellationToken,
}

impl FakeOpenAi {
    /// Starts the fake with a script of replies, answered in order. When the script is
    /// used up it answers 400 with the message `fake OpenAI API: no scripted reply left`.
    pub async fn start(replies: Vec<Reply>) -> Self {
        let script = Arc::new(Script {
            replies: Mutex::new(replies.into()),
            requests: Mutex::new(Vec::new()),
        });
        let router = axum::Router::new()
            .fallback(answer)
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind the fake OpenAI API");
        let address = listener.local_addr().expect("local address");
        let stop = CancellationToken::new();
        let shutdown = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await;
        });
        Self {
            base_url: format!("http://{address}/v1"),
            script,
            stop,
        }
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.script.requests.lock().unwrap().clone()
    }

    /// The request bodies received so far, in order.
    pub fn bodies(&self) -> Vec<Value> {
        self.requests().into_iter().map(|r| r.body).collect()
    }

    /// How many scripted replies are left.
    pub fn replies_left(&self) -> usize {
        self.script.replies.lock().unwrap().len()
    }
}

impl Drop for FakeOpenAi {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn answer(
    State(script): State<Arc<Script>>,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    script.requests.lock().unwrap().push(Request {
        path: uri.path().to_owned(),
        authorization: headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    if !uri.path().ends_with("/chat/completions") {
        return error(404, &format!("fake OpenAI API: no route {}", uri.path()));
    }
    let next = script.replies.lock().unwrap().pop_front();
    match next {
        None => error(400, "fake OpenAI API: no scripted reply left"),
        Some(Reply::Json(value)) => axum::Json(value).into_response(),
        Some(Reply::Status(status, body)) => (status_code(status), body).into_response(),
        Some(Reply::RetryAfter(status, seconds)) => {
            let mut response = error(status, "slow down");
            if let Ok(value) = seconds.to_string().parse() {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
            response
        }
        Some(Reply::Raw(text)) => text.into_response(),
        Some(Reply::Slow(delay, value)) => {
            tokio::time::sleep(delay).await;
            axum::Json(value).into_response()
        }
    }
}

fn status_code(status: u16) -> StatusCode {
    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// An OpenAI-style error response.
fn error(status: u16, message: &str) -> Response {
    let body = json!({"error": {"message": message, "type": "invalid_request_error"}});
    (status_code(status), axum::Json(body)).into_response()
}

/// A final reply with this text and some usage.
pub fn text(content: &str) -> Reply {
    Reply::Json(json!({
        "id": "chatcmpl-final",
        "object": "chat.completion",
        "created": 1,
        "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    }))
}

/// A reply asking for tool calls `(id, function name, arguments)`; `arguments` is sent
/// as given (a JSON string or an object).
pub fn tool_calls(calls: &[(&str, &str, Value)]) -> Reply {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function",
                   "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    Reply::Json(json!({
        "id": "chatcmpl-tools",
        "object": "chat.completion",
        "created": 1,
        "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                     "tool_calls": calls}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}
    }))
}

/// Arguments as the JSON string OpenAI sends.
pub fn args(value: Value) -> Value {
    Value::String(value.to_string())
}
