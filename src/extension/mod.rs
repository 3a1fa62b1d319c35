//! mcpchecker extensions: programs that offer operations (create a Kubernetes object, wait
//! for a condition, …) to a task's setup, verify and cleanup steps, written
//! `<alias>.<operation>: {arguments}`. mcpeval speaks mcpchecker's extension protocol
//! (`protocol.rs`: JSON-RPC 2.0, one message per line on stdio) to them.
//!
//! - `rpc.rs`: one extension process and the connection to it;
//! - `client.rs`: `initialize` (the manifest and the compiled schemas of the operations),
//!   argument checks, `execute` with its logs and timeout, `shutdown`;
//! - `manager.rs`: an eval's extensions, each started once on first use and shut down at the
//!   end, and the registry of the process's managers;
//! - `release.rs` and `cache.rs`: `github.com/owner/repo[@version]` packages, fetched into
//!   mcpchecker's cache as mcpchecker fetches them;
//! - `validate.rs`: what `mcpeval validate` says about extensions (it starts none).

mod cache;
mod client;
mod error;
mod manager;
mod protocol;
mod release;
mod rpc;
mod validate;

pub use cache::{ReleaseCache, user_cache_dir};
pub use client::{Execute, Execution, ExtensionClient};
pub use error::ExtensionError;
pub use manager::{ExtensionManager, ExtensionRegistry, HostSettings};
pub use protocol::{ExecuteResult, Manifest, Operation, PROTOCOL_VERSION};
pub use release::{DOWNLOAD_URL_VAR, go_platform};
pub use validate::validation_notes;
