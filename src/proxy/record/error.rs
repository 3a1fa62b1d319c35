//! What can go wrong when starting a proxy or reaching its server.

use std::path::PathBuf;
use std::time::Duration;

use super::server_failures::{ServerFailure, log_hint};

/// An error of the recording proxy. Every variant names the server (its name in the MCP
/// config) and how it is reached (the command line or the URL; never header or
/// environment values), and for stdio servers the file holding the server's stderr.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The proxy could not listen on a loopback port.
    #[error("mcp server `{server}`: the proxy could not listen on 127.0.0.1: {source}")]
    Listen {
        /// The server's name.
        server: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The proxy's thread could not be started.
    #[error("mcp server `{server}`: could not start the proxy's thread: {source}")]
    Thread {
        /// The server's name.
        server: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The directory or file for the server's stderr log could not be created.
    #[error("mcp server `{server}`: could not create the stderr log {}: {source}", log.display())]
    Log {
        /// The server's name.
        server: String,
        /// The log file.
        log: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The server's command could not be started.
    #[error("mcp server `{server}`: could not start `{command}`: {source}")]
    Spawn {
        /// The server's name.
        server: String,
        /// The command line.
        command: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The server started (or was reached) but the MCP handshake failed: it exited, closed
    /// the connection or answered `initialize` with an error.
    #[error(
        "mcp server `{server}` (`{command}`): initialize failed: {message}{}{}",
        log_hint(log.as_deref()),
        lines(detail)
    )]
    Initialize {
        /// The server's name.
        server: String,
        /// The command line or URL.
        command: String,
        /// What failed.
        message: String,
        /// The stderr log of a stdio server.
        log: Option<PathBuf>,
        /// The last lines of the server's stderr (empty if none).
        detail: String,
    },
    /// The server failed during the handshake, as its transport saw it (it exited, answered
    /// with an HTTP error or with something that is not JSON-RPC).
    #[error("{0}")]
    Failed(ServerFailure),
    /// The server did not complete the MCP handshake in time.
    #[error("mcp server `{server}` (`{command}`): no answer to initialize within {}s{}", timeout.as_secs(), log_hint(log.as_deref()))]
    InitializeTimeout {
        /// The server's name.
        server: String,
        /// The command line or URL.
        command: String,
        /// The time waited.
        timeout: Duration,
        /// The stderr log of a stdio server.
        log: Option<PathBuf>,
    },
    /// The configured URL or a header of an HTTP server is not valid.
    #[error("mcp server `{server}`: invalid http configuration: {message}")]
    InvalidHttpConfig {
        /// The server's name.
        server: String,
        /// What is wrong (names the header, never its value).
        message: String,
    },
}

impl ProxyError {
    /// The error as a failure of the server `server`: its first line is the message, the
    /// rest the detail.
    pub(crate) fn failure(&self, server: &str) -> ServerFailure {
        if let ProxyError::Failed(failure) = self {
            return failure.clone();
        }
        let text = self.to_string();
        let (message, detail) = text.split_once('\n').unwrap_or((&text, ""));
        let log = match self {
            ProxyError::Log { log, .. } => Some(log.clone()),
            ProxyError::Initialize { log, .. } | ProxyError::InitializeTimeout { log, .. } => {
                log.clone()
            }
            _ => None,
        };
        ServerFailure {
            server: server.to_owned(),
            message: message.to_owned(),
            detail: detail.to_owned(),
            log,
        }
    }
}

/// `detail` on lines of its own, or nothing.
fn lines(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!("\n{detail}")
    }
}
