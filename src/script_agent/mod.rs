//! The script agent (`mcpeval script-agent --mcp-config FILE PROMPT`, or a test binary of
//! the harness started as `$MCPEVAL_BIN script-agent …`): a deterministic agent that makes
//! exactly the calls its prompt lists, one per line, through the servers of the MCP config it
//! is given. Lines that are not directives are ignored, so a prompt can carry prose too.
//!
//! ```text
//! call SERVER TOOL [JSON-ARGUMENTS]
//! read SERVER URI
//! prompt SERVER NAME [JSON-ARGUMENTS]
//! pick SERVER /REGEX/ [JSON]  call the first tool (tools/list, every page, in order) whose
//!                             description, or title when it has none, matches REGEX
//! list SERVER                 tools/list
//! list-all SERVER             tools/list, resources/list, resources/templates/list and
//!                             prompts/list, every page
//! reconnect SERVER            a new session with the server (a fresh initialize)
//! give-up SECONDS             later tool calls are cancelled after SECONDS without an
//!                             answer (0: wait for ever)
//! say TEXT                    part of the final answer
//! sleep SECONDS
//! exit CODE                   stop at once with this exit code
//! ```
//! The final answer (stdout) is the `say` lines, or else the text of the last result.
//! Notes go to stderr: a failed request, a `pick` that matches no tool, a directive naming
//! a server the MCP config lacks (the agent goes on in each case).
//!
//! Not part of mcpeval's API: the module is public for the `mcpeval` binary only.

mod script;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use rmcp::service::{ClientInitializeError, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ServiceExt, model};
use serde_json::{Value, json};

pub use script::{Directive, ScriptError, ToolPattern, parse_script};

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

/// Runs the script agent for the arguments after `script-agent` (`--mcp-config FILE PROMPT`)
/// on a runtime of its own; errors are printed on stderr. The exit code is the script's
/// (`exit CODE`, clamped to 0..=255), 1 when the script could not run, 2 for bad arguments.
pub fn main_with_args(args: impl IntoIterator<Item = String>) -> ExitCode {
    match parse_args(args) {
        Ok((mcp_config, prompt)) => run_blocking(&mcp_config, &prompt),
        Err(error) => {
            eprintln!("script-agent: {error}");
            ExitCode::from(crate::exit::INVALID_CONFIG)
        }
    }
}

/// `--mcp-config FILE PROMPT` (or `--mcp-config=FILE`, in any order).
fn parse_args(
    args: impl IntoIterator<Item = String>,
) -> Result<(PathBuf, String), ScriptAgentError> {
    let mut args = args.into_iter();
    let (mut mcp_config, mut prompt) = (None, None);
    while let Some(arg) = args.next() {
        if arg == "--mcp-config" {
            let file = args
                .next()
                .ok_or_else(|| ScriptAgentError::Usage("--mcp-config needs a file".into()))?;
            mcp_config = Some(PathBuf::from(file));
        } else if let Some(file) = arg.strip_prefix("--mcp-config=") {
            mcp_config = Some(PathBuf::from(file));
        } else if prompt.is_none() {
            prompt = Some(arg);
        } else {
            return Err(ScriptAgentError::Usage(format!(
                "unexpected argument `{arg}`"
            )));
        }
    }
    match (mcp_config, prompt) {
        (Some(mcp_config), Some(prompt)) => Ok((mcp_config, prompt)),
        (None, _) => Err(ScriptAgentError::Usage("no --mcp-config".into())),
        (_, None) => Err(ScriptAgentError::Usage("no prompt".into())),
    }
}

/// Runs the script of `prompt` on a runtime of its own; an error is printed on stderr.
pub fn run_blocking(mcp_config: &Path, prompt: &str) -> ExitCode {
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ScriptAgentError::Runtime)
        .and_then(|runtime| runtime.block_on(run(mcp_config, prompt)));
    match result {
        Ok(code) => ExitCode::from(code.clamp(0, 255) as u8),
        Err(error) => {
            eprintln!("script-agent: {}", crate::error_text::error_chain(&error));
            ExitCode::FAILURE
        }
    }
}

/// Runs the script of `prompt` against the servers of `mcp_config`; returns the exit code.
pub async fn run(mcp_config: &Path, prompt: &str) -> Result<i32, ScriptAgentError> {
    let directives = parse_script(prompt)?;
    let mut servers = ScriptServers::from_config(mcp_config)?;
    let mut said = Vec::new();
    let mut last = String::new();
    let mut code = 0;
    let mut give_up = None;
    for directive in directives {
        match &directive {
            Directive::Say(text) => said.push(text.clone()),
            Directive::GiveUp(after) => give_up = *after,
            Directive::Reconnect { server } => servers.disconnect(server).await,
            Directive::Sleep(duration) => tokio::time::sleep(*duration).await,
            Directive::Exit(exit) => {
                code = *exit;
                break;
            }
            Directive::Call { server, .. }
            | Directive::Read { server, .. }
            | Directive::Prompt { server, .. }
            | Directive::Pick { server, .. }
            | Directive::List { server }
            | Directive::ListAll { server } => {
                let Some(client) = servers.client(server).await? else {
                    eprintln!(
                        "script-agent: server `{server}` is not available (not in {}): skipped",
                        mcp_config.display()
                    );
                    continue;
                };
                match send_request(&directive, client, give_up).await {
                    Ok(Some(result)) => last = crate::trace::result_text(&result),
                    Ok(None) => {}
                    Err(error) => eprintln!("script-agent: {directive:?} failed: {error}"),
                }
            }
        }
    }
    servers.close().await;
    if code == 0 {
        print_final_answer(&said, last);
    }
    Ok(code)
}

/// The servers of the MCP config by name, connected on first use.
struct ScriptServers {
    urls: BTreeMap<String, String>,
    clients: BTreeMap<String, RunningService<RoleClient, ()>>,
}

impl ScriptServers {
    /// Reads the `mcpServers` of `mcp_config` and their URLs; connects to none yet.
    fn from_config(mcp_config: &Path) -> Result<Self, ScriptAgentError> {
        let text =
            std::fs::read_to_string(mcp_config).map_err(|source| ScriptAgentError::ReadConfig {
                path: mcp_config.to_path_buf(),
                source,
            })?;
        let config: Value =
            serde_json::from_str(&text).map_err(|source| ScriptAgentError::ConfigNotJson {
                path: mcp_config.to_path_buf(),
                source,
            })?;
        let urls = config["mcpServers"]
            .as_object()
            .map(|servers| {
                servers
                    .iter()
                    .filter_map(|(name, s)| Some((name.clone(), s["url"].as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default();
        Ok(ScriptServers {
            urls,
            clients: BTreeMap::new(),
        })
    }

    /// The client of `server`, connecting to it the first time; none when the MCP config
    /// has no such server (with a URL).
    async fn client(
        &mut self,
        server: &str,
    ) -> Result<Option<&RunningService<RoleClient, ()>>, ScriptAgentError> {
        let Some(url) = self.urls.get(server) else {
            return Ok(None);
        };
        if !self.clients.contains_key(server) {
            crate::tls::install_provider();
            let client =
                ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                    .await
                    .map_err(|source| ScriptAgentError::Connect {
                        server: server.to_owned(),
                        url: url.clone(),
                        source: Box::new(source),
                    })?;
            self.clients.insert(server.to_owned(), client);
        }
        Ok(self.clients.get(server))
    }

    /// Closes the session with `server`, if one is open: the next directive naming it
    /// connects again.
    async fn disconnect(&mut self, server: &str) {
        if let Some(client) = self.clients.remove(server) {
            let _ = client.cancel().await;
        }
    }

    /// Closes every connection made.
    async fn close(self) {
        for (_, client) in self.clients {
            let _ = client.cancel().await;
        }
    }
}

/// Sends the requests of a directive that names a server; the result as JSON (none when a
/// `pick` found no tool, after a note), or the error.
async fn send_request(
    directive: &Directive,
    client: &RunningService<RoleClient, ()>,
    give_up: Option<Duration>,
) -> Result<Option<Value>, String> {
    let result = match directive {
        Directive::Call {
            tool, arguments, ..
        } => call_tool_within(client, tool, arguments, give_up).await,
        Directive::Read { uri, .. } => read_resource(client, uri).await,
        Directive::Prompt {
            name, arguments, ..
        } => get_prompt(client, name, arguments).await,
        Directive::Pick {
            server,
            pattern,
            arguments,
        } => return pick(client, server, pattern, arguments, give_up).await,
        Directive::List { .. } => client
            .list_all_tools()
            .await
            .map(|tools| json!({"tools": tools.len()}))
            .map_err(|e| e.to_string()),
        Directive::ListAll { .. } => list_all(client).await,
        Directive::Say(_)
        | Directive::Sleep(_)
        | Directive::Exit(_)
        | Directive::GiveUp(_)
        | Directive::Reconnect { .. } => Err(format!("{directive:?} sends no request")),
    };
    result.map(Some)
}

/// `pick`: lists the tools (every page) and calls the first one `pattern` describes; none
/// when no tool matches, after a note.
async fn pick(
    client: &RunningService<RoleClient, ()>,
    server: &str,
    pattern: &ToolPattern,
    arguments: &Option<Value>,
    give_up: Option<Duration>,
) -> Result<Option<Value>, String> {
    let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
    let Some(tool) = tools.iter().find(|tool| pattern.describes(tool)) else {
        eprintln!("script-agent: no tool of `{server}` matches {pattern}");
        return Ok(None);
    };
    eprintln!(
        "script-agent: {pattern} picks `{}` of `{server}`",
        tool.name
    );
    (call_tool_within(client, &tool.name, arguments, give_up).await).map(Some)
}

/// Every list of a server, every page, each asked for even when another fails (a server
/// need not offer them all); the number of items of each, or its error.
async fn list_all(client: &RunningService<RoleClient, ()>) -> Result<Value, String> {
    let count = |listed: Result<usize, rmcp::ServiceError>| match listed {
        Ok(items) => json!(items),
        Err(error) => json!(error.to_string()),
    };
    Ok(json!({
        "tools": count(client.list_all_tools().await.map(|l| l.len())),
        "resources": count(client.list_all_resources().await.map(|l| l.len())),
        "resourceTemplates": count(client.list_all_resource_templates().await.map(|l| l.len())),
        "prompts": count(client.list_all_prompts().await.map(|l| l.len())),
    }))
}

/// Calls `tool` once (no retries); the result as JSON, or the error's text.
pub async fn call_tool(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    arguments: &Option<Value>,
) -> Result<Value, String> {
    call_tool_within(client, tool, arguments, None).await
}

/// [`call_tool`], cancelled (`notifications/cancelled`) after `give_up` without an answer.
async fn call_tool_within(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    arguments: &Option<Value>,
    give_up: Option<Duration>,
) -> Result<Value, String> {
    let params = json!({"name": tool, "arguments": arguments.clone().unwrap_or(json!({}))});
    let params = serde_json::from_value::<model::CallToolRequestParams>(params)
        .map_err(|e| e.to_string())?;
    if let Some(after) = give_up {
        let request = model::ClientRequest::CallToolRequest(model::CallToolRequest::new(params));
        let options = rmcp::service::PeerRequestOptions::with_timeout(after);
        let handle =
            (client.send_request_with_option(request, options).await).map_err(|e| e.to_string())?;
        return match handle.await_response().await.map_err(|e| e.to_string())? {
            model::ServerResult::CallToolResult(result) => Ok(to_json(&result)),
            other => Ok(to_json(&other)),
        };
    }
    client
        .call_tool_once(params)
        .await
        .map(|r| match r {
            model::CallToolResponse::Complete(r) => to_json(&r),
            _ => json!({"incomplete": true}),
        })
        .map_err(|e| e.to_string())
}

async fn read_resource(
    client: &RunningService<RoleClient, ()>,
    uri: &str,
) -> Result<Value, String> {
    let params = serde_json::from_value::<model::ReadResourceRequestParams>(json!({"uri": uri}))
        .map_err(|e| e.to_string())?;
    client
        .read_resource_once(params)
        .await
        .map(|r| match r {
            model::ReadResourceResponse::Complete(r) => to_json(&r),
            _ => json!({"incomplete": true}),
        })
        .map_err(|e| e.to_string())
}

async fn get_prompt(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    arguments: &Option<Value>,
) -> Result<Value, String> {
    let mut params = json!({"name": name});
    if let Some(arguments) = arguments {
        params["arguments"] = arguments.clone();
    }
    let params = serde_json::from_value::<model::GetPromptRequestParams>(params)
        .map_err(|e| e.to_string())?;
    client
        .get_prompt_once(params)
        .await
        .map(|r| match r {
            model::GetPromptResponse::Complete(r) => to_json(&r),
            _ => json!({"incomplete": true}),
        })
        .map_err(|e| e.to_string())
}

/// Prints the `say` lines, or else the text of the last result.
fn print_final_answer(said: &[String], last: String) {
    println!(
        "{}",
        if said.is_empty() {
            last
        } else {
            said.join("\n")
        }
    );
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn arguments_are_the_mcp_config_and_the_prompt() {
        let (file, prompt) = parse_args(args(&["--mcp-config", "m.json", "say hi"])).unwrap();
        assert_eq!(
            (file.as_path(), prompt.as_str()),
            (Path::new("m.json"), "say hi")
        );
        let (file, _) = parse_args(args(&["say hi", "--mcp-config=m.json"])).unwrap();
        assert_eq!(file, Path::new("m.json"));
    }

    #[test]
    fn bad_arguments_are_usage_errors() {
        for words in [
            &["say hi"][..],
            &["--mcp-config", "m.json"],
            &["--mcp-config"],
            &["--mcp-config", "m.json", "one", "two"],
        ] {
            let error = parse_args(args(words)).unwrap_err();
            assert!(error.to_string().contains("usage:"), "{words:?}: {error}");
        }
    }
}
