//! Test support shared by the proxy tests: our own MCP server, a test agent, and finding
//! the third-party peers.
#![allow(dead_code)]

pub mod agent;
pub mod everything;
pub mod peers;
pub mod server;
pub mod setup;
