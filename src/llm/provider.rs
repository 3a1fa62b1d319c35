//! The providers of mcpchecker's `builtin.llm-agent` (`provider:model`), where each one's
//! API is and which variables carry its base URL and key ([`LlmConfig::from_env`]).

use std::fmt;
use std::time::Duration;

use super::ApiClient;
use super::client::{ApiKey, ChatClient, RetryPolicy};
use super::error::LlmError;

/// An LLM provider: the API family a model is reached through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// `openai:`: an OpenAI-compatible Chat Completions API.
    OpenAi,
    /// `anthropic:`: the Anthropic Messages API.
    Anthropic,
    /// `gemini:` or `google:`: the Gemini API (`generateContent`).
    Gemini,
}

impl Provider {
    /// The provider named `name` in a `provider:model` string: `openai`, `anthropic`,
    /// `gemini` or its synonym `google`.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "openai" => Some(Provider::OpenAi),
            "anthropic" => Some(Provider::Anthropic),
            "gemini" | "google" => Some(Provider::Gemini),
            _ => None,
        }
    }

    /// The provider's name: `openai`, `anthropic`, `gemini`.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }

    /// How messages name its API.
    pub fn api_name(self) -> &'static str {
        match self {
            Provider::OpenAi => "the OpenAI-compatible API",
            Provider::Anthropic => "the Anthropic API",
            Provider::Gemini => "the Gemini API",
        }
    }

    /// The variables of its base URL, in order (mcpchecker's and the providers' SDKs').
    pub fn base_url_vars(self) -> &'static [&'static str] {
        match self {
            Provider::OpenAi => &["OPENAI_BASE_URL", "MODEL_BASE_URL"],
            Provider::Anthropic => &["ANTHROPIC_BASE_URL"],
            Provider::Gemini => &["GOOGLE_GEMINI_BASE_URL"],
        }
    }

    /// The variables of its API key, in order (mcpchecker's order).
    pub fn key_vars(self) -> &'static [&'static str] {
        match self {
            Provider::OpenAi => &["OPENAI_API_KEY", "MODEL_KEY"],
            Provider::Anthropic => &["ANTHROPIC_API_KEY"],
            Provider::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        }
    }

    /// The public base URL, when no variable names one.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Provider::OpenAi => super::DEFAULT_OPENAI_BASE_URL,
            Provider::Anthropic => "https://api.anthropic.com",
            Provider::Gemini => "https://generativelanguage.googleapis.com",
        }
    }

    /// The client of this provider's API for `model` (Gemini names the model in its URL).
    pub fn client(self, config: LlmConfig, model: &str) -> Result<Box<dyn ChatClient>, LlmError> {
        Ok(Box::new(ApiClient::new(self, config, model)?))
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `A (or B)`: how messages name a list of variables.
fn either(vars: &[&str]) -> String {
    match vars {
        [] => "the API key variable".to_owned(),
        [one] => (*one).to_owned(),
        [first, rest @ ..] => format!("{first} (or {})", rest.join(", ")),
    }
}

/// Where and how to reach one LLM API.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// The base URL (the API's path is added by the client).
    pub base_url: String,
    /// The API key, sent in the API's credentials header.
    pub api_key: ApiKey,
    /// The timeout of one request (default 120 s).
    pub timeout: Duration,
    /// Retries on 429, 5xx and connection errors.
    pub retry: RetryPolicy,
    /// How errors name the API (default `the LLM API`).
    pub name: &'static str,
    /// The variables the key comes from, for the hint when the API refuses mcpeval's
    /// placeholder key (default: none named).
    pub key_vars: String,
}

impl LlmConfig {
    /// A config with default timeout and retries.
    pub fn new(base_url: impl Into<String>, api_key: ApiKey) -> Self {
        Self {
            base_url: base_url.into(),
            api_key,
            timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
            name: "the LLM API",
            key_vars: "the API key variable".to_owned(),
        }
    }

    /// Reads `provider`'s base URL and key variables through `lookup` (usually
    /// `|name| std::env::var(name).ok()`), the first set one of each winning: see
    /// [`Provider::base_url_vars`] and [`Provider::key_vars`]. Empty values count as unset;
    /// the base URL defaults to the public API. Errors name the API as
    /// [`Provider::api_name`] does. No key is [`LlmError::MissingKey`].
    pub fn from_env(
        provider: Provider,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, LlmError> {
        let get = |names: &[&str]| {
            names
                .iter()
                .filter_map(|name| lookup(name))
                .map(|value| value.trim().to_owned())
                .find(|value| !value.is_empty())
        };
        let base_url =
            get(provider.base_url_vars()).unwrap_or_else(|| provider.default_base_url().to_owned());
        let key_vars = either(provider.key_vars());
        let key = get(provider.key_vars()).ok_or_else(|| LlmError::MissingKey {
            api: provider.api_name(),
            vars: key_vars.clone(),
        })?;
        let mut config = Self::new(base_url, ApiKey::new(key));
        config.name = provider.api_name();
        config.key_vars = key_vars;
        Ok(config)
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

    fn read(provider: Provider, pairs: &[(&str, &str)]) -> (String, String) {
        let config = LlmConfig::from_env(provider, env(pairs)).unwrap();
        (config.base_url, config.api_key.expose().to_owned())
    }

    #[test]
    fn openai_prefers_its_variables_and_falls_back_to_mcpchecker_ones() {
        let all = [
            ("OPENAI_BASE_URL", "http://a/v1"),
            ("MODEL_BASE_URL", "http://b/v1"),
            ("OPENAI_API_KEY", "k1"),
            ("MODEL_KEY", "k2"),
        ];
        assert_eq!(
            read(Provider::OpenAi, &all),
            ("http://a/v1".into(), "k1".into())
        );
        let fallback = [("MODEL_BASE_URL", "http://b/v1"), ("MODEL_KEY", "k2")];
        assert_eq!(
            read(Provider::OpenAi, &fallback),
            ("http://b/v1".into(), "k2".into())
        );
        let key_only = [("OPENAI_API_KEY", "k1")];
        assert_eq!(
            read(Provider::OpenAi, &key_only).0,
            super::super::DEFAULT_OPENAI_BASE_URL
        );
    }

    #[test]
    fn anthropic_and_gemini_read_the_variables_of_mcpchecker_and_their_sdks() {
        let anthropic = [
            ("ANTHROPIC_BASE_URL", "http://a"),
            ("ANTHROPIC_API_KEY", "ka"),
        ];
        assert_eq!(
            read(Provider::Anthropic, &anthropic),
            ("http://a".into(), "ka".into())
        );
        assert_eq!(
            read(Provider::Anthropic, &[("ANTHROPIC_API_KEY", "ka")]).0,
            "https://api.anthropic.com"
        );
        // mcpchecker's order: GEMINI_API_KEY before GOOGLE_API_KEY.
        let both = [("GEMINI_API_KEY", "kg"), ("GOOGLE_API_KEY", "kgo")];
        assert_eq!(read(Provider::Gemini, &both).1, "kg");
        let google = [
            ("GOOGLE_API_KEY", "kgo"),
            ("GOOGLE_GEMINI_BASE_URL", "http://g"),
        ];
        assert_eq!(
            read(Provider::Gemini, &google),
            ("http://g".into(), "kgo".into())
        );
        assert_eq!(
            read(Provider::Gemini, &[("GEMINI_API_KEY", "kg")]).0,
            "https://generativelanguage.googleapis.com"
        );
    }

    #[test]
    fn a_missing_key_names_the_provider_and_its_variables() {
        let cases = [
            (
                Provider::OpenAi,
                "OpenAI-compatible API: set OPENAI_API_KEY (or MODEL_KEY)",
            ),
            (Provider::Anthropic, "Anthropic API: set ANTHROPIC_API_KEY"),
            (
                Provider::Gemini,
                "Gemini API: set GEMINI_API_KEY (or GOOGLE_API_KEY)",
            ),
        ];
        for (provider, words) in cases {
            let error = LlmConfig::from_env(provider, env(&[("OPENAI_API_KEY", " ")]))
                .unwrap_err()
                .to_string();
            assert!(error.contains(words), "{provider}: {error}");
        }
    }

    #[test]
    fn providers_parse_with_google_as_gemini() {
        assert_eq!(Provider::parse("google"), Some(Provider::Gemini));
        assert_eq!(Provider::parse("gemini"), Some(Provider::Gemini));
        assert_eq!(Provider::parse("anthropic"), Some(Provider::Anthropic));
        assert_eq!(Provider::parse("openai"), Some(Provider::OpenAi));
        assert_eq!(Provider::parse("mistral"), None);
    }
}
