//! [`OpenAiClient`]: the HTTP client of an OpenAI-compatible Chat Completions API, behind
//! the [`ChatClient`] seam.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::Value;

use super::error::{LlmError, QUOTE_LIMIT, api_message};
use crate::error_text::request_causes as causes;
use crate::text::shorten;

/// The future a [`ChatClient`] returns.
pub type ChatFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, LlmError>> + Send + 'a>>;

/// Something that answers Chat Completions requests: the real API, or a stand-in.
pub trait ChatClient: Send + Sync {
    /// Sends one request body (`model`, `messages`, `tools`, …) and returns the reply body.
    fn complete<'a>(&'a self, request: &'a Value) -> ChatFuture<'a>;
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

    /// `text` with every occurrence of the key replaced by `<redacted>`.
    pub fn redact(&self, text: &str) -> String {
        if self.0.is_empty() {
            text.to_owned()
        } else {
            text.replace(&self.0, "<redacted>")
        }
    }
}

impl From<&str> for ApiKey {
    fn from(key: &str) -> Self {
        Self::new(key)
    }
}

impl From<String> for ApiKey {
    fn from(key: String) -> Self {
        Self::new(key)
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
    /// How errors name the API (default `the LLM API`).
    pub name: &'static str,
}

impl OpenAiConfig {
    /// A config with default timeout and retries.
    pub fn new(base_url: impl Into<String>, api_key: ApiKey) -> Self {
        Self {
            base_url: base_url.into(),
            api_key,
            timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
            name: "the LLM API",
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

    async fn send(&self, request: &Value) -> Result<Value, LlmError> {
        let policy = &self.config.retry;
        let key = &self.config.api_key;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let retries_left = attempts <= policy.max_retries;
            let sent = self
                .http
                .post(&self.url)
                .bearer_auth(key.expose())
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
            let body = match response.text().await {
                Ok(body) => body,
                Err(error) => {
                    let message = format!("reading the reply: {}", causes(&error));
                    return Err(self.transport(key.redact(&message), attempts));
                }
            };
            if status.is_success() {
                return serde_json::from_str(&body).map_err(|error| LlmError::Malformed {
                    api: self.config.name,
                    url: self.url.clone(),
                    problem: format!("not JSON ({error})"),
                    body: key.redact(&shorten(body.trim(), QUOTE_LIMIT)),
                });
            }
            let retryable = status.as_u16() == 429 || status.is_server_error();
            if retryable && retries_left {
                tokio::time::sleep(policy.delay(attempts - 1, retry_after)).await;
                continue;
            }
            return Err(LlmError::Status {
                api: self.config.name,
                url: self.url.clone(),
                status: status.as_u16(),
                message: key.redact(&api_message(&body)),
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

impl ChatClient for OpenAiClient {
    fn complete<'a>(&'a self, request: &'a Value) -> ChatFuture<'a> {
        Box::pin(self.send(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(
            ApiKey::new("sk-secret").redact("bad key sk-secret!"),
            "bad key <redacted>!"
        );
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
}
