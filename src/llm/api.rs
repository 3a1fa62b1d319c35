//! [`ApiClient`]: the one HTTP client of every LLM API. What differs between the APIs is
//! where a request goes and which header carries the key; [`ApiClient::new`] decides both
//! from the [`Provider`], and [`Endpoint`] does the rest (retries, redaction, errors).

use serde_json::Value;

use super::client::{ChatClient, ChatFuture};
use super::error::LlmError;
use super::http::{Auth, Endpoint};
use super::provider::{LlmConfig, Provider};

/// The default base URL of OpenAI-compatible APIs: the public OpenAI API.
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// The config of an OpenAI-compatible client (the name the judge and older code use).
pub type OpenAiConfig = LlmConfig;

/// POSTs request bodies in the API's own shape to its endpoint under the base URL:
///
/// - OpenAI-compatible Chat Completions: `{base_url}/chat/completions`, a bearer key;
/// - Anthropic Messages: `{base_url}/v1/messages` (`base_url` as `ANTHROPIC_BASE_URL` takes
///   it), `x-api-key` and `anthropic-version: 2023-06-01`;
/// - Gemini: `{base_url}/v1beta/models/{model}:generateContent` (`base_url` as
///   `GOOGLE_GEMINI_BASE_URL` takes it), `x-goog-api-key` (the key never goes into the URL).
#[derive(Debug, Clone)]
pub struct ApiClient(Endpoint);

impl ApiClient {
    /// A client of `provider`'s API at `config`, for `model` (only Gemini names it in the
    /// URL; a leading `models/` is dropped).
    pub fn new(provider: Provider, config: LlmConfig, model: &str) -> Result<Self, LlmError> {
        let base = config.base_url.trim_end_matches('/');
        let (url, auth) = match provider {
            Provider::OpenAi => (format!("{base}/chat/completions"), Auth::Bearer),
            Provider::Anthropic => (format!("{base}/v1/messages"), Auth::Anthropic),
            Provider::Gemini => {
                let model = model.trim().trim_start_matches("models/");
                let url = format!("{base}/v1beta/models/{model}:generateContent");
                (url, Auth::Google)
            }
        };
        Endpoint::new(config, url, auth).map(Self)
    }

    /// The endpoint requests go to.
    pub fn url(&self) -> &str {
        &self.0.url
    }
}

impl ChatClient for ApiClient {
    fn complete<'a>(&'a self, request: &'a Value) -> ChatFuture<'a> {
        Box::pin(self.0.post(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ApiKey;

    fn url(provider: Provider, base: &str, model: &str) -> String {
        let config = LlmConfig::new(base, ApiKey::new("sk-secret"));
        let client = ApiClient::new(provider, config, model).unwrap();
        assert!(!format!("{client:?}").contains("sk-secret"));
        client.url().to_owned()
    }

    #[test]
    fn each_api_has_its_endpoint_under_the_base_and_the_key_is_never_shown() {
        let openai = url(Provider::OpenAi, "http://x/v1/", "m");
        assert_eq!(openai, "http://x/v1/chat/completions");
        let anthropic = url(Provider::Anthropic, "http://x/", "m");
        assert_eq!(anthropic, "http://x/v1/messages");
        let gemini = url(Provider::Gemini, "http://x/", "models/gemini-test");
        assert_eq!(gemini, "http://x/v1beta/models/gemini-test:generateContent");
        assert!(
            !format!(
                "{:?}",
                LlmConfig::new("http://x/", ApiKey::new("sk-secret"))
            )
            .contains("sk-secret")
        );
    }
}
