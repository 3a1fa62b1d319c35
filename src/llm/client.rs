//! The seam every LLM client sits behind ([`ChatClient`]), the API key that is never shown
//! ([`ApiKey`]) and the retry policy the clients share ([`RetryPolicy`]).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde_json::Value;

use super::error::LlmError;

/// The future a [`ChatClient`] returns.
pub type ChatFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, LlmError>> + Send + 'a>>;

/// Something that answers model requests of one LLM API: the real API, or a stand-in. The
/// body is in the API's own shape (Chat Completions `messages`, Anthropic Messages,
/// Gemini `contents`); the client knows the endpoint and the credentials.
pub trait ChatClient: Send + Sync {
    /// Sends one request body and returns the reply body.
    fn complete<'a>(&'a self, request: &'a Value) -> ChatFuture<'a>;
}

/// The key mcpeval hands an agent whose API key is not set, so that replaying from a
/// cassette needs no key; a real API refuses it.
pub const PLACEHOLDER_KEY: &str = "mcpeval-placeholder-key";

/// An API key; never shown by `Debug` or in errors.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the request's credentials header.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether this is mcpeval's [`PLACEHOLDER_KEY`] (no key was set).
    pub fn is_placeholder(&self) -> bool {
        self.0 == PLACEHOLDER_KEY
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_redacted_and_never_shown() {
        assert_eq!(
            ApiKey::new("sk-secret").redact("bad key sk-secret!"),
            "bad key <redacted>!"
        );
        assert!(!format!("{:?}", ApiKey::new("sk-secret")).contains("sk-secret"));
        assert!(ApiKey::new(PLACEHOLDER_KEY).is_placeholder());
        assert!(!ApiKey::new("sk-secret").is_placeholder());
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
