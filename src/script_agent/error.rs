//! Why the script agent could not do its work: one error for its arguments, its MCP config,
//! its servers and its script.

use rmcp::service::ClientInitializeError;
use std::path::PathBuf;

use super::script::ScriptError;

/// Why the script agent could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum ScriptAgentError {
    /// A directive of the prompt is malformed.
    #[error(transparent)]
    Script(#[from] ScriptError),
    /// The MCP config cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    ReadConfig {
        /// The MCP config file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The MCP config is not JSON.
    #[error("{} is not JSON: {source}", path.display())]
    ConfigNotJson {
        /// The MCP config file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A server did not answer `initialize`.
    #[error("cannot connect to `{server}` at {url}: {source}")]
    Connect {
        /// The server named.
        server: String,
        /// Its URL.
        url: String,
        /// Why.
        #[source]
        source: Box<ClientInitializeError>,
    },
    /// The command line is not `script-agent --mcp-config FILE PROMPT`.
    #[error("{0}; usage: script-agent --mcp-config FILE PROMPT")]
    Usage(String),
    /// No runtime could be started.
    #[error("cannot start a runtime: {0}")]
    Runtime(#[source] std::io::Error),
}
