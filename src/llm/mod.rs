//! The one LLM client of mcpeval, used by `builtin.openai-agent` and by `llmJudge` steps:
//! an OpenAI-compatible Chat Completions API over HTTP, with one retry policy (429, 5xx and
//! connection errors, `Retry-After` honoured) and one redaction of the API key.
//!
//! The seam is [`ChatClient`]: it takes a request body and gives back the API's JSON reply.
//! [`OpenAiClient`] is the implementation over HTTP; recording and replaying LLM traffic
//! happens behind the base URL it is given.
//!
//! Bodies are plain [`serde_json::Value`]s, not typed structs: OpenAI-compatible servers
//! differ in small ways that typed clients reject, and JSON is what a cassette stores.

mod client;
mod error;
mod usage;

pub use client::{
    ApiKey, ChatClient, ChatFuture, DEFAULT_OPENAI_BASE_URL, OpenAiClient, OpenAiConfig,
    RetryPolicy,
};
pub use error::LlmError;
pub use usage::TokenUsage;
