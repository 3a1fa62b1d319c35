//! An MCP config built from the environment, as mcpchecker builds one when the eval has no
//! `mcpConfigFile`: `MCP_COMMAND` (+ `MCP_ARGS`, `MCP_ENV`) for a stdio server, else
//! `MCP_URL` or `MCP_HOST`/`MCP_PORT`/`MCP_PATH` (+ `MCP_HEADERS`) for an HTTP one, named
//! `MCP_SERVER_NAME` (default `default`).

use std::collections::BTreeMap;
use std::path::Path;

use super::mcp::{AllowedTools, McpConfig, McpServer, Transport};

/// The variables mcpchecker reads, for messages.
pub const MCP_ENV_VARS: &str = "MCP_URL, MCP_HOST, MCP_PORT, MCP_PATH, MCP_COMMAND";

/// The MCP config the environment describes (`lookup` reads a variable), or `None` when
/// none of `MCP_URL`, `MCP_HOST`, `MCP_PORT`, `MCP_COMMAND` is set. `eval` is the eval file
/// it stands in for.
pub fn mcp_config_from_env(
    eval: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<McpConfig>, String> {
    let var = |name: &str| lookup(name).filter(|value| !value.is_empty());
    let (url, host, port, command) = (
        var("MCP_URL"),
        var("MCP_HOST"),
        var("MCP_PORT"),
        var("MCP_COMMAND"),
    );
    if url.is_none() && host.is_none() && port.is_none() && command.is_none() {
        return Ok(None);
    }
    let transport = match command {
        Some(command) => Transport::Stdio {
            command,
            args: var("MCP_ARGS")
                .map(|args| parse_args(&args))
                .transpose()?
                .unwrap_or_default(),
            env: json_map("MCP_ENV", var("MCP_ENV"))?,
            cwd: None,
        },
        None => Transport::Http {
            url: url.unwrap_or_else(|| {
                let host = host.unwrap_or_else(|| "localhost".into());
                let path = var("MCP_PATH").unwrap_or_else(|| "/mcp".into());
                let path = if path.starts_with('/') {
                    path
                } else {
                    format!("/{path}")
                };
                match port {
                    Some(port) => format!("http://{host}:{port}{path}"),
                    None => format!("http://{host}{path}"),
                }
            }),
            headers: json_map("MCP_HEADERS", var("MCP_HEADERS"))?,
        },
    };
    if let Transport::Http { url, .. } = &transport {
        reqwest::Url::parse(url).map_err(|e| format!("MCP_URL {url:?} is not a URL: {e}"))?;
    }
    let name = var("MCP_SERVER_NAME").unwrap_or_else(|| "default".into());
    let server = McpServer {
        name: name.clone(),
        transport,
        // mcpchecker's MCP_ENABLE_ALL_TOOLS defaults to true; without an `alwaysAllow` list
        // every tool is allowed either way.
        allowed_tools: AllowedTools::All,
        disabled: false,
        variables: Vec::new(),
    };
    Ok(Some(McpConfig {
        path: eval.to_path_buf(),
        servers: BTreeMap::from([(name, server)]),
    }))
}

/// `MCP_ARGS`: a JSON array of strings, or words separated by commas.
fn parse_args(text: &str) -> Result<Vec<String>, String> {
    let text = text.trim();
    if text.starts_with('[') {
        return serde_json::from_str(text)
            .map_err(|e| format!("MCP_ARGS is not a JSON array of strings: {e}"));
    }
    Ok(text
        .split(',')
        .map(str::trim)
        .filter(|arg| !arg.is_empty())
        .map(str::to_owned)
        .collect())
}

/// A variable holding a JSON object of strings (`MCP_ENV`, `MCP_HEADERS`).
fn json_map(name: &str, value: Option<String>) -> Result<BTreeMap<String, String>, String> {
    match value {
        None => Ok(BTreeMap::new()),
        Some(text) => serde_json::from_str(&text)
            .map_err(|e| format!("{name} must be a JSON object of strings: {e}")),
    }
}
