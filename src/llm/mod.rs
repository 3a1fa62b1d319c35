//! The one LLM client of mcpeval, used by `builtin.llm-agent`, by `llmJudge` steps and by
//! the judge model answering a server's sampling requests ([`Sampler`]): one
//! HTTP client per API (OpenAI-compatible Chat Completions, Anthropic Messages, Gemini
//! `generateContent`) with one retry policy (429, 5xx and connection errors, `Retry-After`
//! honoured), one redaction of the API key, and errors that name the API, the status and
//! the API's own message.
//!
//! The seam is [`ChatClient`]: it takes a request body in the API's own shape and gives
//! back the API's JSON reply. [`ApiClient`] is the implementation over HTTP, one for every
//! API; [`Provider`] picks the API and [`LlmConfig::from_env`]
//! reads its base URL and key the way mcpchecker does. Recording and replaying LLM traffic
//! happens behind the base URL a client is given.
//!
//! Bodies are plain [`serde_json::Value`]s, not typed structs: compatible servers differ in
//! small ways that typed clients reject, and JSON is what a cassette stores.

mod api;
mod client;
mod error;
mod http;
pub mod pricing;
mod provider;
mod sampling;
mod usage;

pub use api::{ApiClient, DEFAULT_OPENAI_BASE_URL, OpenAiConfig};
pub use client::{ApiKey, ChatClient, ChatFuture, PLACEHOLDER_KEY, RetryPolicy};
pub use error::LlmError;
pub use provider::{LlmConfig, Provider};
pub use sampling::Sampler;
pub use usage::{ModelUsage, TokenUsage};
