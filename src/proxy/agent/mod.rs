//! The proxy as the agent's MCP server, over streamable HTTP ([`AgentHttp`], its requests
//! checked in `http_checks.rs`). Each MCP session the agent opens runs a service loop of its
//! own, whose messages the session's `Outbox` routes back to where the agent waits for them
//! (`outbox.rs`). The service is the fault layer (`fault_layer.rs`: the run's faults on
//! purpose) over the session's handler (`handler.rs`: its MCP server face, every request recorded and
//! forwarded to the real server through `session.rs`; the four list methods one path through `listing.rs`). The sessions
//! of one proxy share a [`ProxyState`].

mod fault_layer;
mod handler;
mod http;
mod http_checks;
mod listing;
mod outbox;
mod session;
mod shared;

pub(crate) use http::AgentHttp;
pub(crate) use shared::ProxyState;
