//! How to reach the real MCP server ([`Upstream`]): a command to start, or a URL.

use std::path::PathBuf;

/// How to reach the real MCP server. The proxy's own input type: the harness maps the MCP
/// config's server entries onto it (`harness::servers::upstream_of`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upstream {
    /// A server started as a child process, speaking MCP on stdin/stdout.
    Stdio {
        /// The program (looked up on `PATH` when it has no slash).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables (values are never recorded or shown).
        env: Vec<(String, String)>,
        /// The working directory; the proxy's own when `None`.
        cwd: Option<PathBuf>,
    },
    /// A server reached over streamable HTTP.
    Http {
        /// The endpoint, e.g. `http://127.0.0.1:3000/mcp`.
        url: String,
        /// Headers sent with every request (values are never recorded or shown).
        headers: Vec<(String, String)>,
    },
}

impl Upstream {
    /// The command line or URL, for messages. Never includes env or header values.
    pub fn describe(&self) -> String {
        match self {
            Upstream::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Upstream::Http { url, .. } => url.clone(),
        }
    }
}
