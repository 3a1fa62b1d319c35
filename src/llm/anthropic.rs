//! [`AnthropicClient`]: the Anthropic Messages API.

use serde_json::Value;

use super::client::{ChatClient, ChatFuture};
use super::error::LlmError;
use super::http::{Auth, Endpoint};
use super::provider::LlmConfig;

/// POSTs Messages bodies to `{base_url}/v1/messages` with `x-api-key` and
/// `anthropic-version: 2023-06-01`.
#[derive(Debug, Clone)]
pub struct AnthropicClient(Endpoint);

impl AnthropicClient {
    /// A client for `config` (`base_url` as `ANTHROPIC_BASE_URL` takes it:
    /// `https://api.anthropic.com`).
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        let url = format!("{}/v1/messages", config.base_url.trim_end_matches('/'));
        Endpoint::new(config, url, Auth::Anthropic).map(Self)
    }

    /// The endpoint requests go to.
    pub fn url(&self) -> &str {
        &self.0.url
    }
}

impl ChatClient for AnthropicClient {
    fn complete<'a>(&'a self, request: &'a Value) -> ChatFuture<'a> {
        Box::pin(self.0.post(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ApiKey;

    #[test]
    fn the_url_is_v1_messages_under_the_base() {
        let client = AnthropicClient::new(LlmConfig::new("http://x/", ApiKey::new("k"))).unwrap();
        assert_eq!(client.url(), "http://x/v1/messages");
    }
}
