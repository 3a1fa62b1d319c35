//! A small MCP server of our own for the proxy tests: tools that succeed, fail with
//! `isError`, fail with a protocol error, report progress, wait to be cancelled, ask the
//! client for a sampling and its roots mid-call, and send notifications; paginated
//! resources and templates; prompts; completion; logging; subscriptions.
//!
//! Used in-process (served over streamable HTTP, see `serve_http`) and as the stdio binary
//! `examples/proxy_test_server` (`tests/support/test_server_main.rs`).
#![allow(dead_code, deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::*;
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

mod asking;

use asking::{deploy, sign_in};

/// Builds any rmcp model type from JSON (many are non-exhaustive).
pub fn from_json<T: DeserializeOwned>(value: Value) -> T {
    match serde_json::from_value(value.clone()) {
        Ok(parsed) => parsed,
        Err(error) => panic!("test fixture {value} does not parse: {error}"),
    }
}

/// What the server saw, for tests that check what reached it.
#[derive(Debug, Default)]
pub struct Observed {
    /// The client info of every `initialize`.
    pub clients: Mutex<Vec<Value>>,
    /// Notifications from the client, as JSON (`method` and params).
    pub notifications: Mutex<Vec<String>>,
    /// Requests the server saw cancelled.
    pub cancelled: Mutex<Vec<String>>,
    /// The `_meta` of every tools/call.
    pub call_meta: Mutex<Vec<Value>>,
}

/// The test server; one per session, sharing `observed`.
#[derive(Clone, Default)]
pub struct TestServer {
    pub observed: Arc<Observed>,
}

const RESOURCES: usize = 5;
const TEMPLATES: usize = 3;
const PAGE: usize = 2;

fn page_bounds(cursor: Option<&str>, total: usize) -> Result<(usize, Option<String>), McpError> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .map_err(|_| McpError::invalid_params(format!("bad cursor {cursor}"), None))?,
    };
    let end = (start + PAGE).min(total);
    let next = (end < total).then(|| end.to_string());
    Ok((start, next))
}

fn text_result(text: &str) -> CallToolResult {
    from_json(json!({"content": [{"type": "text", "text": text}]}))
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerInfo {
        from_json(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {
                "tools": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "prompts": {"listChanged": true},
                "completions": {},
                "logging": {}
            },
            "serverInfo": {"name": "mcpeval-test-server", "version": "1.2.3"},
            "instructions": "Use the echo tool."
        }))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        self.observed
            .clients
            .lock()
            .unwrap()
            .push(serde_json::to_value(&request).unwrap());
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tool = |name: &str, description: &str| {
            json!({"name": name, "description": description,
                   "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}})
        };
        Ok(from_json(json!({"tools": [
            tool("echo", "Echoes its text"),
            tool("fail", "Fails with isError"),
            tool("broken", "Fails with a JSON-RPC error"),
            tool("slow", "Reports progress, can be cancelled"),
            tool("ask", "Asks the client for a sampling and its roots"),
            tool("confirm", "Asks the user through the client (elicitation)"),
            tool("withdraw", "Asks the client for a sampling, then cancels it"),
            tool("notify", "Sends notifications"),
            tool("ordered", "Returns JSON whose keys are not sorted"),
            tool("deploy", "Deploys after the user confirms (rmcp's typed elicitation)"),
            tool("sign_in", "Sends the user to a sign-in page (URL elicitation)"),
        ]})))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.observed
            .call_meta
            .lock()
            .unwrap()
            .push(serde_json::to_value(&context.meta).unwrap_or(Value::Null));
        let args = request.arguments.clone().unwrap_or_default();
        let text = args.get("text").and_then(Value::as_str).unwrap_or("");
        let result = match request.name.as_ref() {
            "echo" => text_result(&format!("echo: {text}")),
            "fail" => from_json(json!({
                "content": [{"type": "text", "text": "it failed"}], "isError": true
            })),
            "broken" => {
                return Err(McpError::new(
                    ErrorCode(-32042),
                    "broken on purpose",
                    Some(json!({"zeta": 1, "alpha": [true, null]})),
                ));
            }
            "slow" => return self.slow(&args, context).await,
            "ask" => return self.ask(context).await,
            "confirm" => return self.confirm(context).await,
            "withdraw" => return self.withdraw(context).await,
            "deploy" => deploy(&context).await,
            "sign_in" => sign_in(&context).await,
            "notify" => {
                let peer = &context.peer;
                let _ = peer
                    .notify_logging_message(from_json(json!({
                        "level": "info", "logger": "test", "data": {"b": 1, "a": 2}
                    })))
                    .await;
                let _ = peer.notify_tool_list_changed().await;
                let _ = peer.notify_resource_list_changed().await;
                let _ = peer.notify_prompt_list_changed().await;
                text_result("notified")
            }
            "ordered" => from_json(json!({
                "content": [{"type": "text", "text": "{\"zeta\":1,\"alpha\":2}"}],
                "structuredContent": {"zeta": 1, "alpha": {"b": 2, "a": 1}}
            })),
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool {other}"),
                    None,
                ));
            }
        };
        Ok(CallToolResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        let (start, next) = page_bounds(cursor.as_deref(), RESOURCES)?;
        let resources: Vec<Value> = (start..(start + PAGE).min(RESOURCES))
            .map(|i| json!({"uri": format!("test://doc/{i}"), "name": format!("doc {i}"), "mimeType": "text/plain"}))
            .collect();
        Ok(from_json(
            json!({"resources": resources, "nextCursor": next}),
        ))
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        let (start, next) = page_bounds(cursor.as_deref(), TEMPLATES)?;
        let templates: Vec<Value> = (start..(start + PAGE).min(TEMPLATES))
            .map(|i| json!({"uriTemplate": format!("test://t{i}/{{id}}"), "name": format!("template {i}")}))
            .collect();
        Ok(from_json(
            json!({"resourceTemplates": templates, "nextCursor": next}),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if !request.uri.starts_with("test://doc/") {
            return Err(McpError::resource_not_found(
                format!("no resource {}", request.uri),
                Some(json!({"uri": request.uri})),
            ));
        }
        let result: ReadResourceResult = from_json(json!({"contents": [
            {"uri": request.uri, "mimeType": "text/plain", "text": format!("content of {}", request.uri)}
        ]}));
        Ok(ReadResourceResponse::Complete(result))
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let peer = context.peer.clone();
        let uri = request.uri.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let _ = peer
                .notify_resource_updated(from_json(json!({"uri": uri})))
                .await;
        });
        Ok(())
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(from_json(json!({"prompts": [{
            "name": "greet", "description": "Greets someone",
            "arguments": [{"name": "name", "required": true}]
        }]})))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != "greet" {
            return Err(McpError::invalid_params(
                format!("unknown prompt {}", request.name),
                None,
            ));
        }
        let name = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("nobody");
        let result: GetPromptResult = from_json(json!({
            "description": "A greeting",
            "messages": [{"role": "user", "content": {"type": "text", "text": format!("Say hello to {name}")}}]
        }));
        Ok(GetPromptResponse::Complete(result))
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let prefix = request.argument.value.clone();
        let values: Vec<&str> = ["alice", "albert", "bob"]
            .into_iter()
            .filter(|v| v.starts_with(&prefix))
            .collect();
        Ok(from_json(
            json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}),
        ))
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.observed.notifications.lock().unwrap().push(format!(
            "setLevel {}",
            serde_json::to_value(request.level).unwrap()
        ));
        Ok(())
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        self.observed
            .notifications
            .lock()
            .unwrap()
            .push("notifications/roots/list_changed".into());
    }
}

impl TestServer {
    /// `slow`: `steps` progress notifications `ms` apart, then "done"; stops early and
    /// notes it when cancelled.
    async fn slow(
        &self,
        args: &JsonObject,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let steps = args.get("steps").and_then(Value::as_u64).unwrap_or(3);
        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(10);
        let token = context.meta.get_progress_token();
        for step in 1..=steps {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                () = context.ct.cancelled() => {
                    self.observed.cancelled.lock().unwrap().push("slow".into());
                    return Err(McpError::internal_error("cancelled", None));
                }
            }
            if let Some(token) = &token {
                let _ = context
                    .peer
                    .notify_progress(from_json(json!({
                        "progressToken": token, "progress": step, "total": steps,
                        "message": format!("step {step}")
                    })))
                    .await;
            }
        }
        Ok(CallToolResponse::Complete(text_result("done")))
    }
}

/// Serves a fresh `TestServer` per session over streamable HTTP on a loopback port.
pub async fn serve_http(observed: Arc<Observed>) -> (String, tokio_util::sync::CancellationToken) {
    use rmcp::transport::StreamableHttpService;
    use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    let cancel = tokio_util::sync::CancellationToken::new();
    let service = StreamableHttpService::new(
        move || {
            Ok(TestServer {
                observed: observed.clone(),
            })
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_cancellation_token(cancel.child_token()),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap();
    let address = listener.local_addr().unwrap();
    let shutdown = cancel.clone();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await;
    });
    (format!("http://{address}/mcp"), cancel)
}
