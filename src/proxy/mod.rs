//! The recording proxy: one per MCP server of a task run.
//!
//! Towards the agent it is an MCP server over streamable HTTP on `127.0.0.1` (a random
//! port, path `/mcp`); towards the real server an MCP client over stdio (a child process in
//! its own process group) or streamable HTTP. Everything passes through in both
//! directions; `tools/call`, `resources/read` and `prompts/get` are recorded as
//! [`RecordedCall`](crate::trace::RecordedCall)s and list calls as discovery events, into a
//! [`CallRecorder`] that the proxies of one run share.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcpeval::proxy::ProxyError> {
//! use mcpeval::proxy::{CallRecorder, Proxy, Upstream};
//!
//! let recorder = CallRecorder::new();
//! let upstream = Upstream::Stdio {
//!     command: "mcp-server-everything".into(),
//!     args: vec!["stdio".into()],
//!     env: vec![],
//!     cwd: None,
//! };
//! let proxy = Proxy::start("everything", upstream, &recorder, "target/logs".as_ref()).await?;
//! println!("agent connects to {}", proxy.url());
//! // … the agent works …
//! proxy.shutdown().await;
//! let trace = recorder.trace();
//! # Ok(()) }
//! ```
//!
//! The agent-facing transport is our own (`agent/http.rs`): a request answered quickly is
//! answered with one JSON body, one with progress or server→client requests first, or a
//! slow one, with an SSE stream. Each proxy runs on a thread of its own (a single-threaded
//! tokio runtime), so a call's hand-offs between tasks stay on one thread.
//!
//! Each agent session (each `initialize`) gets its own connection to the server, made
//! during that `initialize` with the agent's own client info and capabilities; a stdio
//! server is started fresh for it. Clients that open with `server/discover` (protocol
//! 2026-07-28) get "method not found" and fall back to `initialize`.
//!
//! The server is asked for the agent's protocol version, and its answer is repeated to the
//! agent, unless it has no `initialize` handshake (2026-07-28): the proxy then speaks it
//! with the server and a handshake version with the agent. A version rmcp does not know is
//! the server's failure (`server/versions.rs`).
//!
//! The server's side runs over the proxy's own transports (`transport/`), which see a
//! failing server for what it is: a server that cannot be started or reached, exits,
//! answers with an HTTP error or with something that is not a JSON-RPC message (or one over
//! [`MAX_MESSAGE_SIZE`]) is noted as a [`ServerFailure`] ([`ProxyHandle::server_failures`]),
//! and the call waiting for the answer ends at once with a JSON-RPC error saying so.
//!
//! The room, as a request crosses it: `handle.rs` starts a proxy ([`Proxy`]); `agent/` is
//! the proxy as the agent's MCP server (HTTP face, sessions, the fault layer, the handler
//! that records); `server/` the proxy as the real server's client (one connection per agent
//! session, forwarding); `transport/` its own transports to the server. Beneath them,
//! `inputs/` holds what a proxy is given ([`Upstream`], [`ProxyOptions`], [`ToolRewrite`],
//! [`FaultPlan`]) and `record/` what it records ([`CallRecorder`], [`ServerFailure`],
//! [`ProxyError`]). Each wing imports only those after it in this list, and only through
//! their faces. In `proxy/` a fault is always one on purpose (a `faults` rule's), a failure
//! the server's own, and a session the MCP session an agent opens.
//!
//! rmcp logs every JSON-RPC error at WARN and notifications at INFO; a program that installs
//! a `tracing` subscriber should add the directive [`LOG_FILTER`].

mod agent;
mod handle;
mod inputs;
mod record;
mod server;
mod transport;

pub use handle::{LOG_FILTER, Proxy, ProxyHandle};
pub use inputs::{
    DECOY_ANSWER, FaultPlan, ProxyOptions, RewriteNotes, RuleNote, ToolPatch, ToolRewrite, Upstream,
};
pub use record::{CANCELLED_CODE, CallRecorder, ProxyError, ServerFailure};
pub use transport::MAX_MESSAGE_SIZE;
pub(crate) use transport::{Line, LineReader, client_transport};
