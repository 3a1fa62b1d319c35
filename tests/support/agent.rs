//! An rmcp client playing the agent: answers sampling and roots requests, keeps every
//! notification it receives, and sends requests as plain JSON.
#![allow(dead_code, deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{ClientInfo, ClientRequest, ClientResult, ServerNotification, ServerRequest};
use rmcp::service::{NotificationContext, RequestContext, RunningService, serve_client};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ErrorData as McpError, RoleClient, Service, ServiceError};
use serde_json::{Value, json};

use super::server::from_json;

/// What the agent received from the server side, as JSON.
#[derive(Debug, Default)]
pub struct Received {
    /// Notifications (`{"method": …, "params": …}`).
    pub notifications: Mutex<Vec<Value>>,
    /// Server→client requests.
    pub requests: Mutex<Vec<Value>>,
    /// Server→client requests the server cancelled while the agent worked on them.
    pub cancelled: Mutex<Vec<Value>>,
}

impl Received {
    /// The notifications with this method, in arrival order.
    pub fn notifications(&self, method: &str) -> Vec<Value> {
        self.notifications
            .lock()
            .unwrap()
            .iter()
            .filter(|n| n["method"] == method)
            .cloned()
            .collect()
    }

    /// Waits (up to 20 s) until `count` notifications with this method arrived.
    pub async fn wait_for(&self, method: &str, count: usize) -> Vec<Value> {
        for _ in 0..400 {
            let found = self.notifications(method);
            if found.len() >= count {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "no {count} `{method}` notifications within 20s; got {:?}",
            self.notifications.lock().unwrap()
        );
    }
}

/// The test agent.
#[derive(Clone)]
pub struct TestAgent {
    pub name: String,
    pub received: Arc<Received>,
    /// The root it answers `roots/list` with (default `file:///work`, named `work`).
    pub root: String,
}

impl TestAgent {
    pub fn new(name: &str) -> Self {
        Self {
            name: name.into(),
            received: Arc::default(),
            root: "file:///work".into(),
        }
    }

    /// The same agent with `root` (a `file://` URI) as its one root.
    pub fn with_root(mut self, root: &str) -> Self {
        self.root = root.into();
        self
    }
}

impl Service<RoleClient> for TestAgent {
    async fn handle_request(
        &self,
        request: ServerRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<ClientResult, McpError> {
        let json = serde_json::to_value(&request).unwrap();
        self.received.requests.lock().unwrap().push(json.clone());
        if json["params"]["messages"][0]["content"]["text"] == "wait for cancellation" {
            // Answers only when the server cancels the request (or after 20 s).
            let cancelled = tokio::time::timeout(Duration::from_secs(20), context.ct.cancelled());
            if cancelled.await.is_ok() {
                self.received.cancelled.lock().unwrap().push(json);
            }
            return Err(McpError::internal_error("cancelled", None));
        }
        match json["method"].as_str() {
            Some("sampling/createMessage") => Ok(from_json(json!({
                "model": "fake-model", "role": "assistant", "stopReason": "endTurn",
                "content": {"type": "text", "text": "4"}
            }))),
            Some("roots/list") => Ok(from_json(json!({
                "roots": [{"uri": self.root, "name": "work"}]
            }))),
            Some("elicitation/create") => Ok(from_json(json!({
                "action": "accept", "content": {"confirm": true}
            }))),
            Some("ping") => Ok(ClientResult::empty(())),
            _ => Err(McpError::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "not supported by the test agent",
                None,
            )),
        }
    }

    async fn handle_notification(
        &self,
        notification: ServerNotification,
        _context: NotificationContext<RoleClient>,
    ) -> Result<(), McpError> {
        let json = serde_json::to_value(&notification).unwrap();
        self.received.notifications.lock().unwrap().push(json);
        Ok(())
    }

    fn get_info(&self) -> ClientInfo {
        from_json(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"sampling": {}, "elicitation": {"form": {}}, "roots": {"listChanged": true}},
            "clientInfo": {"name": self.name, "version": "0.0.7"}
        }))
    }
}

/// A connected agent.
pub type Agent = RunningService<RoleClient, TestAgent>;

/// Connects `agent` to the MCP endpoint at `url`.
pub async fn connect(agent: TestAgent, url: &str) -> Agent {
    mcpeval::tls::install_provider();
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    match tokio::time::timeout(Duration::from_secs(60), serve_client(agent, transport)).await {
        Ok(Ok(running)) => running,
        Ok(Err(error)) => panic!("connecting to {url} failed: {error}"),
        Err(_) => panic!("connecting to {url} timed out"),
    }
}

/// Sends `method` with `params` and returns the result or the JSON-RPC error, as JSON.
pub async fn request(agent: &Agent, method: &str, params: Value) -> Result<Value, Value> {
    let request: ClientRequest = from_json(json!({"method": method, "params": params}));
    let sent = agent.peer().send_request(request);
    match tokio::time::timeout(Duration::from_secs(60), sent).await {
        Ok(Ok(result)) => Ok(serde_json::to_value(&result).unwrap()),
        Ok(Err(ServiceError::McpError(error))) => Err(serde_json::to_value(&error).unwrap()),
        Ok(Err(other)) => panic!("{method} failed outside JSON-RPC: {other}"),
        Err(_) => panic!("{method} got no answer within 60s"),
    }
}

/// Like [`request`], for calls that must succeed.
pub async fn ok(agent: &Agent, method: &str, params: Value) -> Value {
    match request(agent, method, params).await {
        Ok(result) => result,
        Err(error) => panic!("{method} failed: {error}"),
    }
}
