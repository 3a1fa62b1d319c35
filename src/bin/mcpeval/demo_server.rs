//! `mcpeval demo-server`: a small MCP server over stdio, for trying mcpeval out and for the
//! repository's own evals. Tools `add`, `echo`, `lookup_user`, `delete_user`, `flaky`;
//! resources `demo://readme` and `demo://users/{id}`; prompt `summarize`.
#![allow(deprecated)] // rmcp 3.9 renames ServerInfo; ServerHandler still returns it.

use anyhow::Context;
use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Builds an rmcp model value from JSON (many of its types are non-exhaustive).
fn model<T: DeserializeOwned>(value: Value) -> Result<T, McpError> {
    serde_json::from_value(value)
        .map_err(|e| McpError::internal_error(format!("demo server: {e}"), None))
}

fn text(text: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": text.into()}]})
}

const USERS: [(&str, &str); 2] = [("1", "Ada Lovelace"), ("2", "Alan Turing")];

#[derive(Clone, Default)]
struct DemoServer;

impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerInfo {
        let info = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}, "resources": {}, "prompts": {}},
            "serverInfo": {"name": "mcpeval-demo-server", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "A demo server: arithmetic, an echo and a tiny user directory."
        });
        serde_json::from_value(info).unwrap_or_default()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let schema = |properties: Value, required: &[&str]| json!({"type": "object", "properties": properties, "required": required});
        model(json!({"tools": [
            {"name": "add", "description": "Adds two numbers", "inputSchema": schema(json!({"a": {"type": "number"}, "b": {"type": "number"}}), &["a", "b"])},
            {"name": "echo", "description": "Echoes its text", "inputSchema": schema(json!({"text": {"type": "string"}}), &["text"])},
            {"name": "lookup_user", "description": "Finds a user by id", "inputSchema": schema(json!({"id": {"type": "string"}}), &["id"])},
            {"name": "delete_user", "description": "Deletes a user", "inputSchema": schema(json!({"id": {"type": "string"}}), &["id"])},
            {"name": "flaky", "description": "Always reports a failure", "inputSchema": schema(json!({}), &[])},
        ]}))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.clone().unwrap_or_default();
        let number = |key: &str| {
            args.get(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| McpError::invalid_params(format!("`{key}` must be a number"), None))
        };
        let string = |key: &str| {
            args.get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| McpError::invalid_params(format!("`{key}` must be a string"), None))
        };
        let result = match request.name.as_ref() {
            "add" => {
                let sum = number("a")? + number("b")?;
                text(if sum.fract() == 0.0 {
                    format!("{}", sum as i64)
                } else {
                    sum.to_string()
                })
            }
            "echo" => text(string("text")?),
            "lookup_user" => {
                let id = string("id")?;
                match USERS.iter().find(|(user, _)| *user == id) {
                    Some((_, name)) => text(format!("user {id}: {name}")),
                    None => {
                        json!({"content": [{"type": "text", "text": format!("no user {id}")}], "isError": true})
                    }
                }
            }
            "delete_user" => text(format!("deleted user {}", string("id")?)),
            "flaky" => {
                json!({"content": [{"type": "text", "text": "the service is unavailable"}], "isError": true})
            }
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool `{other}`"),
                    None,
                ));
            }
        };
        Ok(CallToolResponse::Complete(model(result)?))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        model(
            json!({"resources": [{"uri": "demo://readme", "name": "readme", "mimeType": "text/plain"}]}),
        )
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        model(json!({"resourceTemplates": [{"uriTemplate": "demo://users/{id}", "name": "user"}]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let body = if request.uri == "demo://readme" {
            "The demo server adds numbers, echoes text and knows two users.".to_owned()
        } else if let Some((id, name)) = request
            .uri
            .strip_prefix("demo://users/")
            .and_then(|id| USERS.iter().find(|(u, _)| *u == id))
        {
            format!("{{\"id\": \"{id}\", \"name\": \"{name}\"}}")
        } else {
            return Err(McpError::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        };
        let result: ReadResourceResult = model(
            json!({"contents": [{"uri": request.uri, "mimeType": "text/plain", "text": body}]}),
        )?;
        Ok(ReadResourceResponse::Complete(result))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        model(
            json!({"prompts": [{"name": "summarize", "description": "Summarise a topic", "arguments": [{"name": "topic", "required": true}]}]}),
        )
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != "summarize" {
            return Err(McpError::invalid_params(
                format!("unknown prompt `{}`", request.name),
                None,
            ));
        }
        let topic = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("topic"))
            .and_then(Value::as_str)
            .unwrap_or("anything");
        let result: GetPromptResult = model(json!({
            "description": "A summary request",
            "messages": [{"role": "user", "content": {"type": "text", "text": format!("Summarise {topic} in one sentence.")}}]
        }))?;
        Ok(GetPromptResponse::Complete(result))
    }
}

/// Serves the demo server on stdin/stdout until the client goes away.
pub async fn serve() -> anyhow::Result<()> {
    let running = DemoServer
        .serve(rmcp::transport::io::stdio())
        .await
        .context("demo server: initialize failed")?;
    running.waiting().await.context("demo server stopped")?;
    Ok(())
}
