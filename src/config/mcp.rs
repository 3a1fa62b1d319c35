//! The MCP config file (`config.mcpConfigFile`): which servers the agent gets, how to reach
//! them, and which of their tools are allowed. `${VAR}` and `${VAR:-default}` expand from the
//! environment when the file is loaded.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::files::check::Checker;
use super::files::error::ConfigErrors;
use super::files::yaml::read_file;
use crate::plumbing::secret::Secret;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawMcpConfig {
    mcp_servers: BTreeMap<String, RawServer>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawServer {
    #[serde(rename = "type")]
    transport: Option<String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    enable_all_tools: Option<bool>,
    #[serde(default)]
    always_allow: Vec<String>,
    #[serde(default)]
    disabled: bool,
}

/// The loaded MCP config: servers by name, in name order.
#[derive(Debug, Clone)]
pub struct McpConfig {
    /// The file it came from.
    pub path: PathBuf,
    /// Every server, disabled ones included (they are not started).
    pub servers: BTreeMap<String, McpServer>,
}

impl McpConfig {
    /// Names of the servers, in order.
    pub fn server_names(&self) -> Vec<&str> {
        self.servers.keys().map(String::as_str).collect()
    }

    /// The servers that are not disabled.
    pub fn enabled(&self) -> impl Iterator<Item = &McpServer> {
        self.servers.values().filter(|s| !s.disabled)
    }

    /// The secrets of every server (see [`McpServer::secrets`]).
    pub fn secrets(&self) -> Vec<Secret> {
        self.servers.values().flat_map(McpServer::secrets).collect()
    }
}

/// One MCP server of the config.
#[derive(Debug, Clone)]
pub struct McpServer {
    /// The name that assertions and the agent use.
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// Which of its tools the agent may call.
    pub allowed_tools: AllowedTools,
    /// A disabled server is not started and not offered to the agent.
    pub disabled: bool,
    /// The values `${VAR}` put into its command, arguments or URL.
    pub variables: Vec<Secret>,
}

/// Values shorter than this are not hidden: they would hide ordinary words and numbers.
const MIN_SECRET_LEN: usize = 6;

impl McpServer {
    /// What must not appear in messages and results: its header and environment values,
    /// and the values `${VAR}` put into its command line or URL.
    pub fn secrets(&self) -> Vec<Secret> {
        let of_map = |what: &str, map: &BTreeMap<String, String>| -> Vec<Secret> {
            map.iter()
                .map(|(key, value)| {
                    Secret::new(format!("{what} {key} of server {}", self.name), value)
                })
                .collect()
        };
        let mut secrets = match &self.transport {
            Transport::Stdio { env, .. } => of_map("env", env),
            Transport::Http { headers, .. } => of_map("header", headers),
        };
        secrets.extend(self.variables.iter().cloned());
        secrets.retain(|secret| secret.len() >= MIN_SECRET_LEN);
        secrets
    }
}

/// How to reach a server. Header and environment values may hold credentials: `Debug` shows
/// their names only.
#[derive(Clone)]
pub enum Transport {
    /// A child process speaking MCP over stdin/stdout.
    Stdio {
        /// The program: looked up on PATH when a bare name, resolved against the config
        /// file's directory when a relative path such as `./bin/server`.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
        /// Working directory, resolved against the config file's directory.
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
    },
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &env.keys().collect::<Vec<_>>())
                .field("cwd", cwd)
                .finish(),
            Transport::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", url)
                .field("headers", &headers.keys().collect::<Vec<_>>())
                .finish(),
        }
    }
}

/// The tools of a server that the agent may call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowedTools {
    /// Every tool the server lists (`enableAllTools: true`, or no `alwaysAllow`).
    All,
    /// Only these (`alwaysAllow`).
    Only(Vec<String>),
}

/// Loads the MCP config at `path`, expanding `${VAR}` from the process environment.
pub fn load_mcp_config(path: &Path) -> Result<McpConfig, ConfigErrors> {
    load_mcp_config_with(path, &|name| std::env::var(name).ok())
}

/// Loads the MCP config at `path`, expanding `${VAR}` with `lookup`.
pub fn load_mcp_config_with(
    path: &Path,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<McpConfig, ConfigErrors> {
    let parsed = read_file::<RawMcpConfig>(path)?;
    let mut check = Checker::new(path, &parsed.locations);
    let mut servers = BTreeMap::new();
    if parsed.value.mcp_servers.is_empty() {
        check.error("mcpServers", "expected at least one server");
    }
    for (name, raw) in parsed.value.mcp_servers {
        if let Some(server) = raw.validate(&mut check, &name, lookup) {
            servers.insert(name, server);
        }
    }
    check.finish(McpConfig {
        path: path.to_path_buf(),
        servers,
    })
}

/// The two transports a server entry may ask for.
enum TransportKind {
    Stdio,
    Http,
}

impl RawServer {
    fn validate(
        self,
        check: &mut Checker<'_>,
        name: &str,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Option<McpServer> {
        let mut server = ServerCheck {
            check,
            path: format!("mcpServers.{name}"),
            lookup,
            variables: Vec::new(),
        };
        let transport = match self.transport_kind(&mut server)? {
            TransportKind::Stdio => self.stdio_transport(&mut server)?,
            TransportKind::Http => self.http_transport(&mut server)?,
        };
        let allowed_tools = if self.enable_all_tools == Some(true) || self.always_allow.is_empty() {
            AllowedTools::All
        } else {
            AllowedTools::Only(self.always_allow)
        };
        Some(McpServer {
            name: name.to_owned(),
            transport,
            allowed_tools,
            disabled: self.disabled,
            variables: server.variables,
        })
    }

    /// The transport from `type`, or else from which of `command` and `url` is set.
    fn transport_kind(&self, server: &mut ServerCheck<'_, '_>) -> Option<TransportKind> {
        let path = &server.path;
        let check = &mut *server.check;
        match (self.transport.as_deref(), &self.command, &self.url) {
            (Some("stdio"), _, _) => Some(TransportKind::Stdio),
            (Some("http"), _, _) => Some(TransportKind::Http),
            (Some("sse"), _, _) => {
                check.error(
                    format!("{path}.type"),
                    "the HTTP+SSE transport (`type: sse`) is not supported yet; use streamable HTTP (`type: http`)",
                );
                None
            }
            (Some(other), _, _) => {
                check.error(
                    format!("{path}.type"),
                    format!("unknown server type `{other}`; expected stdio or http"),
                );
                None
            }
            (None, Some(_), None) => Some(TransportKind::Stdio),
            (None, None, Some(_)) => Some(TransportKind::Http),
            (None, Some(_), Some(_)) => {
                check.error(path, "both `command` and `url` are set; a server is either stdio (command) or http (url)");
                None
            }
            (None, None, None) => {
                check.error(path, "neither `command` nor `url` is set; expected `command` (stdio) or `url` (http)");
                None
            }
        }
    }

    /// A stdio server: `command` with its `args`, `env` and `cwd`; no `url` or `headers`.
    fn stdio_transport(&self, server: &mut ServerCheck<'_, '_>) -> Option<Transport> {
        let command = match &self.command {
            Some(c) if !c.trim().is_empty() => server.expand(server.key("command"), c)?,
            _ => {
                server.error("command", "a stdio server needs `command`");
                return None;
            }
        };
        if self.url.is_some() {
            server.error("url", "`url` does not belong to a stdio server");
        }
        if !self.headers.is_empty() {
            server.error("headers", "`headers` does not belong to a stdio server");
        }
        let args = self
            .args
            .iter()
            .enumerate()
            .map(|(i, arg)| server.expand(server.key(&format!("args[{i}]")), arg))
            .collect::<Option<Vec<_>>>()?;
        let env = server.expand_values("env", &self.env)?;
        let cwd = self.cwd.as_deref().map(|c| server.check.resolve(c));
        // `./bin/server` is relative to the config file; `npx` is looked up on PATH.
        let command = if command.contains('/') && Path::new(&command).is_relative() {
            server.check.resolve(&command).display().to_string()
        } else {
            command
        };
        Some(Transport::Stdio {
            command,
            args,
            env,
            cwd,
        })
    }

    /// An http server: an http(s) `url` with its `headers`; none of the stdio keys.
    fn http_transport(&self, server: &mut ServerCheck<'_, '_>) -> Option<Transport> {
        let url = match &self.url {
            Some(u) if !u.trim().is_empty() => server.expand(server.key("url"), u)?,
            _ => {
                server.error("url", "an http server needs `url`");
                return None;
            }
        };
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            server.error(
                "url",
                format!("expected an http:// or https:// URL, found {url:?}"),
            );
            return None;
        }
        for (key, present) in [
            ("command", self.command.is_some()),
            ("args", !self.args.is_empty()),
            ("env", !self.env.is_empty()),
            ("cwd", self.cwd.is_some()),
        ] {
            if present {
                server.error(key, format!("`{key}` does not belong to an http server"));
            }
        }
        let headers = server.expand_values("headers", &self.headers)?;
        Some(Transport::Http { url, headers })
    }
}

/// Checks one server entry: its errors carry the key path `mcpServers.NAME.…`, and its values
/// expand `${VAR}` with `lookup`.
struct ServerCheck<'c, 'a> {
    check: &'c mut Checker<'a>,
    path: String,
    lookup: &'c dyn Fn(&str) -> Option<String>,
    /// The values of the variables expanded so far.
    variables: Vec<Secret>,
}

impl ServerCheck<'_, '_> {
    /// The key path of `field` of this server.
    fn key(&self, field: &str) -> String {
        format!("{}.{field}", self.path)
    }

    /// Reports an error at `field` of this server.
    fn error(&mut self, field: &str, message: impl Into<String>) {
        let key = self.key(field);
        self.check.error(key, message);
    }

    /// `value` with its variables expanded, or `None` after reporting the error at `key`.
    fn expand(&mut self, key: String, value: &str) -> Option<String> {
        let used = std::cell::RefCell::new(Vec::new());
        let noting = |name: &str| {
            let value = (self.lookup)(name);
            if let Some(value) = &value {
                used.borrow_mut()
                    .push(Secret::new(format!("${{{name}}}"), value.clone()));
            }
            value
        };
        let expanded = expand_vars(value, &noting);
        self.variables.extend(used.into_inner());
        match expanded {
            Ok(expanded) => Some(expanded),
            Err(message) => {
                self.check.error(key, message);
                None
            }
        }
    }

    /// The values of the map at `field` expanded, or `None` after reporting the first error.
    fn expand_values(
        &mut self,
        field: &str,
        values: &BTreeMap<String, String>,
    ) -> Option<BTreeMap<String, String>> {
        values
            .iter()
            .map(|(k, v)| {
                Some((
                    k.clone(),
                    self.expand(self.key(&format!("{field}.{k}")), v)?,
                ))
            })
            .collect()
    }
}

/// Expands `${VAR}` and `${VAR:-default}` in `text`. A missing variable without a default is
/// an error naming it. The error never contains any variable's value.
pub fn expand_vars(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "unclosed `${{` in {text:?}; expected ${{VAR}} or ${{VAR:-default}}"
            ));
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            return Err(format!(
                "invalid variable name `{name}` in `${{{inner}}}`; expected letters, digits and _"
            ));
        }
        match (lookup(name), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(format!(
                    "environment variable `{name}` is not set; set it or write ${{{name}:-default}}"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
