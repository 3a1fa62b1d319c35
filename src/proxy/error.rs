//! What can go wrong when starting a proxy or reaching its server.

use std::path::PathBuf;
use std::time::Duration;

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
        "mcp server `{server}` (`{command}`): initialize failed: {message}{}",
        log_hint(log)
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
    },
    /// The server did not complete the MCP handshake in time.
    #[error("mcp server `{server}` (`{command}`): no answer to initialize within {}s{}", timeout.as_secs(), log_hint(log))]
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

fn log_hint(log: &Option<PathBuf>) -> String {
    match log {
        Some(path) => format!(" (server stderr: {})", path.display()),
        None => String::new(),
    }
}
