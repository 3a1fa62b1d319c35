//! Forwarding a model call to the live API and its answer back, captured on the way when
//! recording. A streamed answer reaches the agent chunk by chunk as it arrives.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::Response;
use futures::StreamExt;
use serde_json::Value;

use super::cassette::{Interaction, RecordedResponse};
use super::state::{ApiRequest, LlmProxyState, api_error};
use crate::plumbing::error_text::error_chain;
use crate::plumbing::lock::lock;
use crate::plumbing::secret;

/// Headers that belong to one hop, or that would change what the upstream sends back
/// (`accept-encoding`: the capture needs the plain body).
const NOT_FORWARDED: [HeaderName; 6] = [
    header::HOST,
    header::CONTENT_LENGTH,
    header::CONNECTION,
    header::TRANSFER_ENCODING,
    header::ACCEPT_ENCODING,
    header::UPGRADE,
];

/// Where a live answer is recorded: the slot of the run's interactions, and the request.
pub(crate) struct Capture {
    pub(crate) shared: Arc<LlmProxyState>,
    pub(crate) index: usize,
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) key: String,
    pub(crate) normalized: Value,
}

impl Capture {
    fn store(self, response: RecordedResponse) {
        let interaction = Interaction {
            seq: self.index + 1,
            method: self.method,
            path: self.path,
            key: self.key,
            normalized: self.normalized,
            response,
        };
        let answered = std::time::Instant::now();
        let mut state = lock(&self.shared.state);
        if let Some(slot) = state.written.get_mut(self.index) {
            *slot = Some(interaction);
        }
        if let Some(time) = (state.times.iter_mut()).find(|t| t.slot == Some(self.index)) {
            time.answered = Some(answered);
        }
        state.recorded += 1;
    }
}

/// Sends `request` upstream (headers included, never stored) and answers with what comes
/// back; a failure to reach the API is answered 502 and noted as a problem of the run.
pub(crate) async fn forward(
    shared: &Arc<LlmProxyState>,
    request: ApiRequest,
    capture: Option<Capture>,
) -> Response {
    let url = format!("{}{}", shared.upstream, request.upstream_path);
    let mut builder = shared
        .client
        .request(request.method.clone(), &url)
        .body(request.body);
    for (name, value) in &request.headers {
        if !NOT_FORWARDED.contains(name) {
            builder = builder.header(name, value);
        }
    }
    let upstream = match builder.send().await {
        Ok(upstream) => upstream,
        Err(error) => return unreachable_upstream(shared, &request.path, error),
    };
    let status = upstream.status();
    let content_type = upstream
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let headers = answer_headers(upstream.headers());
    let streamed = content_type
        .as_deref()
        .is_some_and(|media| media.to_ascii_lowercase().starts_with("text/event-stream"));
    let asked = LiveCall {
        path: request.path,
        request: request.normalized,
    };
    let body = if streamed {
        lock(&shared.state).note_answer(status.as_u16(), None);
        stream_through(
            shared,
            upstream,
            (status.as_u16(), content_type),
            asked,
            capture,
        )
    } else {
        match upstream.bytes().await {
            Ok(bytes) => {
                lock(&shared.state).note_answer(status.as_u16(), Some(&bytes));
                asked.answered(shared, capture, (status.as_u16(), content_type), &bytes);
                Body::from(bytes)
            }
            Err(error) => return unreachable_upstream(shared, &asked.path, error),
        }
    };
    let mut answer = Response::new(body);
    *answer.status_mut() = status;
    *answer.headers_mut() = headers;
    answer
}

/// The upstream's answer headers for the agent, less the per-hop ones.
fn answer_headers(upstream: &HeaderMap) -> HeaderMap {
    let mut headers = upstream.clone();
    for name in [
        header::CONTENT_LENGTH,
        header::CONNECTION,
        header::TRANSFER_ENCODING,
    ] {
        headers.remove(name);
    }
    headers
}

/// The call a live answer is to: what its usage is read with.
struct LiveCall {
    path: String,
    request: Value,
}

impl LiveCall {
    /// The whole answer `body` (of `status` and `content_type`), read once: what the call
    /// used noted, and the answer recorded when the run records (`capture`).
    fn answered(
        self,
        shared: &LlmProxyState,
        capture: Option<Capture>,
        (status, content_type): (u16, Option<String>),
        body: &[u8],
    ) {
        let response = RecordedResponse::capture(status, content_type, body);
        let api = shared.config.api;
        lock(&shared.state).note_usage(api, &self.path, &self.request, &response);
        if let Some(capture) = capture {
            capture.store(response);
        }
    }
}

/// A body that passes each upstream chunk on at once; a task reads the upstream to its end
/// (even when the agent has gone), notes what the call used and records the whole answer.
fn stream_through(
    shared: &Arc<LlmProxyState>,
    upstream: reqwest::Response,
    (status, content_type): (u16, Option<String>),
    asked: LiveCall,
    capture: Option<Capture>,
) -> Body {
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(64);
    let task_shared = shared.clone();
    let task = tokio::spawn(async move {
        let mut chunks = upstream.bytes_stream();
        let mut captured = Vec::new();
        while let Some(chunk) = chunks.next().await {
            match chunk {
                Ok(bytes) => {
                    captured.extend_from_slice(&bytes);
                    let _ = sender.send(Ok(bytes)).await;
                }
                Err(error) => {
                    let message = format!(
                        "the LLM API's streamed answer broke off: {}",
                        error_chain(&error.without_url())
                    );
                    note_problem(&task_shared, &message);
                    let _ = sender.send(Err(std::io::Error::other(message))).await;
                    return;
                }
            }
        }
        asked.answered(&task_shared, capture, (status, content_type), &captured);
    });
    lock(&shared.captures).push(task);
    Body::from_stream(futures::stream::unfold(
        receiver,
        |mut receiver| async move { receiver.recv().await.map(|item| (item, receiver)) },
    ))
}

fn unreachable_upstream(shared: &LlmProxyState, path: &str, error: reqwest::Error) -> Response {
    let message = format!(
        "mcpeval LLM proxy: cannot reach the LLM API at {} for {path}: {}",
        shared.upstream,
        error_chain(&error.without_url())
    );
    note_problem(shared, &message);
    api_error(shared.config.api, StatusCode::BAD_GATEWAY, &message)
}

fn note_problem(shared: &LlmProxyState, message: &str) {
    let message = secret::redact(message, &shared.config.secrets);
    lock(&shared.state).problems.push(message);
}
