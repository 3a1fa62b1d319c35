//! mcpeval: test MCP servers the way agents use them.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// The version string shown by `mcpeval --version`: crate version and git commit.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("MCPEVAL_GIT_COMMIT"),
    ")"
);

pub mod agent;
pub mod assert;
pub mod config;
pub mod error_text;
pub mod exit;
pub mod extension;
pub mod file_stem;
pub mod harness;
pub mod interrupt;
pub mod json_schema;
pub mod llm;
pub mod llm_proxy;
mod lock;
pub mod loopback;
pub mod plan;
pub mod process;
pub mod proxy;
pub mod report;
pub mod schema_checks;
#[doc(hidden)]
pub mod script_agent;
pub mod secret;
pub mod snapshot;
pub mod steps;
pub mod text;
pub mod tokens;
pub mod trace;

pub use harness::Harness;
