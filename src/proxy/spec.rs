//! What a proxy is given: how to reach the real server, and its tunables.

use std::path::PathBuf;
use std::time::Duration;

use std::sync::Arc;

use super::fault_plan::FaultPlan;
use super::tool_rewrite::ToolRewrite;

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

/// Tunables of a proxy.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// How long the server may take to start and answer `initialize` (default 60 s).
    pub startup_timeout: Duration,
    /// What the agent is shown of the server's tools: patched definitions and decoys
    /// (default: the server's own, unchanged).
    pub tools: ToolRewrite,
    /// The run's faults on purpose (a task's `faults` rules), shared by its proxies
    /// (default: none).
    pub faults: Option<Arc<FaultPlan>>,
}

impl Default for ProxyOptions {
    fn default() -> Self {
        Self {
            startup_timeout: Duration::from_secs(60),
            tools: ToolRewrite::default(),
            faults: None,
        }
    }
}
