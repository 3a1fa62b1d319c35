//! The proxy's own transports to the server under test, which see a failing server for what
//! it is: a stdio server started in its own process group (`process.rs`), its stdout read
//! as bounded lines (`lines.rs`) and each decoded (`server_line.rs`), over [`StdioTransport`];
//! an HTTP server over rmcp's streamable HTTP client with our own HTTP layer
//! ([`http_transport`], its SSE answers checked in `http_sse.rs`). A server that exits or
//! answers with something that is not MCP is noted as a failure, and the requests waiting
//! for it (`pending.rs`) end at once.

mod http_client;
mod http_sse;
mod lines;
mod pending;
mod process;
mod server_line;
mod stdio;

pub(crate) use http_client::{client_transport, http_transport};
pub(crate) use lines::{Line, LineReader};
pub(crate) use pending::describe_request;
pub(crate) use process::{ServerProcess, spawn_stdio};
pub use stdio::MAX_MESSAGE_SIZE;
pub(crate) use stdio::StdioTransport;
