//! `mcpeval script-agent --mcp-config FILE PROMPT`: a deterministic agent that makes exactly
//! the calls its prompt lists, one per line, through the servers of the MCP config it is
//! given. Lines that are not directives are ignored, so a prompt can carry prose too.
//!
//! ```text
//! call SERVER TOOL [JSON-ARGUMENTS]
//! read SERVER URI
//! prompt SERVER NAME [JSON-ARGUMENTS]
//! list SERVER                 tools/list
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
    let text = std::fs::read_to_string(mcp_config)
        .with_context(|| format!("cannot read {}", mcp_config.display()))?;
    let config: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", mcp_config.display()))?;
    let urls: BTreeMap<String, String> = config["mcpServers"]
        .as_object()
        .map(|servers| {
            servers
                .iter()
                .filter_map(|(name, s)| Some((name.clone(), s["url"].as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default();
    let mut clients: BTreeMap<String, RunningService<RoleClient, ()>> = BTreeMap::new();
    let mut said = Vec::new();
    let mut last = String::new();
    let mut code = 0;
    for directive in directives {
        let server = match &directive {
            Directive::Call { server, .. }
            | Directive::Read { server, .. }
            | Directive::Prompt { server, .. }
            | Directive::List { server } => Some(server.clone()),
            _ => None,
        };
        if let Some(server) = &server
            && !clients.contains_key(server)
        {
            let url = urls
                .get(server)
                .with_context(|| format!("no server `{server}` in {}", mcp_config.display()))?;
            let client = ()
                .serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                .await
                .with_context(|| format!("cannot connect to `{server}` at {url}"))?;
            clients.insert(server.clone(), client);
        }
        let client = server.as_ref().and_then(|s| clients.get(s));
        let outcome: Result<Value, String> = match (&directive, client) {
            (
                Directive::Call {
                    tool, arguments, ..
                },
                Some(client),
            ) => {
                let params =
                    json!({"name": tool, "arguments": arguments.clone().unwrap_or(json!({}))});
                match serde_json::from_value::<model::CallToolRequestParams>(params) {
                    Ok(params) => client
                        .call_tool_once(params)
                        .await
                        .map(|r| match r {
                            model::CallToolResponse::Complete(r) => to_json(&r),
                            _ => json!({"incomplete": true}),
                        })
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                }
            }
            (Directive::Read { uri, .. }, Some(client)) => {
                match serde_json::from_value::<model::ReadResourceRequestParams>(
                    json!({"uri": uri}),
                ) {
                    Ok(params) => client
                        .read_resource_once(params)
                        .await
                        .map(|r| match r {
                            model::ReadResourceResponse::Complete(r) => to_json(&r),
                            _ => json!({"incomplete": true}),
                        })
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                }
            }
            (
                Directive::Prompt {
                    name, arguments, ..
                },
                Some(client),
            ) => {
                let mut params = json!({"name": name});
                if let Some(arguments) = arguments {
                    params["arguments"] = arguments.clone();
                }
                match serde_json::from_value::<model::GetPromptRequestParams>(params) {
                    Ok(params) => client
                        .get_prompt_once(params)
                        .await
                        .map(|r| match r {
                            model::GetPromptResponse::Complete(r) => to_json(&r),
                            _ => json!({"incomplete": true}),
                        })
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                }
            }
            (Directive::List { .. }, Some(client)) => client
                .list_all_tools()
                .await
                .map(|tools| json!({"tools": tools.len()}))
                .map_err(|e| e.to_string()),
            (Directive::Say(text), _) => {
                said.push(text.clone());
                continue;
            }
            (Directive::Sleep(duration), _) => {
                tokio::time::sleep(*duration).await;
                continue;
            }
            (Directive::Exit(exit), _) => {
                code = *exit;
                break;
            }
            _ => continue,
        };
        match outcome {
            Ok(result) => last = mcpeval::trace::result_text(&result),
            Err(error) => eprintln!("script-agent: {directive:?} failed: {error}"),
        }
    }
    for (_, client) in clients {
        let _ = client.cancel().await;
    }
    if code == 0 {
        println!(
            "{}",
            if said.is_empty() {
                last
            } else {
                said.join("\n")
            }
        );
    }
    Ok(code)
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_directives_and_skips_prose() {
        let script = "Please do this:\ncall demo add {\"a\": 1, \"b\": 2}\nread demo demo://readme\nprompt demo summarize {\"topic\": \"x\"}\nlist demo\nsay done\nsleep 0.5\nexit 3\nthank you";
        let directives = parse_script(script).unwrap();
        assert_eq!(directives.len(), 7);
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
        assert_eq!(directives[5], Directive::Sleep(Duration::from_millis(500)));
        assert_eq!(directives[6], Directive::Exit(3));
    }

    #[test]
    fn bad_arguments_name_the_line() {
        let error = parse_script("call demo add {not json}").unwrap_err();
        assert!(format!("{error:#}").contains("line 1"), "{error:#}");
        assert!(parse_script("call demo").is_err());
    }
}
