//! The llm-agent's MCP side: one client per proxied server, the allowed tools listed and
//! offered, and each tool call made through the proxy (so that it is recorded).

use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::{ServiceExt, model};
use serde_json::{Map, Value, json};

use super::tools::{OfferedTool, function_names, object_schema, result_text};
use crate::agent::contract::ProxiedServer;

/// A connected MCP client.
pub(super) type McpClient = RunningService<RoleClient, ()>;

/// Connects to every server and lists its tools (all pages); returns the allowed ones.
/// Clients are pushed to `clients` as they connect, so the caller closes every one.
pub(super) async fn connect(
    servers: &[ProxiedServer],
    clients: &mut Vec<McpClient>,
) -> Result<Vec<OfferedTool>, String> {
    let mut found = Vec::new();
    for (index, server) in servers.iter().enumerate() {
        let client = ()
            .serve(crate::proxy::client_transport(&server.name, &server.url))
            .await
            .map_err(|e| format!("cannot connect to `{}` at {}: {e}", server.name, server.url))?;
        let listed = client.list_all_tools().await;
        clients.push(client);
        let listed =
            listed.map_err(|e| format!("cannot list the tools of `{}`: {e}", server.name))?;
        for tool in listed {
            let tool = serde_json::to_value(&tool).unwrap_or(Value::Null);
            let Some(name) = tool["name"].as_str() else {
                continue;
            };
            if server.allowed_tools.is_empty() || server.allowed_tools.iter().any(|t| t == name) {
                found.push((index, name.to_owned(), tool.clone()));
            }
        }
    }
    let pairs: Vec<(String, String)> = found
        .iter()
        .map(|(index, name, _)| (servers[*index].name.clone(), name.clone()))
        .collect();
    let names = function_names(&pairs);
    Ok(found
        .into_iter()
        .zip(names)
        .map(|((index, name, tool), function)| OfferedTool {
            function,
            server: servers[index].name.clone(),
            server_index: index,
            tool: name,
            description: tool["description"].as_str().map(str::to_owned),
            parameters: object_schema(tool.get("inputSchema")),
        })
        .collect())
}

/// Calls one tool; the result (or the failure) as the text the model gets, and whether it
/// is an error.
pub(super) async fn call_tool(
    client: &McpClient,
    tool: &str,
    arguments: Map<String, Value>,
) -> (String, bool) {
    let params = json!({"name": tool, "arguments": arguments});
    let params = match serde_json::from_value::<model::CallToolRequestParams>(params) {
        Ok(params) => params,
        Err(e) => {
            return (
                format!("Error: cannot build the call of `{tool}`: {e}"),
                true,
            );
        }
    };
    match client.call_tool_once(params).await {
        Ok(model::CallToolResponse::Complete(result)) => {
            let result = serde_json::to_value(&result).unwrap_or(Value::Null);
            (
                result_text(&result),
                result["isError"].as_bool() == Some(true),
            )
        }
        Ok(_) => (
            format!(
                "Error: `{tool}` asked for client input or started a task, which this agent does not support"
            ),
            true,
        ),
        Err(ServiceError::McpError(error)) => (format!("Error: {}", error.message), true),
        Err(error) => (format!("Error: calling `{tool}` failed: {error}"), true),
    }
}
