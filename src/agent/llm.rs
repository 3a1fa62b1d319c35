//! The one seam between the builtin agents and their LLM: [`ChatClient`] takes a request
//! body and gives back the API's JSON reply. [`OpenAiClient`] is the real implementation
//! over HTTP (an OpenAI-compatible Chat Completions API); a recorder or a replayer of LLM
//! traffic is another implementation of the same trait.
//!
//! Bodies are plain [`serde_json::Value`]s, not typed structs: OpenAI-compatible servers
//! differ in small ways that typed clients reject, and JSON is what a cassette stores.

use crate::error_text::error_chain;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::Value;

/// The future a [`ChatClient`] returns.
pub type ChatFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, LlmError>> + Send + 'a>>;

/// Something that answers Chat Completions requests: the real API, or a recording of it.
pub trait ChatClient: Send + Sync {
    /// Sends one request body (`model`, `messages`, `tools`, …) and returns the reply body.
    fn complete<'a>(&'a self, request: &'a Value) -> ChatFuture<'a>;
}

/// Why a request to the LLM API failed.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// No API key in the environment.
    #[error("no API key for the OpenAI-compatible API: set OPENAI_API_KEY (or MODEL_KEY)")]
    MissingKey,
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client for the LLM API: {0}")]
    Client(#[source] reqwest::Error),
    /// The API answered with an error status (after the retries, for retryable ones).
    #[error("the LLM API at {url} answered HTTP {status} (after {attempts} attempt(s)): {message}")]
    Status {
        /// The endpoint.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The API's `error.message`, else the body text (trimmed, shortened).
        message: String,
        /// How many requests were sent.
        attempts: u32,
    },
    /// The API could not be reached or did not answer in time (after the retries).
    #[error("cannot reach the LLM API at {url} (after {attempts} attempt(s)): {message}")]
    Transport {
        /// The endpoint.
        url: String,
        /// What went wrong, with its causes.
        message: String,
        /// How many requests were sent.
        attempts: u32,
    },
    /// The reply is not what a Chat Completions API returns.
    #[error("the LLM API at {url} sent a malformed reply: {problem}; the reply was: {body}")]
    Malformed {
        /// The endpoint.
        url: String,
        /// What is wrong with it.
        problem: String,
        /// The reply (shortened).
        body: String,
    },
}

/// An API key; never shown by `Debug` or in errors.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// How often and how patiently a request is retried on 429, 5xx and connection errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (default 4).
    pub max_retries: u32,
    /// The delay before the first retry; it doubles with every retry (default 1 s).
    pub base_delay: Duration,
    /// The longest delay, for backoff and for a server's `Retry-After` (default 30 s).
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The delay before retry number `retry` (0-based), honouring `Retry-After` seconds.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let backoff = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(retry.min(16)));
        retry_after.unwrap_or(backoff).min(self.max_delay)
    }
}

/// The default base URL: the public OpenAI API.
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// Where and how to reach an OpenAI-compatible Chat Completions API.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// The base URL; requests go to `{base_url}/chat/completions`.
    pub base_url: String,
    /// The API key, sent as `Authorization: Bearer`.
    pub api_key: ApiKey,
    /// The timeout of one request (default 120 s).
    pub timeout: Duration,
    /// Retries on 429, 5xx and connection errors.
    pub retry: RetryPolicy,
}

impl OpenAiConfig {
    /// A config with default timeout and retries.
    pub fn new(base_url: impl Into<String>, api_key: ApiKey) -> Self {
        Self {
            base_url: base_url.into(),
            api_key,
            timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
        }
    }

    /// Reads `OPENAI_BASE_URL` and `OPENAI_API_KEY` through `lookup` (usually
    /// `|name| std::env::var(name).ok()`), falling back to mcpchecker's `MODEL_BASE_URL` and
    /// `MODEL_KEY`; empty values count as unset. The base URL defaults to the public API.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, LlmError> {
        let get = |names: [&str; 2]| {
            names
                .iter()
                .filter_map(|name| lookup(name))
                .map(|value| value.trim().to_owned())
                .find(|value| !value.is_empty())
        };
        let base_url = get(["OPENAI_BASE_URL", "MODEL_BASE_URL"])
            .unwrap_or_else(|| DEFAULT_OPENAI_BASE_URL.to_owned());
        let key = get(["OPENAI_API_KEY", "MODEL_KEY"]).ok_or(LlmError::MissingKey)?;
        Ok(Self::new(base_url, ApiKey::new(key)))
    }
}

/// The real [`ChatClient`]: POSTs to `{base_url}/chat/completions` with reqwest.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    url: String,
    config: OpenAiConfig,
}

impl OpenAiClient {
    /// A client for `config`.
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(LlmError::Client)?;
        let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        Ok(Self { http, url, config })
    }

    /// The endpoint requests go to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Removes the key from a text that is about to become part of an error.
    fn redact(&self, text: &str) -> String {
        let key = self.config.api_key.expose();
        if key.is_empty() {
            text.to_owned()
        } else {
            text.replace(key, "<redacted>")
        }
    }

    async fn send(&self, request: &Value) -> Result<Value, LlmError> {
        let policy = &self.config.retry;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let retries_left = attempts <= policy.max_retries;
            let sent = self
                .http
                .post(&self.url)
                .bearer_auth(self.config.api_key.expose())
                .json(request)
                .send()
                .await;
            let response = match sent {
                Ok(response) => response,
                Err(error) => {
                    if retries_left && (error.is_connect() || error.is_timeout()) {
                        tokio::time::sleep(policy.delay(attempts - 1, None)).await;
                        continue;
                    }
                    return Err(LlmError::Transport {
                        url: self.url.clone(),
                        message: self.redact(&error_chain(&error)),
                        attempts,
                    });
                }
            };
            let status = response.status();
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let body = match response.text().await {
                Ok(body) => body,
                Err(error) => {
                    return Err(LlmError::Transport {
                        url: self.url.clone(),
                        message: format!("reading the reply: {}", error_chain(&error)),
                        attempts,
                    });
                }
            };
            if status.is_success() {
                return serde_json::from_str(&body).map_err(|error| LlmError::Malformed {
                    url: self.url.clone(),
                    problem: format!("not JSON ({error})"),
                    body: self.redact(&shorten(body.trim())),
                });
            }
            let retryable = status.as_u16() == 429 || status.is_server_error();
            if retryable && retries_left {
                tokio::time::sleep(policy.delay(attempts - 1, retry_after)).await;
                continue;
            }
            return Err(LlmError::Status {
                url: self.url.clone(),
                status: status.as_u16(),
                message: self.redact(&api_message(&body)),
                attempts,
            });
        }
    }
}

impl ChatClient for OpenAiClient {
    fn complete<'a>(&'a self, request: &'a Value) -> ChatFuture<'a> {
        Box::pin(self.send(request))
    }
}

/// The API's `error.message` (or a string `error`), else the body text; trimmed, shortened.
fn api_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|json| {
        json["error"]["message"]
            .as_str()
            .or_else(|| json["error"].as_str())
            .or_else(|| json["message"].as_str())
    });
    let text = message.unwrap_or(body).trim();
    if text.is_empty() {
        "(empty body)".to_owned()
    } else {
        shorten(text)
    }
}

/// At most 2000 characters of `text`.
pub(crate) fn shorten(text: &str) -> String {
    const MAX: usize = 2000;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}… (shortened)", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Tokens used by an agent run, summed over every reply's `usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// `prompt_tokens`.
    pub prompt_tokens: u64,
    /// `completion_tokens`.
    pub completion_tokens: u64,
    /// `total_tokens` (prompt plus completion when the API does not say).
    pub total_tokens: u64,
}

impl TokenUsage {
    /// Adds the `usage` of one Chat Completions reply; a reply without one adds nothing.
    pub fn add_reply(&mut self, reply: &Value) {
        let usage = &reply["usage"];
        let count = |key: &str| usage[key].as_u64().unwrap_or(0);
        let (prompt, completion) = (count("prompt_tokens"), count("completion_tokens"));
        let total = usage["total_tokens"]
            .as_u64()
            .unwrap_or(prompt + completion);
        self.prompt_tokens += prompt;
        self.completion_tokens += completion;
        self.total_tokens += total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn config_prefers_openai_variables_and_falls_back_to_mcpchecker_ones() {
        let config = OpenAiConfig::from_env(env(&[
            ("OPENAI_BASE_URL", "http://a/v1"),
            ("MODEL_BASE_URL", "http://b/v1"),
            ("OPENAI_API_KEY", "k1"),
            ("MODEL_KEY", "k2"),
        ]))
        .unwrap();
        assert_eq!(
            (config.base_url.as_str(), config.api_key.expose()),
            ("http://a/v1", "k1")
        );
        let config = OpenAiConfig::from_env(env(&[
            ("MODEL_BASE_URL", "http://b/v1"),
            ("MODEL_KEY", "k2"),
        ]))
        .unwrap();
        assert_eq!(
            (config.base_url.as_str(), config.api_key.expose()),
            ("http://b/v1", "k2")
        );
        let config = OpenAiConfig::from_env(env(&[("OPENAI_API_KEY", "k1")])).unwrap();
        assert_eq!(config.base_url, DEFAULT_OPENAI_BASE_URL);
    }

    #[test]
    fn a_missing_key_names_both_variables_and_the_key_is_never_shown() {
        let error = OpenAiConfig::from_env(env(&[("OPENAI_API_KEY", " ")])).unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("OPENAI_API_KEY") && text.contains("MODEL_KEY"),
            "{text}"
        );
        let config = OpenAiConfig::new("http://x", ApiKey::new("sk-secret"));
        assert!(!format!("{config:?}").contains("sk-secret"));
        let client = OpenAiClient::new(config).unwrap();
        assert!(!format!("{client:?}").contains("sk-secret"));
        assert_eq!(client.url(), "http://x/chat/completions");
    }

    #[test]
    fn backoff_doubles_and_retry_after_is_honoured_up_to_the_cap() {
        let policy = RetryPolicy {
            max_retries: 4,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
        };
        let delays: Vec<u128> = (0..5).map(|r| policy.delay(r, None).as_millis()).collect();
        assert_eq!(delays, [100, 200, 400, 800, 1000]);
        assert_eq!(
            policy
                .delay(0, Some(Duration::from_millis(300)))
                .as_millis(),
            300
        );
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(60))).as_millis(),
            1000
        );
    }

    #[test]
    fn api_messages_come_from_error_message_else_the_body() {
        assert_eq!(
            api_message(r#"{"error": {"message": " bad key "}}"#),
            "bad key"
        );
        assert_eq!(api_message(r#"{"error": "nope"}"#), "nope");
        assert_eq!(api_message("  gateway down \n"), "gateway down");
        assert_eq!(api_message(""), "(empty body)");
    }

    #[test]
    fn usage_is_summed_over_replies() {
        let mut usage = TokenUsage::default();
        usage.add_reply(
            &json!({"usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
        );
        usage.add_reply(&json!({"usage": {"prompt_tokens": 7, "completion_tokens": 3}}));
        usage.add_reply(&json!({"choices": []}));
        assert_eq!(
            usage,
            TokenUsage {
                prompt_tokens: 17,
                completion_tokens: 8,
                total_tokens: 25
            }
        );
    }
}
