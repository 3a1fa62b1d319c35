//! The LLM APIs the proxy speaks: their config names, default base URLs, paths, and the
//! shape of an error answer.

use std::fmt;
use std::str::FromStr;

use serde_json::{Value, json};

/// An LLM API, as an agent program speaks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LlmApi {
    /// Anthropic Messages API: `POST /v1/messages` (any query, e.g. `?beta=true`).
    Anthropic,
    /// OpenAI Chat Completions: `POST …/chat/completions`.
    OpenAiChat,
    /// OpenAI Responses: `POST …/responses`.
    OpenAiResponses,
    /// Gemini API: `POST …/models/{model}:generateContent` and `:streamGenerateContent`.
    Gemini,
}

/// A name that is not one of the accepted ones, e.g. in a config file or a variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{given}` is not {what}: expected one of {}", names.join(", "))]
pub struct UnknownName {
    /// What the name should have named, e.g. "an LLM API".
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// The accepted names.
    pub names: Vec<&'static str>,
}

impl LlmApi {
    /// Every API, in the order of [`LlmApi::NAMES`].
    pub const ALL: [LlmApi; 4] = [
        LlmApi::Anthropic,
        LlmApi::OpenAiChat,
        LlmApi::OpenAiResponses,
        LlmApi::Gemini,
    ];

    /// The config names: `anthropic`, `openai-chat`, `openai-responses`, `gemini`.
    pub const NAMES: [&'static str; 4] = ["anthropic", "openai-chat", "openai-responses", "gemini"];

    /// The config name of this API.
    pub fn name(self) -> &'static str {
        match self {
            LlmApi::Anthropic => Self::NAMES[0],
            LlmApi::OpenAiChat => Self::NAMES[1],
            LlmApi::OpenAiResponses => Self::NAMES[2],
            LlmApi::Gemini => Self::NAMES[3],
        }
    }

    /// The public base URL, used when the agent's base-URL variable is not set.
    pub fn default_base_url(self) -> &'static str {
        match self {
            LlmApi::Anthropic => "https://api.anthropic.com",
            LlmApi::OpenAiChat | LlmApi::OpenAiResponses => "https://api.openai.com/v1",
            LlmApi::Gemini => "https://generativelanguage.googleapis.com",
        }
    }

    /// Whether `POST api_path` is a model call of this API. `api_path` is the path after
    /// the base URL's own path, without the query: `/v1/messages` for Anthropic,
    /// `/chat/completions` for OpenAI behind `https://api.openai.com/v1`.
    pub fn is_api_path(self, api_path: &str) -> bool {
        match self {
            LlmApi::Anthropic => api_path.trim_end_matches('/').ends_with("/v1/messages"),
            LlmApi::OpenAiChat => api_path
                .trim_end_matches('/')
                .ends_with("/chat/completions"),
            LlmApi::OpenAiResponses => api_path.trim_end_matches('/').ends_with("/responses"),
            LlmApi::Gemini => gemini_method(api_path).is_some(),
        }
    }

    /// Whether a request asks for a streamed (SSE) reply: `"stream": true` in the body, or
    /// Gemini's `streamGenerateContent`.
    pub fn is_streaming(self, api_path: &str, body: &Value) -> bool {
        match self {
            LlmApi::Gemini => gemini_method(api_path) == Some("streamGenerateContent"),
            _ => body.get("stream") == Some(&Value::Bool(true)),
        }
    }

    /// An error body in this API's own shape, for answers the proxy makes itself.
    pub(crate) fn error_body(self, status: u16, message: &str) -> Value {
        match self {
            LlmApi::Anthropic => json!({
                "type": "error",
                "error": {"type": anthropic_error_type(status), "message": message},
            }),
            LlmApi::OpenAiChat | LlmApi::OpenAiResponses => json!({
                "error": {"message": message, "type": "mcpeval_llm_proxy", "param": null,
                          "code": status.to_string()},
            }),
            LlmApi::Gemini => json!({
                "error": {"code": status, "message": message, "status": gemini_status(status)},
            }),
        }
    }
}

/// `generateContent` or `streamGenerateContent` when the path is `…/models/{model}:{method}`.
fn gemini_method(api_path: &str) -> Option<&str> {
    let (before, method) = api_path.rsplit_once(':')?;
    let model = before.rsplit_once("/models/")?.1;
    let known = matches!(method, "generateContent" | "streamGenerateContent");
    (known && !model.is_empty() && !model.contains('/')).then_some(method)
}

fn anthropic_error_type(status: u16) -> &'static str {
    match status {
        403 => "permission_error",
        404 => "not_found_error",
        400 => "invalid_request_error",
        _ => "api_error",
    }
}

fn gemini_status(status: u16) -> &'static str {
    match status {
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        400 => "INVALID_ARGUMENT",
        _ => "UNAVAILABLE",
    }
}

impl fmt::Display for LlmApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for LlmApi {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|api| api.name() == name)
            .ok_or_else(|| UnknownName {
                what: "an LLM API",
                given: name.to_owned(),
                names: Self::NAMES.to_vec(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_known_ones() {
        for api in LlmApi::ALL {
            assert_eq!(api.name().parse::<LlmApi>(), Ok(api));
        }
        let error = "openai".parse::<LlmApi>().unwrap_err().to_string();
        assert_eq!(
            error,
            "`openai` is not an LLM API: expected one of anthropic, openai-chat, \
             openai-responses, gemini"
        );
    }

    #[test]
    fn api_paths() {
        let cases = [
            (LlmApi::Anthropic, "/v1/messages", true),
            (LlmApi::Anthropic, "/v1/messages/count_tokens", false),
            (LlmApi::Anthropic, "/api/event_logging/batch", false),
            (LlmApi::OpenAiChat, "/chat/completions", true),
            (LlmApi::OpenAiChat, "/v1/chat/completions", true),
            (LlmApi::OpenAiChat, "/responses", false),
            (LlmApi::OpenAiResponses, "/responses", true),
            (LlmApi::OpenAiResponses, "/models", false),
            (
                LlmApi::Gemini,
                "/v1beta/models/gemini-3:generateContent",
                true,
            ),
            (
                LlmApi::Gemini,
                "/v1beta/models/gemini-3:streamGenerateContent",
                true,
            ),
            (LlmApi::Gemini, "/v1beta/models/gemini-3:countTokens", false),
            (LlmApi::Gemini, "/v1beta/models/:generateContent", false),
        ];
        for (api, path, expected) in cases {
            assert_eq!(api.is_api_path(path), expected, "{api} {path}");
        }
    }

    #[test]
    fn streaming_is_the_body_flag_or_the_gemini_method() {
        let streamed = json!({"stream": true});
        let plain = json!({"stream": false});
        assert!(LlmApi::Anthropic.is_streaming("/v1/messages", &streamed));
        assert!(!LlmApi::OpenAiChat.is_streaming("/chat/completions", &plain));
        assert!(LlmApi::Gemini.is_streaming("/v1beta/models/m:streamGenerateContent", &plain));
        assert!(!LlmApi::Gemini.is_streaming("/v1beta/models/m:generateContent", &streamed));
    }
}
