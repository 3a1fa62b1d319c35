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

pub mod proxy;
pub mod trace;
