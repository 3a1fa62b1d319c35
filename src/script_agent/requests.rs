//! The MCP requests a directive sends (`call`, `read`, `prompt`, `pick`, `list`,
//! `list-all`), each answer as JSON or the error's text.

use std::time::Duration;

use rmcp::model;
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

use super::script::{Directive, ToolPattern};

/// Sends the requests of a directive that names a server; the result as JSON (none when a
/// `pick` found no tool, after a note), or the error.
pub(super) async fn send_request(
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

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
