//! What the request handlers of one proxy share: the run's configuration and state, and
//! one model call as the proxy sees it; and the proxy's own answers in an API's error shape.

use std::sync::Mutex;
use std::time::Instant;

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::cassette::Interaction;
use super::divergence::Divergence;
use super::matching::Replay;
use super::normalize::RequestNormalizer;
use super::{LlmApi, LlmProxyConfig};

/// What the request handlers share.
pub(crate) struct LlmProxyState {
    pub(crate) config: LlmProxyConfig,
    pub(crate) normalizer: RequestNormalizer,
    pub(crate) client: reqwest::Client,
    /// The upstream base URL without a trailing slash.
    pub(crate) upstream: String,
    /// The path of the upstream base URL (`/v1`, or empty), which the agent's requests keep.
    pub(crate) base_path: String,
    pub(crate) state: Mutex<RunState>,
    pub(crate) diverged: CancellationToken,
    pub(crate) captures: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

/// What happened so far in this run.
#[derive(Debug, Default)]
pub(crate) struct RunState {
    /// The cassette being replayed, if the run started by replaying.
    pub(crate) replay: Option<Replay>,
    /// Requests go to the upstream (recording, passthrough, or `new_episodes` after a miss).
    pub(crate) live: bool,
    /// Live answers are recorded.
    pub(crate) record: bool,
    /// The interactions to write, in order; `None` while its answer is still streaming.
    pub(crate) written: Vec<Option<Interaction>>,
    pub(crate) requests: usize,
    pub(crate) replayed: usize,
    pub(crate) recorded: usize,
    pub(crate) passed_through: usize,
    pub(crate) divergence: Option<Divergence>,
    /// The agent's User-Agent product (`claude-cli/2.1.330`), from its first request.
    pub(crate) agent_now: Option<String>,
    pub(crate) agent_recorded: Option<String>,
    pub(crate) refused: Vec<String>,
    pub(crate) problems: Vec<String>,
    /// The status of the API's latest answer (live or replayed) and, for an error, its
    /// message: whether the agent's last model call was refused.
    pub(crate) last_answer: Option<(u16, Option<String>)>,
    /// When each model call of the cassette was asked and answered.
    pub(crate) times: Vec<CallTime>,
    /// What each answered model call used (live or replayed), when its answer said.
    pub(crate) usage: Vec<crate::llm::ModelUsage>,
}

/// When one model call that is (or will be) in the cassette was asked and answered.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallTime {
    /// Its number in the cassette that was replayed.
    pub(crate) replayed_seq: Option<usize>,
    /// Its slot in `RunState::written`, when the run records.
    pub(crate) slot: Option<usize>,
    pub(crate) asked: Instant,
    /// When the live answer was whole; `None` for a replayed one (answered at once) and one
    /// that never ended.
    pub(crate) answered: Option<Instant>,
}

impl RunState {
    /// Notes what the call to `path` (its request `request`) answered with `response`
    /// used, when the answer says.
    pub(crate) fn note_usage(
        &mut self,
        api: LlmApi,
        path: &str,
        request: &Value,
        response: &super::cassette::RecordedResponse,
    ) {
        self.usage
            .extend(super::usage::call_usage(api, path, request, response));
    }

    /// Notes the API's latest answer: `status`, and `body` when it is an error.
    pub(crate) fn note_answer(&mut self, status: u16, body: Option<&[u8]>) {
        let message = body.filter(|_| status >= 400).map(error_message);
        self.last_answer = Some((status, message));
    }
}

/// The message of an API error body (`error.message` in every API's shape), else its text.
fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|json| json["error"]["message"].as_str().map(str::to_owned))
        .unwrap_or_else(|| crate::plumbing::text::shorten(text.trim(), 300))
}

/// One model call, as the proxy sees it.
pub(crate) struct ApiRequest {
    pub(crate) method: Method,
    /// The path after the base path, with the query as sent (what goes upstream).
    pub(crate) upstream_path: String,
    /// The path after the base path, without `key=` (what is stored and matched).
    pub(crate) path: String,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    pub(crate) key: String,
    pub(crate) normalized: Value,
}

/// An answer of the proxy itself, as an error body of the API.
pub(crate) fn api_error(api: LlmApi, status: StatusCode, message: &str) -> Response {
    let body = api.error_body(status.as_u16(), message).to_string();
    let json = [(axum::http::header::CONTENT_TYPE, "application/json")];
    (status, json, body).into_response()
}
