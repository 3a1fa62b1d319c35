//! [`GeminiClient`]: the Gemini API's `generateContent`.

use serde_json::Value;

use super::client::{ChatClient, ChatFuture};
use super::error::LlmError;
use super::http::{Auth, Endpoint};
use super::provider::LlmConfig;

/// POSTs `generateContent` bodies to `{base_url}/v1beta/models/{model}:generateContent`
/// with `x-goog-api-key` (the key never goes into the URL).
#[derive(Debug, Clone)]
pub struct GeminiClient(Endpoint);

impl GeminiClient {
    /// A client for `model` (a leading `models/` is dropped) at `config` (`base_url` as
    /// `GOOGLE_GEMINI_BASE_URL` takes it: `https://generativelanguage.googleapis.com`).
    pub fn new(config: LlmConfig, model: &str) -> Result<Self, LlmError> {
        let model = model.trim().trim_start_matches("models/");
        let url = format!(
            "{}/v1beta/models/{model}:generateContent",
            config.base_url.trim_end_matches('/')
        );
        Endpoint::new(config, url, Auth::Google).map(Self)
    }

    /// The endpoint requests go to.
    pub fn url(&self) -> &str {
        &self.0.url
    }
}

impl ChatClient for GeminiClient {
    fn complete<'a>(&'a self, request: &'a Value) -> ChatFuture<'a> {
        Box::pin(self.0.post(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ApiKey;

    #[test]
    fn the_model_is_in_the_url_and_the_key_is_not() {
        let config = LlmConfig::new("http://x/", ApiKey::new("secret-key"));
        let client = GeminiClient::new(config, "models/gemini-test").unwrap();
        assert_eq!(
            client.url(),
            "http://x/v1beta/models/gemini-test:generateContent"
        );
    }
}
