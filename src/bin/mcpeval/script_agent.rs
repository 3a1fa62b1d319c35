//! `mcpeval script-agent --mcp-config FILE PROMPT`: a deterministic agent that makes exactly
//! the calls its prompt lists, one per line, through the servers of the MCP config it is
//! given. Lines that are not directives are ignored, so a prompt can carry prose too.
//!
//! ```text
//! call SERVER TOOL [JSON-ARGUMENTS]
//! read SERVER URI
//! prompt SERVER NAME [JSON-ARGUMENTS]
//! list SERVER                 tools/list
//! list-all SERVER             tools/list, resources/list, resources/templates/list and
//!                             prompts/list, every page
//! say TEXT                    part of the final answer
//! sleep SECONDS
//! exit CODE                   stop at once with this exit code
//! ```
//! The final answer (stdout) is the `say` lines, or else the text of the last result.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ServiceExt, model};
use serde_json::{Value, json};

/// One line of the script.
#[derive(Debug, Clone, PartialEq)]
pub enum Directive {
    /// `call SERVER TOOL [JSON]`
    Call {
        server: String,
        tool: String,
        arguments: Option<Value>,
    },
    /// `read SERVER URI`
    Read { server: String, uri: String },
    /// `prompt SERVER NAME [JSON]`
    Prompt {
        server: String,
        name: String,
        arguments: Option<Value>,
    },
    /// `list SERVER`
    List { server: String },
    /// `list-all SERVER`
    ListAll { server: String },
    /// `say TEXT`
    Say(String),
    /// `sleep SECONDS`
    Sleep(Duration),
    /// `exit CODE`
    Exit(i32),
}

/// Reads the directives of `prompt`; a directive with bad arguments is an error naming its line.
pub fn parse_script(prompt: &str) -> anyhow::Result<Vec<Directive>> {
    let mut directives = Vec::new();
    for (number, line) in prompt.lines().enumerate() {
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let at = || format!("line {}: `{line}`", number + 1);
        let json = |text: &str| -> anyhow::Result<Option<Value>> {
            if text.is_empty() {
                Ok(None)
            } else {
                serde_json::from_str(text)
                    .map(Some)
                    .with_context(|| format!("{}: arguments are not JSON", at()))
            }
        };
        let two = |text: &str| -> anyhow::Result<(String, String, String)> {
            let mut parts = text.splitn(3, char::is_whitespace);
            match (parts.next(), parts.next()) {
                (Some(a), Some(b)) if !a.is_empty() && !b.is_empty() => Ok((
                    a.to_owned(),
                    b.to_owned(),
                    parts.next().unwrap_or("").trim().to_owned(),
                )),
                _ => bail!("{}: expected a server and a name", at()),
            }
        };
        let directive = match word {
            "call" => {
                let (server, tool, args) = two(rest)?;
                Directive::Call {
                    server,
                    tool,
                    arguments: json(&args)?,
                }
            }
            "read" => {
                let (server, uri, extra) = two(rest)?;
                if !extra.is_empty() {
                    bail!("{}: expected a server and one URI", at());
                }
                Directive::Read { server, uri }
            }
            "prompt" => {
                let (server, name, args) = two(rest)?;
                Directive::Prompt {
                    server,
                    name,
                    arguments: json(&args)?,
                }
            }
            "list" if !rest.is_empty() => Directive::List {
                server: rest.to_owned(),
            },
            "list-all" if !rest.is_empty() => Directive::ListAll {
                server: rest.to_owned(),
            },
            "say" => Directive::Say(rest.to_owned()),
            "sleep" => Directive::Sleep(Duration::from_secs_f64(
                rest.parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .with_context(|| format!("{}: expected seconds", at()))?,
            )),
            "exit" => Directive::Exit(
                rest.parse()
                    .with_context(|| format!("{}: expected an exit code", at()))?,
            ),
            _ => continue,
        };
        directives.push(directive);
    }
    Ok(directives)
}

/// Runs the script of `prompt` against the servers of `mcp_config`; returns the exit code.
pub async fn run(mcp_config: &Path, prompt: &str) -> anyhow::Result<i32> {
    let directives = parse_script(prompt)?;
    let mut servers = ScriptServers::from_config(mcp_config)?;
    let mut said = Vec::new();
    let mut last = String::new();
    let mut code = 0;
    for directive in directives {
        match &directive {
            Directive::Say(text) => said.push(text.clone()),
            Directive::Sleep(duration) => tokio::time::sleep(*duration).await,
            Directive::Exit(exit) => {
                code = *exit;
                break;
            }
            Directive::Call { server, .. }
            | Directive::Read { server, .. }
            | Directive::Prompt { server, .. }
            | Directive::List { server }
            | Directive::ListAll { server } => {
                let client = servers.client(server).await?;
                match send_request(&directive, client).await {
                    Ok(result) => last = mcpeval::trace::result_text(&result),
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
struct ScriptServers<'a> {
    mcp_config: &'a Path,
    urls: BTreeMap<String, String>,
    clients: BTreeMap<String, RunningService<RoleClient, ()>>,
}

impl<'a> ScriptServers<'a> {
    /// Reads the `mcpServers` of `mcp_config` and their URLs; connects to none yet.
    fn from_config(mcp_config: &'a Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(mcp_config)
            .with_context(|| format!("cannot read {}", mcp_config.display()))?;
        let config: Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not JSON", mcp_config.display()))?;
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
            mcp_config,
            urls,
            clients: BTreeMap::new(),
        })
    }

    /// The client of `server`, connecting to it the first time.
    async fn client(&mut self, server: &str) -> anyhow::Result<&RunningService<RoleClient, ()>> {
        if !self.clients.contains_key(server) {
            let url = self.urls.get(server).with_context(|| {
                format!("no server `{server}` in {}", self.mcp_config.display())
            })?;
            let client = ()
                .serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                .await
                .with_context(|| format!("cannot connect to `{server}` at {url}"))?;
            self.clients.insert(server.to_owned(), client);
        }
        Ok(&self.clients[server])
    }

    /// Closes every connection made.
    async fn close(self) {
        for (_, client) in self.clients {
            let _ = client.cancel().await;
        }
    }
}

/// Sends the request of a directive that names a server; the result as JSON, or the error.
async fn send_request(
    directive: &Directive,
    client: &RunningService<RoleClient, ()>,
) -> Result<Value, String> {
    match directive {
        Directive::Call {
            tool, arguments, ..
        } => call_tool(client, tool, arguments).await,
        Directive::Read { uri, .. } => read_resource(client, uri).await,
        Directive::Prompt {
            name, arguments, ..
        } => get_prompt(client, name, arguments).await,
        Directive::List { .. } => client
            .list_all_tools()
            .await
            .map(|tools| json!({"tools": tools.len()}))
            .map_err(|e| e.to_string()),
        Directive::ListAll { .. } => list_all(client).await,
        Directive::Say(_) | Directive::Sleep(_) | Directive::Exit(_) => {
            Err(format!("{directive:?} sends no request"))
        }
    }
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

pub(crate) async fn call_tool(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    arguments: &Option<Value>,
) -> Result<Value, String> {
    let params = json!({"name": tool, "arguments": arguments.clone().unwrap_or(json!({}))});
    let params = serde_json::from_value::<model::CallToolRequestParams>(params)
        .map_err(|e| e.to_string())?;
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

    #[test]
    fn parses_directives_and_skips_prose() {
        let script = "Please do this:\ncall demo add {\"a\": 1, \"b\": 2}\nread demo demo://readme\nprompt demo summarize {\"topic\": \"x\"}\nlist demo\nlist-all demo\nsay done\nsleep 0.5\nexit 3\nthank you";
        let directives = parse_script(script).unwrap();
        assert_eq!(directives.len(), 8);
        assert_eq!(
            directives[0],
            Directive::Call {
                server: "demo".into(),
                tool: "add".into(),
                arguments: Some(json!({"a": 1, "b": 2}))
            }
        );
        assert_eq!(
            directives[1],
            Directive::Read {
                server: "demo".into(),
                uri: "demo://readme".into()
            }
        );
        assert_eq!(
            directives[4],
            Directive::ListAll {
                server: "demo".into()
            }
        );
        assert_eq!(directives[6], Directive::Sleep(Duration::from_millis(500)));
        assert_eq!(directives[7], Directive::Exit(3));
    }

    #[test]
    fn bad_arguments_name_the_line() {
        let error = parse_script("call demo add {not json}").unwrap_err();
        assert!(format!("{error:#}").contains("line 1"), "{error:#}");
        assert!(parse_script("call demo").is_err());
    }
}
