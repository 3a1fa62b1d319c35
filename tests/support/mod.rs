//! Test support shared by the proxy tests: our own MCP server, a test agent, and finding
//! the third-party peers; fake LLM APIs for the agent tests.
#![allow(dead_code)]

pub mod agent;
pub mod cargo;
pub mod cli;
pub mod eval_run;
pub mod everything;
pub mod fake_anthropic;
pub mod fake_github;
pub mod fake_llm;
pub mod fake_openai;
pub mod fake_release;
pub mod faulty_http;
pub mod faulty_stdio;
pub mod files;
pub mod listing_server;
pub mod output;
pub mod peers;
pub mod raw_session;
pub mod result_template;
pub mod results_schema;
pub mod server;
pub mod setup;
pub mod versioned_server;
