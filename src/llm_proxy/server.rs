//! The proxy's HTTP side: every request on one of the API's paths is answered from the
//! cassette or forwarded; anything else gets 404.

use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::Response;
use serde_json::Value;

use super::cassette::RecordedResponse;
use super::divergence::Divergence;
use super::forward::{self, Capture};
use super::matching::Replay;
use super::normalize::{request_key, without_key_param};
use super::state::{ApiRequest, CallTime, LlmProxyState, RunState, api_error};
use crate::plumbing::lock::lock;
use crate::plumbing::secret;

enum Decision {
    Replay(RecordedResponse),
    Diverged(String),
    Forward(Option<usize>),
}

pub(crate) fn router(shared: Arc<LlmProxyState>) -> axum::Router {
    axum::Router::new()
        .fallback(handle)
        .layer(axum::extract::DefaultBodyLimit::disable())
        .with_state(shared)
}

async fn handle(
    State(shared): State<Arc<LlmProxyState>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(refusal) = crate::plumbing::loopback::check(&headers) {
        lock(&shared.state)
            .refused
            .push(format!("{method} {} ({})", uri.path(), refusal.reason));
        return api_error(shared.config.api, refusal.status, refusal.reason);
    }
    let api_path = uri
        .path()
        .strip_prefix(shared.base_path.as_str())
        .filter(|rest| rest.starts_with('/'));
    let Some(api_path) =
        api_path.filter(|path| method == Method::POST && shared.config.api.is_api_path(path))
    else {
        lock(&shared.state)
            .refused
            .push(format!("{method} {}", uri.path()));
        let message = format!(
            "mcpeval LLM proxy: {method} {} is not a {} model call; not forwarded",
            uri.path(),
            shared.config.api
        );
        return api_error(shared.config.api, StatusCode::NOT_FOUND, &message);
    };
    let request = api_request(&shared, method, &uri, api_path, headers, body);
    match decide(&shared, &request) {
        Decision::Replay(response) => replay(&response),
        Decision::Diverged(message) => {
            api_error(shared.config.api, StatusCode::FORBIDDEN, &message)
        }
        Decision::Forward(slot) => {
            let capture = slot.map(|index| Capture {
                shared: shared.clone(),
                index,
                method: request.method.to_string(),
                path: request.path.clone(),
                key: request.key.clone(),
                normalized: request.normalized.clone(),
            });
            forward::forward(&shared, request, capture).await
        }
    }
}

fn api_request(
    shared: &LlmProxyState,
    method: Method,
    uri: &Uri,
    api_path: &str,
    headers: HeaderMap,
    body: Bytes,
) -> ApiRequest {
    let path = without_key_param(api_path, uri.query());
    let upstream_path = match uri.query() {
        Some(query) => format!("{api_path}?{query}"),
        None => api_path.to_owned(),
    };
    // A body that is not JSON is matched and stored as its text.
    let json = serde_json::from_slice::<Value>(&body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    let normalized = shared.normalizer.normalize(&json);
    let key = request_key(method.as_str(), &path, &normalized);
    ApiRequest {
        method,
        upstream_path,
        path,
        headers,
        body,
        key,
        normalized,
    }
}

fn decide(shared: &LlmProxyState, request: &ApiRequest) -> Decision {
    let asked = Instant::now();
    let mut state = lock(&shared.state);
    state.requests += 1;
    if state.agent_now.is_none() {
        state.agent_now = user_agent_product(&request.headers);
    }
    if state.divergence.is_some() {
        return Decision::Diverged(diverged_again(shared, request));
    }
    if !state.live {
        let record = state.record;
        let replay = state.replay.get_or_insert_with(|| Replay::new(Vec::new()));
        if let Some(interaction) = replay.take(&request.key) {
            let interaction = interaction.clone();
            let response = interaction.response.clone();
            state.replayed += 1;
            let body = (response.status >= 400).then(|| response.body());
            state.note_answer(response.status, body.as_deref().map(str::as_bytes));
            let api = shared.config.api;
            state.note_usage(api, &request.path, &request.normalized, &response);
            let replayed_seq = Some(interaction.seq);
            let slot = record.then(|| {
                state.written.push(Some(interaction));
                state.written.len() - 1
            });
            state.times.push(CallTime {
                replayed_seq,
                slot,
                asked,
                answered: None,
            });
            return Decision::Replay(response);
        }
        if !record {
            let divergence = divergence(shared, &state, request);
            let message = secret::redact(&divergence.to_string(), &shared.config.secrets);
            state.divergence = Some(divergence);
            shared.diverged.cancel();
            return Decision::Diverged(message);
        }
        // new_episodes: from the first miss on, everything goes live and is recorded.
        state.live = true;
    }
    if state.record {
        state.written.push(None);
        let slot = state.written.len() - 1;
        state.times.push(CallTime {
            replayed_seq: None,
            slot: Some(slot),
            asked,
            answered: None,
        });
        Decision::Forward(Some(slot))
    } else {
        state.passed_through += 1;
        Decision::Forward(None)
    }
}

fn divergence(shared: &LlmProxyState, state: &RunState, request: &ApiRequest) -> Divergence {
    let config = &shared.config;
    let replay = state.replay.as_ref();
    let mut closest = replay.and_then(|replay| replay.closest(&request.path, &request.normalized));
    if let Some(difference) = closest.as_mut().and_then(|c| c.difference.as_mut()) {
        difference.recorded = secret::redact(&difference.recorded, &config.secrets);
        difference.now = secret::redact(&difference.now, &config.secrets);
    }
    Divergence {
        request_number: state.requests,
        method: request.method.to_string(),
        path: request.path.clone(),
        cassette: config.cassette.clone(),
        mode: config.mode,
        played: replay.map_or(0, Replay::played_count),
        total: replay.map_or(0, Replay::total),
        agent_now: config
            .agent_version
            .clone()
            .or_else(|| state.agent_now.clone()),
        agent_recorded: state.agent_recorded.clone(),
        closest,
        rerecord_command: config.rerecord_command(),
    }
}

fn diverged_again(shared: &LlmProxyState, request: &ApiRequest) -> String {
    format!(
        "mcpeval LLM proxy: {} {} not answered: an earlier request diverged from the cassette {}",
        request.method,
        request.path,
        shared.config.cassette.display()
    )
}

/// The first word of the User-Agent (`claude-cli/2.1.330`), which names the program and
/// its version without the platform details.
fn user_agent_product(headers: &HeaderMap) -> Option<String> {
    let agent = headers.get(header::USER_AGENT)?.to_str().ok()?;
    agent.split_whitespace().next().map(str::to_owned)
}

fn replay(response: &RecordedResponse) -> Response {
    let status = StatusCode::from_u16(response.status).unwrap_or(StatusCode::OK);
    let mut answer = Response::new(Body::from(response.body()));
    *answer.status_mut() = status;
    if let Some(content_type) = response
        .content_type
        .as_deref()
        .and_then(|value| value.parse().ok())
    {
        answer
            .headers_mut()
            .insert(header::CONTENT_TYPE, content_type);
    }
    answer
}
