//! [`OpenAiClient`]: an OpenAI-compatible Chat Completions API.

use serde_json::Value;

use super::client::{ChatClient, ChatFuture};
use super::error::LlmError;
use super::http::{Auth, Endpoint};
use super::provider::LlmConfig;

/// The default base URL: the public OpenAI API.
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// The config of an OpenAI-compatible client (the name the judge and older code use).
pub type OpenAiConfig = LlmConfig;

/// POSTs Chat Completions bodies to `{base_url}/chat/completions` with a bearer key.
#[derive(Debug, Clone)]
pub struct OpenAiClient(Endpoint);

impl OpenAiClient {
    /// A client for `config`.
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        Endpoint::new(config, url, Auth::Bearer).map(Self)
    }

    /// The endpoint requests go to.
    pub fn url(&self) -> &str {
        &self.0.url
    }
}

impl ChatClient for OpenAiClient {
    fn complete<'a>(&'a self, request: &'a Value) -> ChatFuture<'a> {
        Box::pin(self.0.post(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ApiKey;

    #[test]
    fn the_url_is_under_the_base_and_the_key_is_never_shown() {
        let config = LlmConfig::new("http://x/v1/", ApiKey::new("sk-secret"));
        assert!(!format!("{config:?}").contains("sk-secret"));
        let client = OpenAiClient::new(config).unwrap();
        assert!(!format!("{client:?}").contains("sk-secret"));
        assert_eq!(client.url(), "http://x/v1/chat/completions");
    }
}
