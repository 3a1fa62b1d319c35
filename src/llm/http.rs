//! Posting one JSON request to an LLM API: the credentials header of each API, retries on
//! 429, 5xx and connection errors (`Retry-After` honoured), the key redacted from every
//! error, and the API's own message quoted on the others.

use std::time::Duration;

use serde_json::Value;

use super::error::{LlmError, QUOTE_LIMIT, api_message};
use super::provider::LlmConfig;
use crate::plumbing::error_text::request_causes as causes;
use crate::plumbing::text::shorten;

/// How an API takes its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Auth {
    /// `Authorization: Bearer KEY` (OpenAI).
    Bearer,
    /// `x-api-key: KEY` and `anthropic-version` (Anthropic).
    Anthropic,
    /// `x-goog-api-key: KEY` (Gemini; never `?key=`, which would put it in URLs).
    Google,
}

/// The `anthropic-version` header the Anthropic client sends.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// One endpoint of one API, with its config.
#[derive(Debug, Clone)]
pub(super) struct Endpoint {
    http: reqwest::Client,
    pub(super) url: String,
    pub(super) config: LlmConfig,
    auth: Auth,
}

impl Endpoint {
    /// An endpoint at `url`; requests name mcpeval and its version as their User-Agent.
    pub(super) fn new(config: LlmConfig, url: String, auth: Auth) -> Result<Self, LlmError> {
        let http = crate::plumbing::tls::client_builder()
            .timeout(config.timeout)
            .user_agent(concat!("mcpeval/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(LlmError::Client)?;
        Ok(Self {
            http,
            url,
            config,
            auth,
        })
    }

    fn request(&self, body: &Value) -> reqwest::RequestBuilder {
        let key = self.config.api_key.expose();
        let request = self.http.post(&self.url).json(body);
        match self.auth {
            Auth::Bearer => request.bearer_auth(key),
            Auth::Anthropic => request
                .header("x-api-key", key)
                .header("anthropic-version", ANTHROPIC_VERSION),
            Auth::Google => request.header("x-goog-api-key", key),
        }
    }

    /// Sends `body`, retrying as the config says; the reply as JSON.
    pub(super) async fn post(&self, body: &Value) -> Result<Value, LlmError> {
        let policy = &self.config.retry;
        let key = &self.config.api_key;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let retries_left = attempts <= policy.max_retries;
            let response = match self.request(body).send().await {
                Ok(response) => response,
                Err(error) => {
                    if retries_left && (error.is_connect() || error.is_timeout()) {
                        tokio::time::sleep(policy.delay(attempts - 1, None)).await;
                        continue;
                    }
                    return Err(self.transport(key.redact(&causes(&error)), attempts));
                }
            };
            let status = response.status();
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let text = match response.text().await {
                Ok(text) => text,
                Err(error) => {
                    let message = format!("reading the reply: {}", causes(&error));
                    return Err(self.transport(key.redact(&message), attempts));
                }
            };
            if status.is_success() {
                return serde_json::from_str(&text).map_err(|error| LlmError::Malformed {
                    api: self.config.name,
                    url: self.url.clone(),
                    problem: format!("not JSON ({error})"),
                    body: key.redact(&shorten(text.trim(), QUOTE_LIMIT)),
                });
            }
            let retryable = status.as_u16() == 429 || status.is_server_error();
            if retryable && retries_left {
                tokio::time::sleep(policy.delay(attempts - 1, retry_after)).await;
                continue;
            }
            let mut message = key.redact(&api_message(&text));
            if key.is_placeholder() && matches!(status.as_u16(), 401 | 403) {
                message.push_str(&format!(
                    " (no API key is set: mcpeval handed over a placeholder that only replaying \
                     a cassette accepts; set {})",
                    self.config.key_vars
                ));
            }
            return Err(LlmError::Status {
                api: self.config.name,
                url: self.url.clone(),
                status: status.as_u16(),
                message,
                attempts,
            });
        }
    }

    fn transport(&self, message: String, attempts: u32) -> LlmError {
        LlmError::Transport {
            api: self.config.name,
            url: self.url.clone(),
            message,
            attempts,
        }
    }
}
