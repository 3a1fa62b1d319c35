//! The recording proxies: the MCP proxy (stdio and streamable HTTP, its lifecycle, faults on
//! purpose as a client sees them, conformance against real servers) and the LLM record/replay
//! proxy with its TLS.

#[path = "../support/mod.rs"]
mod support;

mod conformance;
mod everything;
mod faults;
mod http;
mod lifecycle;
mod llm;
mod passthrough;
mod recording;
mod scripted_user;
mod tls;
