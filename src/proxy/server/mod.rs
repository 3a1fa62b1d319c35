//! The proxy as the real server's MCP client: one [`Connection`] per agent session, made
//! during that session's `initialize` with the agent's own client info and capabilities
//! (`connection.rs`); the protocol version spoken with the agent, given the server's
//! (`versions.rs`); each agent request forwarded and its answer brought back ([`forward`]),
//! with the progress tokens and request ids of the two hops translated (`routes.rs`); a
//! server's own requests and notifications relayed to the agent session it serves
//! (`relay.rs`), its elicitations answered by the scripted user or relayed, and recorded
//! (`asking.rs`),
//! its sampling requests the same way by the scripted model (`sampling.rs`).

mod asking;
mod connection;
mod forward;
mod in_flight;
pub(crate) mod input_rounds;
mod relay;
mod routes;
mod sampling;
pub(crate) mod tasks;
mod versions;

pub(crate) use asking::Asking;
pub(crate) use connection::{Connection, Startup, connect, log_path};
pub(crate) use forward::{forward, result_as, tool_list_as};
pub(crate) use routes::CallOrigin;
